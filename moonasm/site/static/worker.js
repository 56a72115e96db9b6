// The site's Web Worker: Pyodide (from OUT's pyodide/) with the moonasm and lark wheels of
// OUT's wheels/, answering the page's requests through moonasm.site.worker.handle — the
// functions the server's views call. Messages in: {id, method, path, body (ArrayBuffer),
// puzzle, optimum}; out: {progress, text} while loading, {ready}, then {id, status, json}.
"use strict";
const root = new URL("../", self.location.href);
const say = (progress, text) => self.postMessage({ progress, text });

async function start() {
  say(5, "Loading Python (Pyodide)…");
  const site = await (await fetch(new URL("static/site.json", root))).json();
  importScripts(new URL(site.pyodide + "pyodide.js", root).href);
  const pyodide = await self.loadPyodide({ indexURL: new URL(site.pyodide, root).href });
  say(70, "Unpacking moonasm…");
  for (const wheel of site.wheels) {
    const answer = await fetch(new URL(wheel, root));
    if (!answer.ok) throw new Error(`${wheel}: ${answer.status}`);
    pyodide.unpackArchive(await answer.arrayBuffer(), "wheel");
  }
  say(85, "Preparing the checker…");
  const handle = pyodide.pyimport("moonasm.site.worker").handle_js;
  handle("POST", "check", new TextEncoder().encode('{"source": ""}'));  // builds the parser
  return handle;
}

const ready = start();
ready.then(() => self.postMessage({ ready: true }),
  (e) => self.postMessage({ failed: String(e && e.message || e) }));

self.onmessage = async (event) => {
  const m = event.data;
  let handle;
  try { handle = await ready; } catch (e) { return; }
  let status = 500, json = '{"error": "the page\'s Python failed"}';
  try {
    const answer = handle(m.method, m.path, new Uint8Array(m.body), m.puzzle ?? null, m.optimum ?? null);
    [status, json] = answer.toJs();
    answer.destroy();
  } catch (e) {
    json = JSON.stringify({ error: "the page's Python failed: " + String(e && e.message || e).split("\n").slice(-2).join(" ") });
  }
  self.postMessage({ id: m.id, status, json });
};
