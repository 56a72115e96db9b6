// The playground and the course puzzles: a CodeMirror editor with MOON highlighting (its words
// from the instruction table, moon-words.js), the checker's diagnostics under the line
// as one types, Run with a statement-by-statement step-through (bit lamps, power left, the
// line marked), Share, and a puzzle's Submit. The text is kept in local storage across reloads.
// No inline script, nothing from the network (the site's policy); its URLs are #play's data-*-url.
"use strict";
(function () {
  const root = document.getElementById("play");
  if (!root || !window.CodeMirror) return;
  const W = window.MOON_WORDS;
  const sets = {};
  for (const k of Object.keys(W)) sets[k] = new Set(W[k].map((w) => w.toUpperCase()));

  CodeMirror.defineMode("moon", function () {
    return {
      startState: () => ({ first: true }),
      token(stream, state) {
        if (stream.sol()) state.first = true;
        if (stream.eatSpace()) return null;
        if (stream.match("#")) { stream.skipToEnd(); return "comment"; }
        if (stream.eat(";")) { state.first = true; return null; }
        if (stream.eat(",")) return null;
        if (stream.match(/^"[^"\n]*"?/)) return "string";
        if (stream.match(/^\.[A-Za-z_][A-Za-z0-9_]*/)) {
          state.first = false;
          return sets.directive.has(stream.current().toUpperCase()) ? "def" : "error";
        }
        if (stream.match(/^[0-9][0-9A-Za-z_.]*/)) return "number";
        if (stream.match(/^[A-Za-z_][A-Za-z0-9_]*:/)) return "tag";
        if (stream.match(/^[A-Za-z_][A-Za-z0-9_]*/)) {
          const w = stream.current().toUpperCase();
          const first = state.first;
          state.first = false;
          if (first) {
            if (sets.operation.has(w)) return "keyword";
            if (sets.jump.has(w)) return "keyword jump";
            if (sets.thinking.has(w)) return "keyword thinking";
            return null;
          }
          if (sets.register.has(w)) return "variable-2";
          if (sets.ram.has(w)) return "variable-3";
          if (sets.game.has(w)) return "atom";
          if (sets.argument.has(w)) return "attribute";
          if (sets.operation.has(w)) return "keyword";
          return "tag";
        }
        stream.next();
        return null;
      },
      lineComment: "#",
    };
  });

  const $ = (id) => document.getElementById(id);
  const storageKey = root.dataset.storage;
  const area = $("source");
  try {
    const kept = localStorage.getItem(storageKey);
    if (kept !== null) area.value = kept;
  } catch (e) { /* storage refused: the editor still works */ }
  const editor = CodeMirror.fromTextArea(area, {
    mode: "moon", lineNumbers: true, indentUnit: 4, viewportMargin: Infinity, lineWrapping: true,
    // long lines wrap: the editor grows instead of scrolling, so no region scrolls out of
    // the keyboard's reach (axe-core's scrollable-region-focusable at 400 px)
    extraKeys: { "Ctrl-Enter": () => run(), "Cmd-Enter": () => run() },
  });
  // the editor types into a textarea of its own: it carries the page's label for the program
  editor.getInputField().setAttribute("aria-label", area.getAttribute("aria-label"));
  const puzzle = $("puzzle-source") ? $("puzzle-source").textContent : "";
  const prefix = puzzle && !puzzle.endsWith("\n") ? puzzle + "\n" : puzzle;
  const offset = prefix ? prefix.split("\n").length - 1 : 0;
  const full = () => prefix + editor.getValue();
  const status = $("status");

  async function post(url, body, headers) {
    const answer = await fetch(url, {
      method: "POST", body, credentials: "same-origin",
      headers: Object.assign({ "Content-Type": "application/json" }, headers || {}),
    });
    let data = null;
    try { data = await answer.json(); } catch (e) { data = { error: "the server's answer was not JSON" }; }
    return [answer.status, data];
  }

  // -- diagnostics under the line ---------------------------------------------------------
  let widgets = [];
  function showDiagnostics(list) {
    widgets.forEach((w) => w.clear());
    widgets = [];
    const problems = $("problems");
    problems.replaceChildren();
    for (const d of list || []) {
      const line = d.line === null ? null : d.line - offset;
      const where = line === null ? "" : line >= 1 ? `line ${line}:${d.column}: ` : "in the puzzle: ";
      const text = `${where}${d.severity}: ${d.message}`;
      const li = document.createElement("li");
      li.className = d.severity;
      li.textContent = text;
      problems.appendChild(li);
      if (line !== null && line >= 1 && line <= editor.lineCount()) {
        const node = document.createElement("div");
        node.className = "diag " + d.severity;
        node.textContent = " ".repeat(Math.max(0, d.column - 1)) + "^ " + d.severity + ": " + d.message;
        widgets.push(editor.addLineWidget(line - 1, node, { coverGutter: false, noHScroll: true }));
      }
    }
  }

  let checkTimer = null;
  let checked = 0;
  function scheduleCheck() {
    clearTimeout(checkTimer);
    checkTimer = setTimeout(async () => {
      const mine = ++checked;
      // a puzzle's answer is checked as a submit grades it: its directives (but .turn and
      // .name) are shown in the grade's own words as one types
      const body = prefix ? { source: full(), answer_line: offset + 1 } : { source: full() };
      const [code, data] = await post(root.dataset.checkUrl, JSON.stringify(body));
      if (mine !== checked) return; // a newer check is on its way
      if (code === 200) showDiagnostics(data.diagnostics);
      else status.textContent = data.error || `check failed (${code})`;
    }, 250);
  }
  editor.on("change", () => {
    try { localStorage.setItem(storageKey, editor.getValue()); } catch (e) { /* full */ }
    scheduleCheck();
  });
  scheduleCheck();

  // -- run and step -------------------------------------------------------------------------
  let trace = [];
  let result = null;
  let marked = null;
  function lampRow(body, name, value, bits) {
    const row = body.insertRow();
    const th = document.createElement("th");
    th.textContent = name;
    row.appendChild(th);
    const lamps = row.insertCell();
    lamps.className = "bits";
    for (let i = bits - 1; i >= 0; i--) {
      const lamp = document.createElement("span");
      lamp.className = "lamp" + ((value >> i) & 1 ? " on" : "");
      lamps.appendChild(lamp);
    }
    const text = row.insertCell();
    text.className = "mono";
    text.textContent = `${value.toString(2).padStart(bits, "0")} (${value})`;
  }
  function show(i) {
    if (!trace.length) return;
    i = Math.max(0, Math.min(i, trace.length - 1));
    $("step").value = i;
    const t = trace[i];
    const line = t.line - offset;
    if (marked !== null) editor.removeLineClass(marked, "background", "current-line");
    marked = line >= 1 ? line - 1 : null;
    if (marked !== null) {
      editor.addLineClass(marked, "background", "current-line");
      editor.scrollIntoView({ line: marked, ch: 0 }, 60);
    }
    const left = t.left === null ? "unlimited" : t.left;
    $("where").textContent = `statement ${i + 1} of ${trace.length}${result.truncated ? "+" : ""}: ` +
      `line ${line}  ${t.statement}  (cost ${t.cost}, power left ${left})`;
    const body = $("lamps").tBodies[0];
    body.replaceChildren();
    for (const [name, value] of Object.entries(t.registers)) lampRow(body, name, value, result.bits);
    for (const [seat, value] of Object.entries(t.ram)) lampRow(body, "RAM" + seat, value, result.bits);
  }
  // a run's error is a fault when its kind is one (the first statement's included), else the
  // checker's, already shown under its line
  const isFault = (error) => sets.fault.has(error.kind.toUpperCase());
  function outcome(r) {
    if (r.error) {
      const line = r.error.line === null ? "" : ` at line ${r.error.line - offset}:${r.error.column}`;
      return `${r.error.kind} ${isFault(r.error) ? "fault" : "error"}${line}: ${r.error.message}`;
    }
    const goal = r.goal ? (r.goal.reached ? ` · goal ${r.goal.value} reached` : ` · goal ${r.goal.value} NOT reached`) : "";
    return `power spent ${r.power.spent}${r.power.left === null ? "" : ", left " + r.power.left} · ${r.steps} steps${goal}`;
  }
  async function run() {
    // the run answers with this text's diagnostics: a check under way or due would only
    // clear the fault the run shows under its line
    clearTimeout(checkTimer);
    ++checked;
    status.textContent = "running…";
    const [code, data] = await post(root.dataset.runUrl, JSON.stringify({ source: full() }));
    if (code !== 200) { status.textContent = data.error || `run failed (${code})`; return; }
    result = data;
    trace = data.trace;
    status.textContent = outcome(data);
    $("outcome").textContent = outcome(data) + (data.truncated ? ` (the trace keeps the first ${trace.length} statements)` : "");
    if (data.diagnostics) showDiagnostics(data.diagnostics); // the run's own: none stale
    if (data.error && data.error.line !== null && data.error.line - offset >= 1) {
      const line = data.error.line - offset;
      const node = document.createElement("div");
      node.className = "diag error fault";
      node.textContent = " ".repeat(Math.max(0, data.error.column - 1)) + "^ " + data.error.kind + " fault: " + data.error.message;
      if (isFault(data.error)) {
        widgets.push(editor.addLineWidget(line - 1, node, { coverGutter: false, noHScroll: true }));
      }
    }
    $("stepper").hidden = !trace.length;
    $("step").max = Math.max(0, trace.length - 1);
    show(0);
  }
  $("run").addEventListener("click", run);
  $("step").addEventListener("input", (e) => show(Number(e.target.value)));
  $("first").addEventListener("click", () => show(0));
  $("back").addEventListener("click", () => show(Number($("step").value) - 1));
  $("forward").addEventListener("click", () => show(Number($("step").value) + 1));
  $("last").addEventListener("click", () => show(trace.length - 1));
  document.addEventListener("keydown", (e) => {
    if (editor.hasFocus() || !trace.length || e.target.tagName === "INPUT") return;
    if (e.key === "ArrowRight") { show(Number($("step").value) + 1); e.preventDefault(); }
    if (e.key === "ArrowLeft") { show(Number($("step").value) - 1); e.preventDefault(); }
  });

  // -- share ----------------------------------------------------------------------------------
  if ($("share")) {
    $("share").addEventListener("click", async () => {
      const [code, data] = await post(root.dataset.shareUrl, JSON.stringify({ source: editor.getValue() }));
      if (code !== 201) { status.textContent = data.error || `share failed (${code})`; return; }
      const link = document.createElement("a");
      link.id = "shared-link";
      link.href = root.dataset.sharedUrl.replace("{share}", encodeURIComponent(data.id));
      link.textContent = location.origin + link.pathname;
      status.replaceChildren(document.createTextNode("shared: "), link);
    });
  }

  // -- a puzzle's answer --------------------------------------------------------------------------
  if ($("submit-answer")) {
    $("submit-answer").addEventListener("click", async () => {
      status.textContent = "grading…";
      const [code, data] = await post(root.dataset.answerUrl, editor.getValue(),
        { "Content-Type": "text/plain", "X-CSRF-Token": root.dataset.csrf });
      $("graded").hidden = false;
      if (code !== 200) {
        status.textContent = "";
        $("grade").textContent = data.error || `not graded (${code})`;
        if (data.diagnostics) showDiagnostics(data.diagnostics.map((d) => Object.assign({}, d, { line: d.line === null ? null : d.line + offset })));
        return;
      }
      status.textContent = "";
      let text;
      if (data.reached) {
        text = `Solved with power ${data.power} in ${data.operations} operation${data.operations === 1 ? "" : "s"} (par ${data.par}` +
          (data.optimum === null ? "" : `, proven optimum ${data.optimum}`) + `). Your best: ${data.best}.`;
      } else if (data.faults.length) {
        const f = data.faults[0];
        text = `${f.kind} fault at line ${f.line}: ${f.message}`;
      } else if (data.status === "invalid") {
        text = "Not a valid answer: " + data.diagnostics.map((d) => d.message).join("; ");
      } else {
        text = "Every statement ran, but A never held the goal after an operation.";
      }
      $("grade").textContent = text;
      // the class's histogram, drawn inline (its labels readable, its text alternative read
      // out), once this student has solved the puzzle; never a broken image before
      const chart = $("histogram");
      if (data.reached) {
        const answer = await fetch(root.dataset.histogramUrl, { credentials: "same-origin" });
        if (answer.ok) {
          const svg = new DOMParser().parseFromString(await answer.text(), "image/svg+xml").documentElement;
          if (svg.nodeName === "svg") {
            chart.replaceChildren(document.importNode(svg, true));
            chart.hidden = false;
          }
        }
      }
    });
  }
})();
