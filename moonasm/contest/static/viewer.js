// moonasm's report and game viewer. report.html inlines this file; `moonasm serve` serves it
// as a file under a Content-Security-Policy that forbids inline script. It reads its data
// from <script type="application/json" id="data">, inserts every text with textContent and
// attaches every handler here (no inline handlers), so no name or source can run as script.
"use strict";
(() => {
const $ = (id) => document.getElementById(id);
const DATA = JSON.parse($("data").textContent);
const el = (tag, props = {}, ...children) => {
  const node = document.createElement(tag);
  Object.assign(node, props);
  for (const c of children) node.append(c);
  return node;
};
const pct = (x) => (100 * x).toFixed(1) + " %";
const num = (x, d = 2) => (x === null || x === undefined) ? "–" : x.toFixed(d);
const power = (halves) => halves === null ? "unlimited" : String(halves / 2);
const bitsOf = (v) => v === null || v === undefined ? "–" :
  `${v.toString(2).padStart(DATA.bits, "0")} (${v})`;
const plural = (n, word) => `${n.toLocaleString("en")} ${word}${n === 1 ? "" : "s"}`;

// -- the report's tables (absent on a game's own page) ---------------------------------------

function renderReport() {
  const coop = DATA.mode === "coop";
  $("subtitle").textContent = `${plural(DATA.games_played, "game")}, ` +
    `${DATA.players} players a game, ${DATA.bits} bits`;
  for (const s of DATA.standings) {
    const [rate, low, high] = s.win_rate;
    $("standings").tBodies[0].append(el("tr", {},
      el("td", {textContent: s.rank}), el("td", {className: "name", textContent: s.name, title: s.file}),
      el("td", {className: "name", textContent: s.author || ""}),
      el("td", {textContent: `${num(s.mu)} ± ${num(s.sigma)}`}), el("td", {textContent: num(s.ordinal)}),
      el("td", {textContent: s.wins}), el("td", {textContent: s.ties}), el("td", {textContent: s.losses}),
      el("td", {textContent: s.games}),
      el("td", {textContent: `${pct(rate)} (${pct(low)}–${pct(high)})`}),
      el("td", {textContent: s.faults})));
  }
  if (DATA.invalid.length) {
    $("invalid").append(el("h3", {textContent: "Bots that took no part"}));
    for (const bad of DATA.invalid) {
      const list = el("ul");
      for (const d of bad.diagnostics)
        list.append(el("li", {className: "fault",
          textContent: `${d.file}${d.line ? ":" + d.line + ":" + d.column : ""}: ${d.message}`}));
      $("invalid").append(el("p", {textContent: bad.file}), list);
    }
  }
  $("cross-note").textContent = coop ?
    "Cooperative: the bots are teammates. Each cell: the games the row's and the column's bot won together, of the games they played together, and their mean rounds." :
    "Win rate of the row's bot in its games with the column's bot.";
  const head = el("tr", {}, el("th", {className: "name"}));
  for (const s of DATA.standings) head.append(el("th", {textContent: s.name}));
  $("cross").append(head);
  DATA.cross.forEach((row, i) => {
    const tr = el("tr", {}, el("th", {className: "name", textContent: DATA.standings[i].name}));
    for (const cell of row) {
      let text = "·", title = "";
      if (cell !== null && coop) {
        text = cell[1] ? `${cell[0]}/${cell[1]} won, ${num(cell[2] / cell[1], 1)} rounds` : "–";
        title = `won ${cell[0]} of ${cell[1]} games together; ${cell[2]} rounds in all`;
      } else if (cell !== null) {
        text = cell[1] ? pct(cell[0] / cell[1]) : "–";
        title = `${cell[0]} wins in ${cell[1]} games`;
      }
      tr.append(el("td", {textContent: text, title}));
    }
    $("cross").append(tr);
  });
  for (const s of DATA.standings) {
    const faults = DATA.faults[s.key] || [];
    const box = el("details", {},
      el("summary", {textContent: `${s.name}: ${plural(s.faults, "fault")}`}));
    for (const f of faults) {
      const item = el("div", {className: "fault"});
      const head = `game ${f.game} (seed ${f.seed}), round ${f.round}, seat ${f.seat}: `;
      if (f.frame !== null) {
        item.append(el("a", {href: `#game=${f.game}&frame=${f.frame}`, className: "fault-link",
                             textContent: head}));
      } else item.append(head);
      const where = f.line === null ? "" : ` at line ${f.line}:${f.column}` +
        (f.statement === null ? "" : ` \`${f.statement}\``);
      // a report's public form leaves out others' messages and states, and every command (null)
      const state = f.registers === null ? "" : " — " +
        f.registers.map((v, i) => `${"ABCD"[i]}=${bitsOf(v)}`).join(" ") +
        ` RAM=${bitsOf(f.ram)}, power left ${power(f.power)}`;
      item.append(`${f.kind} fault${where}` + (f.message === null ? "" : `: ${f.message}`) + state);
      if (f.command !== null)
        item.append(el("code", {className: "command", textContent: f.command, title: "replays this turn in a terminal"}));
      box.append(item);
    }
    if (s.faults > faults.length)
      box.append(el("div", {className: "muted", textContent: `(${s.faults - faults.length} more in the store)`}));
    $("faults").append(box);
  }
}

// -- the viewer ------------------------------------------------------------------------------
// A frame is [kind, round, seat, registers, ram, power, text, line, table]; `table` is 0 when
// it is the frame before's. A thinking frame is ["think", round, seat, count, lines, cycle,
// last line]: `count` statements, `lines` in order, then the last `cycle` of them repeated.

let game = null;      // the game shown
let starts = [];      // flat index of each frame's first position
let total = 0;        // positions in the game (thinking expanded or not)
let position = 0;
let timer = null;
let sourceSeat = null;

const expanded = () => $("thinking").checked;

function prepare(g) {
  if (g.full) return;
  let last = null;
  g.full = g.frames.map((f) => {
    if (f[0] === "think") {
      const [, round, seat, count, lines, cycle, line] = f;
      last = ["think", round, seat, last[3], last[4], last[5],
              `seat ${seat}: +${plural(count, "thinking step")}` +
              (cycle ? ` (a loop of ${cycle} to the step limit)` : ""), line, last[8], {count, lines, cycle}];
    } else {
      last = f[8] === 0 ? [...f.slice(0, 8), last[8]] : f;
    }
    return last;
  });
  g.turnStarts = [];
  g.full.forEach((f, k) => { if (f[0] === "turn" || f[0] === "skip") g.turnStarts.push(k); });
}

function layout() {
  starts = [];
  total = 0;
  for (const f of game.full) {
    starts.push(total);
    total += expanded() && f[0] === "think" && f[9].lines.length ? f[9].count : 1;
  }
  $("slider").max = Math.max(0, total - 1);
}

function locate(i) {  // flat position -> [frame index, offset within a thinking frame]
  let lo = 0, hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= i) lo = mid; else hi = mid - 1;
  }
  return [lo, i - starts[lo]];
}

