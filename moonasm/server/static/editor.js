// The one editor of the playground, the puzzle pages and /submit (templates/workbench.html):
// a CodeMirror editor with MOON highlighting (its words from the instruction table,
// moon-words.js), the checker's diagnostics under the line as one types, the text kept in
// local storage across reloads. debugger.js adds the debugger to each editor; a page's own
// script (play.js) finds them in MoonEditor.all. No inline script, nothing from the network
// (the site's policy); its URLs are the .workbench element's data-*-url.
"use strict";
window.MoonEditor = (function () {
  if (!window.CodeMirror) return { all: [] };
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

  // A same-origin POST; [status, the JSON answer] (an answer that is not JSON says so).
  async function post(url, body, headers) {
    const answer = await fetch(url, {
      method: "POST", body, credentials: "same-origin",
      headers: Object.assign({ "Content-Type": "application/json" }, headers || {}),
    });
    let data = null;
    try { data = await answer.json(); } catch (e) { data = { error: `the server's answer was not JSON (${answer.status})` }; }
    return [answer.status, data];
  }

  const store = {
    get(key) { try { return localStorage.getItem(key); } catch (e) { return null; } },
    set(key, value) { try { localStorage.setItem(key, value); } catch (e) { /* refused or full */ } },
  };

  // a run's error is a fault when its kind is one, else the checker's (already under its line)
  const isFault = (error) => sets.fault.has(error.kind.toUpperCase());

  function mount(root) {
    const area = root.querySelector("textarea");
    // the key is the workbench's, or its page's (#play's: a program handed over sets its own)
    const storageKey = root.closest("[data-storage]").dataset.storage;
    const kept = store.get(storageKey);
    // /submit keeps the text the server sent back with a refusal; the playground its own
    if (kept !== null && (root.dataset.restore === "always" || area.value === "")) area.value = kept;
    const keys = {};
    const editor = CodeMirror.fromTextArea(area, {
      mode: "moon", lineNumbers: true, indentUnit: 4, viewportMargin: Infinity, lineWrapping: true,
      // long lines wrap: the editor grows instead of scrolling, so no region scrolls out of
      // the keyboard's reach (axe-core's scrollable-region-focusable at 400 px)
      gutters: ["breakpoints", "CodeMirror-linenumbers"],
      extraKeys: keys,
    });
    // the editor types into a textarea of its own: it carries the page's label for the program
    editor.getInputField().setAttribute("aria-label", area.getAttribute("aria-label"));
    // a puzzle's answer runs after the puzzle's directives: `offset` lines of them
    const puzzle = root.dataset.prefix ? document.getElementById(root.dataset.prefix) : null;
    const prefix = puzzle && puzzle.textContent && !puzzle.textContent.endsWith("\n")
      ? puzzle.textContent + "\n" : (puzzle ? puzzle.textContent : "");
    const offset = prefix ? prefix.split("\n").length - 1 : 0;
    const status = root.querySelector(".stop-status");

    let widgets = [];
    function clearWidgets() { widgets.forEach((w) => w.clear()); widgets = []; }
    function underLine(line, className, text) {
      if (line < 1 || line > editor.lineCount()) return;
      const node = document.createElement("div");
      node.className = className;
      node.textContent = text;
      widgets.push(editor.addLineWidget(line - 1, node, { coverGutter: false, noHScroll: true }));
    }
    // diagnostics of the whole text (puzzle lines included), listed and under their lines
    function showDiagnostics(list) {
      clearWidgets();
      const problems = root.querySelector(".problems");
      problems.replaceChildren();
      for (const d of list || []) {
        const line = d.line === null ? null : d.line - offset;
        const where = line === null ? "" : line >= 1 ? `line ${line}:${d.column}: ` : "in the puzzle: ";
        const li = document.createElement("li");
        li.className = d.severity;
        li.textContent = `${where}${d.severity}: ${d.message}`;
        problems.appendChild(li);
        if (line !== null) {
          underLine(line, "diag " + d.severity,
            " ".repeat(Math.max(0, d.column - 1)) + "^ " + d.severity + ": " + d.message);
        }
      }
    }
    // a run's fault under its statement's line
    function showFault(error) {
      if (!error || error.line === null || !isFault(error)) return;
      underLine(error.line - offset, "diag error fault",
        " ".repeat(Math.max(0, error.column - 1)) + "^ " + error.kind + " fault: " + error.message);
    }

    let checkTimer = null;
    let checked = 0;
    function check() {
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
    // a run answers with this text's diagnostics: a check under way or due would only clear
    // the fault the run shows under its line
    function cancelCheck() { clearTimeout(checkTimer); ++checked; }
    const full = () => prefix + editor.getValue();

    editor.on("change", () => { store.set(storageKey, editor.getValue()); check(); });
    check();
    return {
      root, editor, keys, offset, full, post, store, storageKey, status, isFault,
      showDiagnostics, showFault, clearWidgets, cancelCheck,
      $: (selector) => root.querySelector(selector),
    };
  }

  const all = [...document.querySelectorAll(".workbench")].map(mount);
  return { all, post };
})();
