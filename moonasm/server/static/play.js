// The playground's and the course puzzles' own actions around the one editor (editor.js and
// debugger.js): Share (a short link) and a puzzle's Submit with the class's histogram. No
// inline script, nothing from the network (the site's policy); its URLs are #play's data-*-url.
"use strict";
(function () {
  const root = document.getElementById("play");
  const ed = window.MoonEditor && window.MoonEditor.all[0];
  if (!root || !ed) return;
  const $ = (id) => document.getElementById(id);
  const { editor, offset, post } = ed;
  const status = $("status");

  // -- share ----------------------------------------------------------------------------------
  if ($("share")) {
    $("share").addEventListener("click", async () => {
      const [code, data] = await post(root.dataset.shareUrl, JSON.stringify({ source: editor.getValue() }));
      if (code !== 201) { status.textContent = data.error || `share failed (${code})`; return; }
      const link = document.createElement("a");
      link.id = "shared-link";
      link.href = root.dataset.sharedUrl.replace("{share}", encodeURIComponent(data.id));
      link.textContent = link.href;  // the whole link: a static site's holds the program in its fragment
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
        if (data.diagnostics) ed.showDiagnostics(data.diagnostics.map((d) => Object.assign({}, d, { line: d.line === null ? null : d.line + offset })));
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
