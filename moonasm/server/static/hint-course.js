// A course puzzle's Hint button (templates/course_hint.html): asks the server for the solver's
// next step from the puzzle's start, with the page's CSRF token as the answers' post sends it,
// and shows the hint (or why there is none yet) as text. No framework, no inline script.
"use strict";
(function () {
  const box = document.getElementById("hint-box");
  const button = document.getElementById("hint");
  if (!box || !button) return;
  const out = document.getElementById("hint-text");
  button.addEventListener("click", async () => {
    button.disabled = true;
    out.textContent = "asking the solver…";
    let code = 0;
    let data = null;
    try {
      const answer = await fetch(box.dataset.hintUrl, {
        method: "POST", body: "", credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-CSRF-Token": box.dataset.csrf },
      });
      code = answer.status;
      try { data = await answer.json(); } catch (e) { data = { error: "the server's answer was not JSON" }; }
    } catch (e) {
      data = { error: "the server could not be reached; try again" };
    }
    if (code === 200) {
      out.textContent = data.hint + ` (hints used on this puzzle: ${data.hints_used})`;
    } else {
      out.textContent = (data && data.error) || `no hint (${code})`;
    }
    button.disabled = code === 403 || code === 409;
  });
})();
