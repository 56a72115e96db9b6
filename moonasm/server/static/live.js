// Live pages: standings tables, game lists and rating charts refresh when the server says
// something changed (Server-Sent Events); times read in the reader's own zone. No framework, no
// inline script (the site's policy). The page gives its URLs (the body's data-*-url: a route's
// pattern, such as /bots/{bot}, filled in here).
//
// A row built here is built as the server's templates build it (standings.html,
// games_table.html, bot_games.html): the same cells, classes and words, so that a row pushed
// live reads as a reloaded one.
"use strict";
(function () {
  // -- times: <time datetime="…Z"> written in UTC by the server, shown local and relative ----
  const relative = typeof Intl !== "undefined" && Intl.RelativeTimeFormat
    ? new Intl.RelativeTimeFormat(undefined, { numeric: "auto" }) : null;
  const UNITS = [["year", 31536000], ["month", 2592000], ["week", 604800], ["day", 86400],
    ["hour", 3600], ["minute", 60], ["second", 1]];
  function ago(date) {
    const seconds = (date.getTime() - Date.now()) / 1000;
    if (Math.abs(seconds) < 10) return "just now";
    for (const [unit, size] of UNITS) {
      if (Math.abs(seconds) >= size || unit === "second") {
        const n = Math.round(seconds / size);
        return relative ? relative.format(n, unit)
          : Math.abs(n) + " " + unit + (Math.abs(n) === 1 ? "" : "s") + " ago";
      }
    }
    return date.toLocaleString();
  }
  function localTime(el) {
    const date = new Date(el.dateTime);
    if (isNaN(date.getTime())) return;
    el.textContent = ago(date);
    el.title = date.toLocaleString(undefined, { dateStyle: "full", timeStyle: "long" });
  }
  function localTimes(root) { root.querySelectorAll("time[datetime]").forEach(localTime); }
  localTimes(document);
  setInterval(() => localTimes(document), 30000);

  // -- a table that still scrolls sideways says so --------------------------------------------
  function scrollHints() {
    document.querySelectorAll(".scroll").forEach((box) => {
      const scrolls = box.scrollWidth > box.clientWidth + 1;
      let hint = box.previousElementSibling;
      if (!hint || !hint.classList.contains("scroll-hint")) {
        if (!scrolls) return;
        hint = document.createElement("p");
        hint.className = "scroll-hint";
        hint.textContent = "scroll sideways for more →";
        box.before(hint);
      }
      hint.hidden = !scrolls;
    });
  }
  scrollHints();
  window.addEventListener("resize", scrollHints);

  const tables = document.querySelectorAll("table.standings[data-hill]");
  const gameTables = document.querySelectorAll("table.games[data-hill], table.games[data-bot]");
  const counts = document.querySelectorAll(".games-count[data-hill]");
  const charts = document.querySelectorAll(".chart-box[data-chart-url]");
  if (!tables.length && !gameTables.length && !counts.length && !charts.length) return;
  const urls = document.body.dataset;
  const fill = (pattern, value) => pattern.replace(/\{[a-z]+\}/, encodeURIComponent(value));

  function cell(row, text, cls) {
    const td = row.insertCell();
    td.textContent = text;
    if (cls) td.className = cls;
    return td;
  }
  function link(td, href, text) {
    const a = document.createElement("a");
    a.href = href;
    a.textContent = text;
    td.appendChild(a);
  }
  function span(parent, text, cls) {
    const s = document.createElement("span");
    s.className = cls;
    s.textContent = text;
    parent.appendChild(s);
    return s;
  }
  function when(parent, iso) {
    if (!iso) { parent.appendChild(document.createTextNode("—")); return; }
    const t = document.createElement("time");
    t.dateTime = iso;
    t.textContent = iso.slice(0, 16).replace("T", " ") + " UTC";
    parent.appendChild(t);
    localTime(t);
  }

  // -- standings -------------------------------------------------------------------------
  async function refreshStandings(hill) {
    const answer = await fetch(fill(urls.standingsUrl, hill));
    if (!answer.ok) return;
    const data = await answer.json();
    document.querySelectorAll('table.standings[data-hill="' + CSS.escape(hill) + '"]').forEach((table) => {
      const limit = Number(table.dataset.limit) || data.standings.length;
      const body = table.tBodies[0];
      body.replaceChildren();
      for (const r of data.standings.slice(0, limit)) {
        const row = body.insertRow();
        if (r.provisional) row.className = "provisional";
        const faults = Object.values(r.faults).reduce((a, b) => a + b, 0);
        const rate = r.win_rate.value.toFixed(3);
        cell(row, r.rank);
        const name = cell(row, "", "name");
        link(name, fill(urls.botUrl, r.bot), r.name);
        span(name, "by " + r.author + " · v" + r.version + " · W–T–L " + r.wins + "–" + r.ties + "–" +
          r.losses + " · win rate " + rate + " · " + faults + " faults", "fold");
        cell(row, r.author, "name wide");
        cell(row, r.version, "wide");
        cell(row, r.rating.mu.toFixed(1) + " ± " + r.rating.sigma.toFixed(1));
        cell(row, r.wins, "wide"); cell(row, r.ties, "wide"); cell(row, r.losses, "wide");
        cell(row, r.games);
        cell(row, rate, "wide");
        cell(row, faults, "wide");
      }
      if (!data.standings.length) {
        const row = body.insertRow();
        const td = cell(row, "no bots yet", "muted");
        td.colSpan = 11;
      }
    });
    counts.forEach((c) => { if (c.dataset.hill === hill) c.textContent = data.games; });
    scrollHints();
  }

  // -- games -----------------------------------------------------------------------------
  // A bot's name as the server writes it in a game's row ("builder v2"): the event's own
  // (its seats carry each bot's name and version); else asked of the API once.
  const names = new Map();
  function nameOf(seat) {
    if (seat.name !== null && seat.name !== undefined) {
      return Promise.resolve(seat.name + " v" + seat.version);
    }
    const bot = seat.bot;
    if (!names.has(bot)) {
      names.set(bot, fetch(fill(urls.botApiUrl, bot))
        .then((answer) => answer.ok ? answer.json() : Promise.reject(answer.status))
        .then((b) => b.name + " v" + b.version)
        .catch(() => { names.delete(bot); return "bot " + bot; }));
    }
    return names.get(bot);
  }

  // How a game went for one of its bots, as views/shared.py `side` says it.
  function side(game, bot) {
    if (game.result === "won" || game.result === "lost") return game.result;
    const seats = [];
    game.bots.forEach((b, i) => { if (b === bot) seats.push(i + 1); });
    if (!game.winners.length) return "tied";
    if (seats.some((s) => game.winners.includes(s))) return game.winners.length === 1 ? "won" : "tied";
    return "lost";
  }

  function links(td, bots, labels) {
    bots.forEach((b, i) => {
      if (i) td.appendChild(document.createTextNode(" · "));
      link(td, fill(urls.botUrl, b), labels[i]);
    });
  }
  // a game's rounds, faults (all of them; on a bot's page its own: `faults`, `words`) and time
  function fold(td, game, faults, words) {
    const f = span(td, game.rounds + " rounds · " + faults + " " + words + " · ", "fold");
    when(f, game.played);
  }
  function tail(row, game, faults) {
    cell(row, game.rounds, "wide");
    cell(row, faults, "wide");
    when(cell(row, "", "wide"), game.played);
  }

  function hillRow(body, game, labels) {  // games_table.html
    const row = body.insertRow(0);
    link(cell(row, ""), fill(urls.gameUrl, game.game), String(game.game));
    const bots = cell(row, "", "name");
    links(bots, game.bots, labels);
    fold(bots, game, game.faults.length, "faults");
    cell(row, game.scores.join(" – "));
    cell(row, game.winners.join(", ") || "—");
    tail(row, game, game.faults.length);
  }

  function botRow(body, game, labels, bot) {  // bot_games.html, from the bot's side
    const how = side(game, bot);
    const row = body.insertRow(0);
    row.className = how;
    link(cell(row, ""), fill(urls.gameUrl, game.game), String(game.game));
    span(cell(row, "", "name"), how, "side " + how);
    const mine = [], theirs = [], others = [], otherLabels = [], seats = [];
    game.bots.forEach((b, i) => {
      if (b === bot) { mine.push(game.scores[i]); seats.push(i + 1); return; }
      theirs.push(game.scores[i]); others.push(b); otherLabels.push(labels[i]);
    });
    const faults = game.faults.filter((f) => seats.includes(f.seat)).length;
    cell(row, mine.join(", ") + " vs " + theirs.join(", "));
    const against = cell(row, "", "name");
    links(against, others, otherLabels);
    fold(against, game, faults, "of its faults");
    tail(row, game, faults);
  }

  async function addGame(game) {
    if (!gameTables.length) return;
    const labels = await Promise.all(game.seats.map(nameOf));
    gameTables.forEach((table) => {
      const bot = Number(table.dataset.bot);
      if (table.dataset.hill && table.dataset.hill !== game.hill) return;
      if (bot && !game.bots.includes(bot)) return;
      const body = table.tBodies[0];
      if (body.querySelector("td.muted")) body.replaceChildren();
      if (bot) botRow(body, game, labels, bot); else hillRow(body, game, labels);
      while (body.rows.length > 20) body.deleteRow(body.rows.length - 1);
    });
    scrollHints();
  }

  // -- rating charts: redrawn from the server's SVG after a fit, at most every 2 s a chart ----
  const CHART_EVERY = 2000;
  const drawn = new WeakMap();
  async function redraw(box) {
    const last = drawn.get(box) || { at: 0, timer: null };
    drawn.set(box, last);
    if (last.timer !== null) return;
    const wait = Math.max(0, last.at + CHART_EVERY - Date.now());
    last.timer = setTimeout(async () => {
      last.timer = null;
      last.at = Date.now();
      const answer = await fetch(box.dataset.chartUrl);
      if (!answer.ok) return;
      const text = await answer.text();
      const parsed = text.trimStart().startsWith("<svg")
        ? new DOMParser().parseFromString(text, "image/svg+xml").documentElement
        : new DOMParser().parseFromString(text, "text/html").body.firstElementChild;
      if (parsed && !parsed.querySelector("parsererror")) {
        box.replaceChildren(document.importNode(parsed, true));
      }
    }, wait);
  }

  const pending = new Set();
  let timer = null;
  const source = new EventSource(urls.eventsUrl);
  source.addEventListener("standings", (e) => {
    const hill = JSON.parse(e.data).hill;
    pending.add(hill);
    charts.forEach((box) => { if (box.dataset.hill === hill) redraw(box); });
    if (timer === null) {
      timer = setTimeout(() => {
        timer = null;
        for (const h of pending) refreshStandings(h);
        pending.clear();
      }, 200);
    }
  });
  source.addEventListener("game", (e) => addGame(JSON.parse(e.data)));
  // Once connected (and after every reconnection), catch up with what changed between the
  // page's rendering and the stream's start: those events were never sent to this page.
  source.addEventListener("open", () => {
    const hills = new Set();
    tables.forEach((t) => hills.add(t.dataset.hill));
    counts.forEach((c) => hills.add(c.dataset.hill));
    hills.forEach((hill) => refreshStandings(hill));
    charts.forEach(redraw);
  });
})();
