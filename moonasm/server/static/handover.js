// A program handed to the playground in the address's fragment, `/play#source=TEXT` (a game
// viewer's "Open in playground": no server state, nothing sent but the page's request). It
// runs before the editor starts (play.html includes it after the editor's textarea): it puts
// the text in `#source` and keeps the editor's later changes under a key of their own, so the
// program one had in the playground is not overwritten, and a reload keeps one's edits.
"use strict";
(function () {
  const root = document.getElementById("play");
  const area = document.getElementById("source");
  const given = new URLSearchParams(location.hash.slice(1)).get("source");
  if (!root || !area || given === null) return;
  let digest = 0x811c9dc5;  // FNV-1a of the text: one key per program handed over
  for (let i = 0; i < given.length; i++) digest = Math.imul(digest ^ given.charCodeAt(i), 0x01000193) >>> 0;
  area.value = given;
  root.dataset.storage = `moonasm-handover:${digest.toString(16)}`;
  root.dataset.handedOver = "true";
})();
