// Live pages: standings tables and game lists refresh when the server says something changed
// (Server-Sent Events). No framework, no inline script (the site's policy). The page gives its
// URLs (the body's data-*-url: a route's pattern, such as /bots/{bot}, filled in here).
"use strict";
(function () {
  const tables = document.querySelectorAll("table.standings[data-hill]");
  const gameTables = document.querySelectorAll("table.games");
  const counts = document.querySelectorAll(".games-count[data-hill]");
  if (!tables.length && !gameTables.length && !counts.length) return;
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
        cell(row, r.rank);
        link(cell(row, "", "name"), fill(urls.botUrl, r.bot), r.name);
        cell(row, r.author, "name");
        cell(row, r.version);
        cell(row, r.rating.mu.toFixed(1) + " ± " + r.rating.sigma.toFixed(1));
        cell(row, r.wins); cell(row, r.ties); cell(row, r.losses); cell(row, r.games);
        cell(row, r.win_rate.value.toFixed(3));
        cell(row, Object.values(r.faults).reduce((a, b) => a + b, 0));
      }
      if (!data.standings.length) {
        const row = body.insertRow();
        const td = cell(row, "no bots yet", "muted");
        td.colSpan = 11;
      }
    });
    counts.forEach((c) => { if (c.dataset.hill === hill) c.textContent = data.games; });
  }

  // A bot's name as the server writes it in a game's row ("builder v2"): taken from the rows
  // the page was rendered with, else asked of the API once. A live row reads like a reloaded one.
  const names = new Map();
  const [botBefore, botAfter] = urls.botUrl.split(/\{[a-z]+\}/);  // around a bot's id
  gameTables.forEach((table) => table.querySelectorAll("a").forEach((a) => {
    const path = new URL(a.href).pathname;
    const id = path.slice(botBefore.length, path.length - botAfter.length);
    if (path.startsWith(botBefore) && path.endsWith(botAfter) && /^\d+$/.test(id)) {
      names.set(Number(id), Promise.resolve(a.textContent));
    }
  }));
  function nameOf(bot) {
    if (!names.has(bot)) {
      names.set(bot, fetch(fill(urls.botApiUrl, bot))
        .then((answer) => answer.ok ? answer.json() : Promise.reject(answer.status))
        .then((b) => b.name + " v" + b.version)
        .catch(() => { names.delete(bot); return "bot " + bot; }));
    }
    return names.get(bot);
  }

  async function addGame(game) {
    if (!gameTables.length) return;
    const labels = await Promise.all(game.bots.map(nameOf));
    gameTables.forEach((table) => {
      if (table.dataset.hill && table.dataset.hill !== game.hill) return;
      if (table.dataset.bot && !game.bots.includes(Number(table.dataset.bot))) return;
      const body = table.tBodies[0];
      const empty = body.querySelector("td.muted");
      if (empty) body.replaceChildren();
      const row = body.insertRow(0);
      link(cell(row, ""), fill(urls.gameUrl, game.game), String(game.game));
      const bots = cell(row, "", "name");
      game.bots.forEach((b, i) => {
        if (i) bots.appendChild(document.createTextNode(" · "));
        link(bots, fill(urls.botUrl, b), labels[i]);
      });
      cell(row, game.scores.join(" – "));
      cell(row, game.winners.join(", ") || "—");
      cell(row, game.rounds);
      cell(row, game.faults.length);
      while (body.rows.length > 20) body.deleteRow(body.rows.length - 1);
    });
  }

  const pending = new Set();
  let timer = null;
  const source = new EventSource(urls.eventsUrl);
  source.addEventListener("standings", (e) => {
    pending.add(JSON.parse(e.data).hill);
    if (timer === null) {
      timer = setTimeout(() => {
        timer = null;
        for (const hill of pending) refreshStandings(hill);
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
  });
})();