function thinkingLine(think, offset) {
  const {lines, cycle} = think;
  if (offset < lines.length) return lines[offset];
  return lines[lines.length - cycle + (offset - lines.length) % cycle];
}

function lamps(label, value) {
  const row = el("div", {className: "reg"}, el("span", {className: "label", textContent: label}));
  for (let bit = DATA.bits - 1; bit >= 0; bit--)
    row.append(el("span", {className: "lamp" + (value !== null && (value >> bit) & 1 ? " on" : ""),
                           title: `bit ${1 << bit}`}));
  row.append(el("span", {className: "value", textContent: value === null ? "" : bitsOf(value)}));
  return row;
}

function nameOf(seat) {
  return seat ? `seat ${seat} (${game.names[seat - 1]})` : "–";
}

function showTable(f) {
  const [, round, seat, , , pw, , , table] = f;
  const [deck, scores, goals, shown, pending, disabled] = table;
  const acting = f[0] === "step" || f[0] === "turn" || f[0] === "think" || f[0] === "fault" || f[0] === "solved" || f[0] === "hack";
  const rows = [["round", round], ["turn of", acting ? nameOf(seat) : "–"],
                ["power left", acting && seat ? `${power(pw)} (${game.names[seat - 1]}'s)` : "–"],
                ["deck", `${deck} cards`]];
  if (DATA.mode === "coop") {
    rows.push(["pending goals (everyone's)", pending.map(bitsOf).join(", ") || "none"]);
    game.names.forEach((n, k) => rows.push([`seat ${k + 1} ${n}`, `score ${scores[k]}`]));
  } else {
    game.names.forEach((n, k) => rows.push([`seat ${k + 1} ${n}`,
      `score ${scores[k]}; ` + (goals[k] === null ? "no goal" : `goal ${bitsOf(goals[k])} ` +
      (shown.includes(k + 1) ? "(shown to all by HACK)" : "(secret: only this seat saw it)"))]));
  }
  if (disabled.length) rows.push(["errors", disabled.join(", ")]);
  $("table").replaceChildren(el("table", {}, ...rows.map(([k, v]) =>
    el("tr", {}, el("th", {className: "name", textContent: k}), el("td", {className: "name", textContent: v})))));
}

