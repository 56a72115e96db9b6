// The debugger of every editor (spec §12): breakpoints, Continue, Step, Step back, Run to
// cursor, Restart, autoplay, watches, and the machine as bit lamps — which, before the first
// statement, toggle a bit of the starting state by writing a .set line.
//
// How it steps: a run of the text is a "session" that remembers every state the server has
// sent: `start` (the machine before the first statement) and `frames` (step k → the state after
// k statements, with the statement's line). The position `pos` is the number of statements
// run; a stop at line L is before L's statement. Continue, Run to cursor and Play ask the
// server where the next stop is (`/api/run` with `breakpoints`, `watch` and `from`), which
// answers with the last 1,000 states before it; Step and Step back move through the states
// known and, past them, ask for the 1,000 around (`until`). So a short program is stepped in
// the browser after one answer, and a long one a window at a time. Watches are the server's
// to parse and to evaluate: a malformed one comes back as a 422 diagnostic.
"use strict";
window.MoonDebugger = (function () {
  const SPEEDS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000];
  const WINDOW = 1000; // the states a stopped debug run sends back
  const PLAY_ASKS = 1500; // ms between two runs asked for by autoplay
  const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

  function attach(ed) {
    const { editor, root, $, offset, status } = ed;
    const toggleable = root.dataset.lamps === "toggle";
    const breakpointKey = ed.storageKey + ":breakpoints";
    const watchKey = ed.storageKey + ":watches";
    const speed = $(".speed-input");
    $(".debugger").hidden = false;

    // -- breakpoints: gutter markers, which move with their lines as the text changes --------
    function marker() {
      const m = document.createElement("span");
      m.className = "breakpoint";
      m.textContent = "●";
      return m;
    }
    function breakpoints() { // the editor's lines (1 = its first), in order
      const lines = [];
      editor.eachLine((handle) => {
        const info = editor.lineInfo(handle);
        if (info.gutterMarkers && info.gutterMarkers.breakpoints) lines.push(info.line + 1);
      });
      return lines;
    }
    const saveBreakpoints = () => ed.store.set(breakpointKey, JSON.stringify(breakpoints()));
    function toggleBreakpoint(line0) {
      const info = editor.lineInfo(line0);
      const on = info && info.gutterMarkers && info.gutterMarkers.breakpoints;
      editor.setGutterMarker(line0, "breakpoints", on ? null : marker());
      saveBreakpoints();
    }
    try {
      for (const n of JSON.parse(ed.store.get(breakpointKey)) || []) {
        if (Number.isInteger(n) && n >= 1 && n <= editor.lineCount()) editor.setGutterMarker(n - 1, "breakpoints", marker());
      }
    } catch (e) { /* not ours: none */ }
    editor.on("gutterClick", (cm, line) => toggleBreakpoint(line));

    // -- watches ------------------------------------------------------------------------------
    let watches = [];
    try {
      watches = (JSON.parse(ed.store.get(watchKey)) || []).filter((w) => typeof w.text === "string");
    } catch (e) { watches = []; }
    const watchProblem = (data) => {
      const d = (data.diagnostics || [])[0];
      return d ? `column ${d.column}: ${d.message}` : data.error;
    };
    const valid = () => watches.filter((w) => !w.problem).map((w) => w.text);
    function showWatches() {
      ed.store.set(watchKey, JSON.stringify(watches));
      const list = $(".watch-list");
      list.replaceChildren();
      watches.forEach((w, i) => {
        const li = document.createElement("li");
        const code = document.createElement("code");
        code.textContent = w.text;
        li.appendChild(code);
        if (w.problem) {
          const problem = document.createElement("span");
          problem.className = "watch-problem";
          problem.textContent = w.problem;
          li.appendChild(problem);
        }
        const remove = document.createElement("button");
        remove.type = "button";
        remove.textContent = "Remove";
        remove.title = `remove the watch ${w.text}`;
        remove.addEventListener("click", () => { watches.splice(i, 1); showWatches(); });
        li.appendChild(remove);
        list.appendChild(li);
      });
    }
    showWatches();
    async function addWatch() {
      const input = $(".watch-input");
      const text = input.value.trim();
      if (!text) return;
      // the server parses it (the language's own rules): a run that stops before the first
      // statement answers 422 with the diagnostic of a malformed watch
      const [code, data] = await ed.post(root.dataset.runUrl,
        JSON.stringify({ source: ed.full(), breakpoints: [], watch: [text], until: 0 }));
      let problem = null;
      if (code === 422) problem = watchProblem(data);
      else if (code !== 200) {
        status.textContent = data.error || `the watch was not checked (${code})`;
        return;
      }
      watches.push({ text, problem });
      input.value = "";
      showWatches();
    }
    $(".add-watch").addEventListener("click", addWatch);
    $(".watch-input").addEventListener("keydown", (e) => {
      if (e.key === "Enter") { e.preventDefault(); addWatch(); } // not the page's form
    });

    // -- sessions: what is known of the run of the text --------------------------------------
    let session = null;
    let pos = 0;
    let ownEdit = false; // a lamp writing its .set: the start is known without asking
    let busy = false;
    const fresh = () => ({ source: ed.full(), frames: new Map(), lineAt: new Map(), start: null,
                           end: null, final: null, bits: null, broken: null, shownEnd: false });

    // one request of the run of this session's text; null when refused or outdated
    let asked = 0; // when the last run was asked for (performance.now())
    async function ask(extra) {
      const mine = session;
      asked = performance.now();
      const body = Object.assign({ source: mine.source, breakpoints: [], watch: [] }, extra);
      const [code, data] = await ed.post(root.dataset.runUrl, JSON.stringify(body));
      if (session !== mine) return null; // the text changed meanwhile
      if (code === 422 && Number.isInteger(data.watch)) {
        // a watch the edited program makes malformed (a RAM it no longer has): shown beside it,
        // and left out of the next runs
        const w = watches.filter((x) => !x.problem)[data.watch];
        if (w) { w.problem = watchProblem(data); showWatches(); }
        status.textContent = data.error;
        return null;
      }
      if (code !== 200) { status.textContent = data.error || `run failed (${code})`; return null; }
      absorb(data);
      return data;
    }
    function absorb(data) {
      const s = session;
      if (data.bits !== null) s.bits = data.bits;
      if (data.registers === null || (data.error && !ed.isFault(data.error))) {
        s.broken = data; // it does not check (or ran out of time): nothing to step through
        return;
      }
      // a statement's `step` is the statements run before it: the state after it is step + 1's
      for (const t of data.trace) s.frames.set(t.step + 1, t);
      const stop = data.stopped;
      if (stop.line !== null) s.lineAt.set(stop.step, stop.line);
      if (stop.step === 0) s.start = { registers: data.registers, ram: data.ram, left: data.power.left };
      if (stop.reason === "end") { s.end = stop.step; s.final = data; }
    }
    function begin() { if (!session) session = fresh(); }
    const stateAt = (p) => {
      if (p === 0) return session.start;
      const f = session.frames.get(p);
      return f ? { registers: f.registers, ram: f.ram, left: f.left } : null;
    };
    const nextLine = (p) => {
      const f = session.frames.get(p + 1);
      if (f) return f.line;
      return session.lineAt.has(p) ? session.lineAt.get(p) : null;
    };

    // the state at step p fetched when not known: going forward the 1,000 from there, going
    // back the 1,000 up to there
    async function ensure(p) {
      if (session.broken || stateAt(p) || (session.end !== null && p > session.end)) return;
      await ask({ until: p === 0 ? 0 : p > pos ? p + WINDOW - 1 : p });
    }
    async function goTo(p, quiet) {
      p = Math.max(0, p);
      if (session.end !== null) p = Math.min(p, session.end);
      await ensure(p);
      if (!session) return false;
      if (session.end !== null) p = Math.min(p, session.end);
      if (showBroken() || !stateAt(p)) return false;
      pos = p;
      render();
      if (!quiet) status.textContent = atEnd() ? endText() : `paused at step ${pos}`;
      return true;
    }
    const atEnd = () => session.end !== null && pos === session.end;

    // -- what is shown -------------------------------------------------------------------------
    function outcome(r) {
      if (r.error) {
        const line = r.error.line === null ? "" : ` at line ${r.error.line - offset}:${r.error.column}`;
        return `${r.error.kind} ${ed.isFault(r.error) ? "fault" : "error"}${line}: ${r.error.message}`;
      }
      const goal = r.goal ? (r.goal.reached ? ` · goal ${r.goal.value} reached` : ` · goal ${r.goal.value} NOT reached`) : "";
      return `power spent ${r.power.spent}${r.power.left === null ? "" : ", left " + r.power.left} · ${plural(r.steps, "step")}${goal}`;
    }
    const endText = () => "end: " + outcome(session.final);
    function showBroken() {
      const b = session.broken;
      if (!b) return false;
      ed.cancelCheck();
      if (b.diagnostics && b.diagnostics.length) ed.showDiagnostics(b.diagnostics);
      status.textContent = b.error ? outcome(b) : "not run";
      return true;
    }
    let marked = null;
    function mark(line) {
      if (marked !== null) editor.removeLineClass(marked, "background", "current-line");
      marked = null;
      if (line === null || line - offset < 1) return;
      marked = editor.getLineHandle(line - offset - 1);
      if (!marked) return;
      editor.addLineClass(marked, "background", "current-line");
      editor.scrollIntoView({ line: line - offset - 1, ch: 0 }, 60);
    }
    const lampsMayToggle = () => toggleable && pos === 0 && session && session.start && !session.broken;
    // the rows of lamps: built when their shape changes (names, width, whether they toggle),
    // else only lit and labelled again — a step redraws no button
    let shape = null;
    function showLamps(state) {
      const rows = Object.entries(state.registers)
        .concat(Object.entries(state.ram).map(([seat, v]) => ["RAM" + seat, v]));
      const bits = session.bits;
      const editable = Boolean(lampsMayToggle());
      const now = JSON.stringify([rows.map(([name]) => name), bits, editable]);
      const body = $(".lamps").tBodies[0];
      if (now !== shape) {
        shape = now;
        body.replaceChildren();
        for (const [name] of rows) {
          const row = body.insertRow();
          const th = document.createElement("th");
          th.scope = "row";
          th.textContent = name;
          row.appendChild(th);
          const cell = row.insertCell();
          cell.className = "bits";
          for (let i = bits - 1; i >= 0; i--) {
            const lamp = document.createElement("button");
            lamp.type = "button";
            lamp.className = "lamp";
            lamp.setAttribute("aria-label", `${name} bit ${i}`);
            lamp.dataset.lamp = `${name}:${i}`;
            lamp.disabled = !editable;
            lamp.title = editable ? `${name} bit ${i}: click to toggle it in the starting state (a .set line)`
              : `${name} bit ${i}`;
            lamp.addEventListener("click", () => toggleBit(name, i));
            cell.appendChild(lamp);
          }
          row.insertCell().className = "mono value";
        }
      }
      rows.forEach(([, value], r) => {
        const row = body.rows[r];
        [...row.cells[1].children].forEach((lamp, k) => {
          const on = (value >> (bits - 1 - k)) & 1;
          lamp.classList.toggle("on", Boolean(on));
          lamp.setAttribute("aria-pressed", on ? "true" : "false");
        });
        row.cells[2].textContent = `${value.toString(2).padStart(bits, "0")} (${value})`;
      });
    }
    // the statements of a line as written, without its labels and comment (a stop knows its
    // line, not which of the line's statements comes next)
    const statements = (line) => (editor.getLine(line - offset - 1) || "").split("#")[0]
      .replace(/^\s*([A-Za-z_][A-Za-z0-9_]*:\s*)*/, "").trim();
    function render() {
      const state = stateAt(pos);
      const line = atEnd() ? null : nextLine(pos);
      editor.operation(() => mark(line)); // one redraw of the editor, not one a change
      const left = state.left === null ? "unlimited" : state.left;
      let next = "";
      if (atEnd()) next = " · the end";
      else if (line !== null && line - offset >= 1) next = ` · next: line ${line - offset} ${statements(line)}`;
      $(".where").textContent = `step ${pos}${next} · power left ${left}`;
      $(".lamps-caption").textContent = pos === 0
        ? (lampsMayToggle() ? "before the first statement: a lamp toggles that bit of the starting state"
          : "before the first statement")
        : `after step ${pos}`;
      showLamps(state);
      $(".outcome").textContent = atEnd() ? outcome(session.final) : "";
      if (atEnd() && !session.shownEnd) {
        // the run's own diagnostics and its fault, under their lines: a check due would clear them
        session.shownEnd = true;
        ed.cancelCheck();
        ed.showDiagnostics(session.final.diagnostics);
        ed.showFault(session.final.error);
      }
    }

    // -- the lamps write the starting state into the text ---------------------------------------
    function toggleBit(name, bit) {
      if (!lampsMayToggle()) return;
      stopPlay();
      const start = JSON.parse(JSON.stringify(session.start));
      const seat = name.startsWith("RAM") ? name.slice(3) : null;
      const value = (seat === null ? start.registers[name] : start.ram[seat]) ^ (1 << bit);
      if (seat === null) start.registers[name] = value; else start.ram[seat] = value;
      const bits = session.bits;
      writeSet(name, "0b" + value.toString(2).padStart(bits, "0"));
      session = Object.assign(fresh(), { start, bits });
      pos = 0;
      render();
      status.textContent = `${name} starts at ${value} (bit ${bit} toggled)`;
      const lamp = $(`.lamps [data-lamp="${name}:${bit}"]`);
      if (lamp) lamp.focus();
    }
    // `.set NAME, LITERAL`: the directive's value replaced where it is written, else a new line
    // after the directives at the top
    function writeSet(name, literal) {
      const written = new RegExp(`^(\\s*\\.set\\s+${name}\\b\\s*,?\\s*)([^\\s;#]+)`, "i");
      let found = null;
      let after = 0;
      for (let i = 0; i < editor.lineCount(); i++) {
        const text = editor.getLine(i);
        const trimmed = text.trim();
        if (trimmed === "" || trimmed.startsWith("#")) continue;
        if (!trimmed.startsWith(".") || /^\.turn\b/i.test(trimmed)) break; // the first statement
        after = i + 1;
        const m = written.exec(text);
        if (m) found = { line: i, from: m[1].length, to: m[1].length + m[2].length };
      }
      ownEdit = true;
      try {
        if (found) editor.replaceRange(literal, { line: found.line, ch: found.from }, { line: found.line, ch: found.to });
        else editor.replaceRange(`.set ${name}, ${literal}\n`, { line: after, ch: 0 });
      } finally { ownEdit = false; }
    }

    // -- the controls -------------------------------------------------------------------------
    const cursorLine = () => editor.getCursor().line + 1 + offset;
    const stopsFrom = (extra) => ({ breakpoints: breakpoints().map((n) => n + offset).concat(extra || []),
                                     watch: valid() });
    function why(stop, target) {
      const line = stop.line === null ? null : stop.line - offset;
      if (stop.reason === "end") return endText();
      if (stop.reason === "breakpoint") {
        return target === stop.line && !breakpoints().includes(line) ? `reached the cursor, line ${line}`
          : `stopped at breakpoint, line ${line}`;
      }
      if (stop.reason === "step") return `paused at step ${stop.step}`;
      return `watch ${stop.reason} became true` + (line === null ? "" : `, before line ${line}`);
    }
    // the next stop from `from` on (breakpoints, watches, `extra` lines), learnt and moved to
    async function continueFrom(from, extra, move) {
      const data = await ask(Object.assign(stopsFrom(extra), { from }));
      if (!data || showBroken()) return null;
      const stop = data.stopped;
      if (move) {
        pos = stop.step;
        render();
        status.textContent = why(stop, extra && extra[0]);
      }
      return stop;
    }
    // each control: one at a time, autoplay stopped first
    function control(action) {
      return async () => {
        if (busy) return;
        busy = true;
        startStale(); // the reader moved first: the start shown later would undo it
        try { stopPlay(); begin(); await action(); } finally { busy = false; }
      };
    }
    const actions = {
      run: control(async () => { ed.cancelCheck(); pos = 0; status.textContent = "running…"; await continueFrom(0, null, true); }),
      continue: control(async () => {
        if (session.end !== null && pos === session.end) { status.textContent = endText(); return; }
        status.textContent = "running…";
        await continueFrom(pos + 1, null, true);
      }),
      step: control(async () => { await goTo(pos + 1); }),
      back: control(async () => { await goTo(pos - 1); }),
      cursor: control(async () => { status.textContent = "running…"; await continueFrom(pos + 1, [cursorLine()], true); }),
      restart: control(async () => { await goTo(0, true); if (session.start && !session.broken) status.textContent = "restarted: before the first statement"; }),
    };
    $(".run").addEventListener("click", actions.run);
    $(".continue").addEventListener("click", actions.continue);
    $(".step").addEventListener("click", actions.step);
    $(".step-back").addEventListener("click", actions.back);
    $(".to-cursor").addEventListener("click", actions.cursor);
    $(".restart").addEventListener("click", actions.restart);
    Object.assign(ed.keys, {
      "Ctrl-Enter": actions.run, "Cmd-Enter": actions.run, F8: actions.continue, F10: actions.step,
      F7: actions.back, "Ctrl-F8": actions.cursor, "Shift-F8": actions.restart,
      F9: (cm) => toggleBreakpoint(cm.getCursor().line),
    });
    const shortcut = { F8: actions.continue, F10: actions.step, F7: actions.back };
    document.addEventListener("keydown", (e) => {
      if (e.defaultPrevented || e.altKey || e.metaKey) return; // the editor's own keys: handled
      let action = null;
      if (e.key === "F8" && e.ctrlKey) action = actions.cursor;
      else if (e.key === "F8" && e.shiftKey) action = actions.restart;
      else if (e.key === "F9" && !e.ctrlKey && !e.shiftKey) action = () => toggleBreakpoint(editor.getCursor().line);
      else if (!e.ctrlKey && !e.shiftKey) action = shortcut[e.key] || null;
      if (action) { e.preventDefault(); action(); }
    });

    // -- autoplay: toward the next stop, at the speed chosen ---------------------------------
    let playing = null;
    const play = $(".autoplay");
    const speedText = () => { $(".speed-text").textContent = `${SPEEDS[speed.value]} statements/s`; };
    speed.setAttribute("aria-valuetext", `${SPEEDS[speed.value]} statements per second`);
    speed.addEventListener("input", () => {
      speedText();
      speed.setAttribute("aria-valuetext", `${SPEEDS[speed.value]} statements per second`);
    });
    speedText();
    function stopPlay() {
      if (!playing) return;
      clearTimeout(playing.timer);
      playing = null;
      play.textContent = "Play";
    }
    play.addEventListener("click", async () => {
      if (playing) { stopPlay(); status.textContent = `paused at step ${pos}`; return; }
      if (busy) return;
      busy = true;
      startStale();
      let stop = null;
      try {
        begin();
        if (atEnd()) await goTo(0, true);
        stop = await continueFrom(pos + 1, null, false);
      } finally { busy = false; }
      if (!stop) return;
      const mine = { timer: null };
      playing = mine;
      play.textContent = "Pause"; // its name is its label: no toggle state besides
      status.textContent = "playing…";
      const tick = async () => {
        if (playing !== mine) return;
        const rate = SPEEDS[speed.value];
        const delay = Math.max(1000 / rate, 40);
        const next = Math.min(stop.step, pos + Math.max(1, Math.round(rate * delay / 1000)));
        // past the states sent, the next 1,000 are asked for at most every 1.5 s: runs are
        // 60 a minute a client, and Step or Continue must still have some
        const wait = stateAt(next) ? 0 : asked + PLAY_ASKS - performance.now();
        if (wait > 0) { mine.timer = setTimeout(tick, wait); return; }
        if (next <= pos || !(await goTo(next, true)) || playing !== mine) { stopPlay(); return; }
        if (pos >= stop.step) {
          stopPlay();
          status.textContent = why(stop, null);
          return;
        }
        mine.timer = setTimeout(tick, delay);
      };
      mine.timer = setTimeout(tick, 0);
    });

    // -- the text changed: what was run is gone; the new start is asked for once typing rests
    // (not `busy`: a control pressed while the start is being asked for is not dropped; it
    // makes the start stale instead, so it is not shown over what the control showed)
    let startTimer = null;
    let startAsked = 0;
    function startStale() { clearTimeout(startTimer); startAsked += 1; }
    async function showStart() {
      if (busy || playing) return;
      const mine = ++startAsked;
      begin();
      pos = 0;
      await ensure(0);
      if (mine === startAsked && !busy && !playing && session && session.start
          && !session.broken) render();
    }
    editor.on("change", () => {
      saveBreakpoints();
      if (ownEdit) return;
      stopPlay();
      session = null;
      pos = 0;
      mark(null);
      $(".where").textContent = "the text changed: its start is shown once typing rests";
      startStale();
      startTimer = setTimeout(showStart, 1500);
    });
    showStart();
  }

  return { attach, all: (window.MoonEditor ? window.MoonEditor.all : []).map(attach) };
})();
