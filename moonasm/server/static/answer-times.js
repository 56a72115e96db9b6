// Times on a student's answers: each <time datetime="ISO 8601 UTC"> shown in the reader's own
// time zone and relative to now ("19:10, 5 min ago"), the UTC time kept in its tooltip.
"use strict";
(function () {
  const ago = (seconds) => {
    if (seconds < 60) return "just now";
    const units = [["day", 86400], ["hour", 3600], ["minute", 60]];
    for (const [name, size] of units) {
      const n = Math.floor(seconds / size);
      if (n >= 1) return `${n} ${name}${n === 1 ? "" : "s"} ago`;
    }
    return "just now";
  };
  for (const t of document.querySelectorAll("time[datetime]")) {
    const when = new Date(t.getAttribute("datetime"));
    if (isNaN(when)) continue;
    t.title = t.textContent;
    const local = when.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
    t.textContent = `${local} (${ago((Date.now() - when) / 1000)})`;
  }
})();