function showSource(seat, line) {
  const text = game.sources[String(seat)];
  if (sourceSeat !== seat) {
    sourceSeat = seat;
    $("source-title").textContent = seat ? `Source of ${nameOf(seat)}` : "Source";
    $("source").replaceChildren(...(text === undefined ?
      [el("li", {className: "muted", textContent: seat ? "(not shown to you)" : ""})] :
      text.split("\n").map((t) => el("li", {textContent: t || " "}))));
  }
  for (const li of $("source").querySelectorAll("li.current")) li.classList.remove("current");
  if (text !== undefined && line) {
    const li = $("source").children[line - 1];
    if (li) {
      li.classList.add("current");
      const box = $("source");
      if (li.offsetTop < box.scrollTop || li.offsetTop > box.scrollTop + box.clientHeight - 20)
        box.scrollTop = li.offsetTop - box.clientHeight / 2;
    }
  }
}

function showEvents(k) {
  const ts = game.turnStarts;
  let from = 0;
  for (const t of ts) if (t <= k) from = t;
  const next = ts.find((t) => t > from);
  const to = next === undefined ? game.full.length : next;
  const items = [];
  for (let j = from; j < to && j < from + 400; j++) {
    const f = game.full[j];
    const li = el("li", {className: j === k ? "current" : ""});
    const link = el("a", {href: frameLink(j), textContent: f[6]});
    li.append(link);
    if (f[0] === "think" && f[9].lines.length) {
      const button = el("button", {type: "button", className: "expand",
                                   textContent: expanded() ? "fold" : "expand"});
      button.dataset.frame = String(j);
      li.append(" ", button);
    }
    items.push(li);
  }
  $("events").replaceChildren(...items);
}

function frameLink(k) {
  return `#game=${game.id}&frame=${starts[k]}` + (expanded() ? "&thinking=1" : "");
}

function show(i, keepHash = false) {
  if (!game || !total) return;
  position = Math.max(0, Math.min(i, total - 1));
  const [k, offset] = locate(position);
  let f = game.full[k];
  let line = f[7];
  let text = f[6];
  if (f[0] === "think" && expanded() && f[9].lines.length) {
    line = thinkingLine(f[9], offset);
    const statement = (game.thinking[String(f[2])] || {})[String(line)] || "";
    text = `seat ${f[2]}, line ${line}: ${statement} (thinking ${offset + 1} of ${f[9].count.toLocaleString("en")})`;
  }
  $("slider").value = position;
  $("position").textContent = `frame ${position + 1} of ${total.toLocaleString("en")}`;
  $("text").textContent = text;
  const regs = f[3], ram = f[4];
  $("registers").replaceChildren(...regs.map((v, n) => lamps("ABCD"[n], v)),
                                 ...ram.map((v, n) => lamps(`RAM${n + 1}`, v)));
  $("registers").dataset.registers = regs.join(",");
  showTable(f);
  showEvents(k);
  showSource(f[2] || sourceSeat, line);
  if (!keepHash) {
    const hash = `#game=${game.id}&frame=${position}` + (expanded() ? "&thinking=1" : "");
    if (location.hash !== hash) history.replaceState(null, "", hash);
  }
}

