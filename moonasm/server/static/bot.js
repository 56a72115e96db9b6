// A bot's page while a challenge is under way: the page shows its games as they are stored and
// its result once done. It asks the challenge's status every second (the session's; no
// inline script under the site's policy) and reloads the page when more games are stored.
"use strict";
(function () {
  const box = document.querySelector(".challenge-result[data-url]");
  if (!box || box.dataset.status === "done") return;
  const shown = Number(box.dataset.games);
  async function poll() {
    try {
      const answer = await fetch(box.dataset.url, { headers: { Accept: "application/json" } });
      if (answer.ok) {
        const c = await answer.json();
        if (c.status === "done" || c.games !== shown) {
          window.location.reload();
          return;
        }
        box.querySelector(".challenge-status").textContent = c.status;
      }
    } catch (e) { /* the server restarting: ask again */ }
    setTimeout(poll, 1000);
  }
  setTimeout(poll, 1000);
})();
