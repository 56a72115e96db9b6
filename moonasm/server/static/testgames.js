// The playground's test games (templates/testgames.html): the program in the editor plays as a
// bot against the chosen opponents; the answer becomes a results table and a summary, with a
// link to the first game in the replay viewer. The editor's text and the posting are the
// editor component's (editor.js: `MoonEditor.all[0].full()`, `MoonEditor.post`); without the
// editor, the #source textarea's text. No inline script, nothing from the network; its URLs
// are #test-games' data-*-url.
"use strict";
(function () {
  const root = document.getElementById("test-games");
  if (!root) return;
  const $ = (id) => document.getElementById(id);
  const SEED_LIMIT = 2n ** 53n;

  function programText() {
    const ed = window.MoonEditor && window.MoonEditor.all[0];
    if (ed) return ed.full();
    return $("source") ? $("source").value : "";
  }

  function el(tag, text, className) {
    const node = document.createElement(tag);
    if (text !== undefined) node.textContent = text;
    if (className) node.className = className;
    return node;
  }

  function randomSeed() {
    const [high, low] = crypto.getRandomValues(new Uint32Array(2));
    return String((BigInt(high & 0x1fffff) << 32n) + BigInt(low));  // below 2^53
  }
  $("tg-seed").value = randomSeed();
  $("tg-new-seed").addEventListener("click", () => { $("tg-seed").value = randomSeed(); });

  // -- the opponents offered ----------------------------------------------------------------
  function checkbox(value, label) {
    const box = el("input");
    box.type = "checkbox";
    box.value = value;
    box.name = "opponent";
    const wrap = el("label", undefined, "check");
    wrap.append(box, document.createTextNode(label));
    return wrap;
  }

  function group(title, items) {
    const div = el("div", undefined, "tg-group");
    div.append(el("h3", title));
    for (const [value, label] of items) div.append(checkbox(value, label));
    return div;
  }

  async function loadOpponents() {
    const fieldset = $("tg-opponents");
    let data;
    try {
      const answer = await fetch(root.dataset.opponentsUrl, { credentials: "same-origin" });
      data = await answer.json();
    } catch (e) {
      $("tg-loading").textContent = "The bots could not be loaded; reload the page.";
      return;
    }
    $("tg-loading").remove();
    fieldset.append(group("Example bots", data.examples.map((name) => ["example:" + name, name])));
    if (data.own.length) {
      fieldset.append(group("Your bots", data.own.map((b) =>
        ["bot:" + b.bot, `${b.name} v${b.version} (hill ${b.hill}, bot ${b.bot})`])));
    }
    for (const hill of data.hills) {
      if (!hill.open || !hill.bots.length) continue;
      fieldset.append(group(`Open hill ${hill.title}`, hill.bots.map((b) =>
        ["bot:" + b.bot, `${b.name} v${b.version} by ${b.author} (bot ${b.bot})`])));
    }
    const first = fieldset.querySelector("input[type=checkbox]");
    if (first) first.checked = true;
  }
  loadOpponents();

  // -- playing ---------------------------------------------------------------------------------
  function request() {
    const opponents = [...root.querySelectorAll("input[name=opponent]:checked")].map((box) => {
      const [kind, value] = box.value.split(/:(.*)/s);
      return kind === "bot" ? Number(value) : value;
    });
    if (opponents.length < 1 || opponents.length > 3) return [null, "Choose 1 to 3 opponents."];
    const seedText = $("tg-seed").value.trim();
    let seed = null;
    if (seedText) {
      if (!/^\d{1,16}$/.test(seedText) || BigInt(seedText) >= SEED_LIMIT) {
        return [null, "A seed is a whole number from 0 to 2^53 - 1 (or empty for a random one)."];
      }
      seed = Number(seedText);
    }
    const games = Number($("tg-games").value);
    if (!Number.isInteger(games) || games < 1 || games > 20) return [null, "Play 1 to 20 games."];
    return [{ source: programText(), opponents, hill: $("tg-hill").value || null, seed, games }, null];
  }

  function showProblems(list) {
    const problems = $("tg-problems");
    problems.replaceChildren();
    for (const d of list || []) {
      const where = d.line === null ? d.file : `${d.file}:${d.line}:${d.column}`;
      problems.append(el("li", `${where}: ${d.severity}: ${d.message}`, d.severity));
    }
  }

  function seatsText(game) {
    return game.seats.map((s, i) => `${i + 1} ${s.name}${s.bot === "program" ? " (yours)" : ""}`).join(", ");
  }

  function faultsText(game) {
    return game.faults.map((f) => {
      const where = f.line === null ? "" : ` line ${f.line}`;
      const what = f.message ? `: ${f.message}` : "";
      return `seat ${f.seat} round ${f.round} ${f.kind}${where}${what}`;
    }).join("; ") || "none";
  }

  function showResults(data) {
    const rows = $("tg-rows");
    rows.replaceChildren();
    for (const g of data.games) {
      const tr = el("tr");
      const number = el("td");
      const link = el("a", String(g.game));
      link.href = `${data.viewer}?game=${g.game}`;
      link.setAttribute("aria-label", `game ${g.game} in the replay viewer`);
      number.append(link);
      const winners = g.winners.map((seat) => g.seats[seat - 1].name).join(", ") || "none";
      tr.append(number, el("td", String(g.seed), "seed"), el("td", seatsText(g), "name"),
        el("td", g.scores.join("–")), el("td", winners, "name"), el("td", String(g.rounds)),
        el("td", faultsText(g), "name"));
      rows.append(tr);
    }
    const where = data.hill === null ? "match's defaults" : `hill ${data.hill}'s options`;
    $("tg-caption").textContent = `${data.games.length} games with ${where}, seed ${data.seed}`;
    const summary = $("tg-summary");
    summary.replaceChildren();
    for (const b of data.summary.bots) {
      const rate = b.win_rate;
      const tr = el("tr");
      tr.append(el("td", b.name, "name"), el("td", String(b.games)), el("td", String(b.wins)),
        el("td", String(b.ties)), el("td", String(b.losses)),
        el("td", `${rate.value.toFixed(3)} (${rate.low.toFixed(3)}–${rate.high.toFixed(3)})`, "name"),
        el("td", b.solved_mean.toFixed(2)));
      summary.append(tr);
    }
    $("tg-first").href = `${data.viewer}?game=1`;
    $("tg-first").parentElement.hidden = !data.games.length;  // stopped before a game ended
    $("tg-kept").textContent = `(kept until ${data.expires.replace("T", " ").replace("Z", " UTC")})`;
    $("tg-command").textContent = data.command;
    $("tg-results").hidden = false;
  }

  let playing = false;
  $("tg-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    if (playing) return;
    const [body, problem] = request();
    const status = $("tg-status");
    if (body === null) { status.textContent = problem; return; }
    playing = true;
    $("tg-play").disabled = true;
    status.textContent = `Playing ${body.games} games…`;
    showProblems([]);
    try {
      const [code, data] = await window.MoonEditor.post(root.dataset.playUrl, JSON.stringify(body),
                                                        { "X-CSRF-Token": root.dataset.csrf });
      if (code === 200) {
        $("tg-seed").value = String(data.seed);
        showResults(data);
        status.textContent = data.stopped || `${data.games.length} games played.`;
      } else {
        status.textContent = data.error || `the games could not be played (${code})`;
        showProblems(data.diagnostics);
      }
    } catch (err) {
      status.textContent = "The server could not be reached.";
    } finally {
      playing = false;
      $("tg-play").disabled = false;
    }
  });

  // -- submitting the program to a hill (a signed-in author) ----------------------------------
  const submit = $("tg-submit");
  if (submit) submit.addEventListener("submit", () => { $("tg-submit-source").value = programText(); });
})();