// -- a frame as a program (spec §12 "From a game to the playground") --------------------------
// The frame's registers and RAM (.set), the power left (.power) and the goal of the seat whose
// turn it is (.goal), with the game's width, mode, players, hackers and ERROR cards, and
// `.turn SEAT` so that RAM is that seat's: `moonasm run` of it ends in the frame's state.

const PLAY_URL = document.body.dataset.playUrl;  // a server's playground; none in report.html
const binary = (v) => "0b" + v.toString(2).padStart(DATA.bits, "0");
const oneLine = (text) => String(text).replace(/[\r\n]+/g, " ");

function frameProgram() {
  const [k] = locate(position);
  const [, round, seat, regs, ram, halves, , , table] = game.full[k];
  const goals = table[2], disabled = table[5];
  const goal = seat ? goals[seat - 1] : (DATA.mode === "coop" ? goals[0] : null);
  const lines = [
    `# ${$("standings") ? oneLine(DATA.title) + ", " : ""}game ${game.id} (seed ${game.seed}), ` +
      `frame ${position + 1}, round ${round}` +
      (seat ? `, ${oneLine(nameOf(seat))}'s turn` : ""),
    `# ${oneLine($("text").textContent)}`,
    `.bits ${DATA.bits}`, `.mode ${DATA.mode}`, `.players ${ram.length}`];
  if (halves !== null) lines.push(`.power ${halves / 2}`);
  regs.forEach((v, n) => lines.push(`.set ${"ABCD"[n]}, ${binary(v)}`));
  ram.forEach((v, n) => lines.push(`.set RAM${n + 1}, ${binary(v)}`));
  if (goal !== null && goal !== undefined) lines.push(`.goal ${binary(goal)}`);
  for (const [player, kind] of Object.entries(DATA.hackers || {}))
    lines.push(`.hacker ${player}, ${kind}`);
  for (const what of disabled) lines.push(`.disable ${what}`);
  if (seat && seat !== 1) lines.push(`.turn ${seat}`);
  return lines.join("\n") + "\n";
}

function toPlayground() {
  const program = frameProgram();
  if (PLAY_URL) {
    location.assign(`${PLAY_URL}#source=${encodeURIComponent(program)}`);
    return;
  }
  pause();
  $("frame-source").value = program;
  $("frame-save").href = "data:text/plain;charset=utf-8," + encodeURIComponent(program);
  $("frame-save").download = `frame-${position + 1}.masm`;
  $("frame-copied").textContent = "";
  $("frame-program").showModal();
}

async function copyProgram() {
  const area = $("frame-source");
  try {
    await navigator.clipboard.writeText(area.value);
  } catch (e) {  // no clipboard API here (an older browser, a page not served securely)
    area.select();
    document.execCommand("copy");
  }
  $("frame-copied").textContent = "copied";
}

function step(direction) { show(position + direction); }

function turn(direction) {
  const [k] = locate(position);
  const ts = game.turnStarts;
  let target = direction > 0 ? ts.find((t) => t > k) : [...ts].reverse().find((t) => t < k);
  if (target === undefined) target = direction > 0 ? game.full.length - 1 : 0;
  show(starts[target]);
}

function pause() {
  if (timer !== null) clearInterval(timer);
  timer = null;
  $("play").textContent = "play";
}

function play() {
  if (timer !== null) return pause();
  if (position >= total - 1) show(0);
  $("play").textContent = "pause";
  timer = setInterval(() => {
    if (position >= total - 1) return pause();
    step(1);
  }, 1000 / Number($("speed").value));
}

