// The playground's Hint: the solver's cheapest continuation from where the program's run ends
// (the REPL's `:hint`), from `POST data-hint-url`. The editor's text and the posting are the
// editor component's (editor.js: `MoonEditor.all[0].full()`, `MoonEditor.post`); it writes
// every text with textContent. The page's script, under the site's policy: no inline code.
"use strict";
(function () {
  const box = document.getElementById("hint-box");
  const button = document.getElementById("hint");
  if (!box || !button) return;
  const $ = (id) => document.getElementById(id);

  function source() {
    const ed = window.MoonEditor && window.MoonEditor.all[0];
    return ed ? ed.full() : $("source").value;
  }

  function line(text, className) {
    const p = document.createElement("p");
    p.textContent = text;
    if (className) p.className = className;
    return p;
  }

  async function ask() {
    button.disabled = true;
    $("hint-text").replaceChildren(line("asking the solver…", "muted"));
    try {
      const [code, data] = await window.MoonEditor.post(box.dataset.hintUrl,
                                                        JSON.stringify({ source: source() }));
      const shown = [];
      if (code !== 200) {
        shown.push(line(data.error || `no hint (${code})`, "error"));
        for (const d of data.diagnostics || [])
          shown.push(line(`line ${d.line}:${d.column}: ${d.message}`, "error"));
      } else {
        shown.push(...data.hint.split("\n").filter((t) => t).map((t) => line(t)));
        if (data.solved) {
          const pre = document.createElement("pre");
          pre.className = "mono";
          pre.textContent = data.program;
          shown.push(line("A whole cheapest way on:", "muted"), pre);
        }
      }
      $("hint-text").replaceChildren(...shown);
    } catch (e) {
      $("hint-text").replaceChildren(line("the server could not be reached", "error"));
    } finally {
      button.disabled = false;
    }
  }

  button.addEventListener("click", ask);
  document.addEventListener("keydown", (e) => {
    if (e.altKey && (e.key === "h" || e.key === "H")) { e.preventDefault(); ask(); }
  });
})();