function load(index, at = 0) {
  pause();
  game = DATA.games[index];
  if (!game) return;
  $("game").value = String(index);
  prepare(game);
  sourceSeat = null;
  layout();
  $("game-info").textContent = `seed ${game.seed} · ${game.names.map((n, k) => `seat ${k + 1} ${n}`).join(", ")} · ` +
    `${game.result}, solved ${game.scores.join("–")} · moonasm play (these bots in this seat order) --seed ${game.seed}`;
  $("game-info").dataset.seed = game.seed;
  show(at);
}

function fromHash() {
  const params = new URLSearchParams(location.hash.slice(1));
  const id = params.get("game");
  if (id === null) return false;
  const index = DATA.games.findIndex((g) => g.id === id);
  if (index < 0) return false;
  $("thinking").checked = params.get("thinking") === "1";
  load(index, Number(params.get("frame")) || 0);
  $("viewer").scrollIntoView();
  return true;
}

function startViewer() {
  if (!DATA.games.length) {
    $("viewer").replaceChildren(el("p", {className: "muted", textContent: "No game to show."}));
    return;
  }
  DATA.games.forEach((g, i) => $("game").append(el("option", {value: String(i),
    textContent: `${g.id} — ${g.names.join(" vs ")} (${g.result}, ${g.scores.join("–")})`})));
  $("game").addEventListener("change", (e) => load(Number(e.target.value)));
  $("slider").addEventListener("input", (e) => show(Number(e.target.value)));
  $("first").addEventListener("click", () => show(0));
  $("last").addEventListener("click", () => show(total - 1));
  $("prev").addEventListener("click", () => step(-1));
  $("next").addEventListener("click", () => step(1));
  $("prevturn").addEventListener("click", () => turn(-1));
  $("nextturn").addEventListener("click", () => turn(1));
  $("play").addEventListener("click", play);
  if ($("to-playground")) {  // a final's report written by an older moonasm has no such button
    $("to-playground").addEventListener("click", toPlayground);
    $("frame-copy").addEventListener("click", copyProgram);
    $("frame-close").addEventListener("click", () => $("frame-program").close());
  }
  $("speed").addEventListener("change", () => { if (timer !== null) { pause(); play(); } });
  $("thinking").addEventListener("change", () => {
    const [k] = locate(position);
    layout();
    show(starts[k]);
  });
  $("events").addEventListener("click", (e) => {
    const button = e.target.closest("button.expand");
    if (!button) return;
    const k = Number(button.dataset.frame);
    $("thinking").checked = !expanded();
    layout();
    show(starts[k]);
  });
  document.addEventListener("keydown", (e) => {
    const tag = e.target.tagName;
    if (tag === "SELECT" || tag === "TEXTAREA" || (tag === "INPUT" && e.target.type !== "range")) return;
    if ($("frame-program") && $("frame-program").open) return;
    if (e.key === "ArrowRight" || e.key === "ArrowLeft") {
      const direction = e.key === "ArrowRight" ? 1 : -1;
      if (e.shiftKey) turn(direction); else step(direction);
    } else if (e.key === " ") play();
    else if (e.key === "Home") show(0);
    else if (e.key === "End") show(total - 1);
    else if (e.key === "o" && !e.ctrlKey && !e.metaKey && !e.altKey && $("to-playground")) toPlayground();
    else return;
    e.preventDefault();
  });
  window.addEventListener("hashchange", fromHash);
  if (!fromHash()) load(0);
}

// A wide table scrolls inside its region; its hint shows only while it does overflow.
function hintScrolling() {
  for (const box of document.querySelectorAll(".report .scroll")) {
    const hint = box.nextElementSibling;
    if (hint && hint.classList.contains("scroll-hint"))
      hint.hidden = box.scrollWidth <= box.clientWidth + 1;
  }
}

if ($("standings")) {
  renderReport();
  hintScrolling();
  window.addEventListener("resize", hintScrolling);
}
if ($("viewer")) startViewer();
})();
