// The site's Web Worker: Pyodide (from OUT's pyodide/) with the moonasm and lark wheels of
// OUT's wheels/, answering the page's requests through moonasm.site.worker.handle — the
// functions the server's views call. Messages in: {id, method, path, body (ArrayBuffer),
// puzzle, optimum}; out: {progress, text} while loading, {ready}, then {id, status, json}.
"use strict";
const root = new URL("../", self.location.href);
const say = (progress, text) => self.postMessage({ progress, text });

// the bar follows Pyodide's downloads (their sizes in site.json): the worker's fetch counts
// the bytes of each as they arrive, on a copy (the answer itself goes to Pyodide untouched,
// so the browser still compiles the WebAssembly as it streams in and keeps its code)
function counted(sizes) {
  const total = Object.values(sizes).reduce((a, b) => a + b, 0);
  const plain = self.fetch.bind(self);
  let loaded = 0, shown = 0;
  async function count(body) {
    const reader = body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      loaded += value.length;
      const now = 5 + Math.floor(60 * Math.min(1, loaded / total));
      if (now > shown) {
        shown = now;
        say(now, loaded >= total ? "Starting Python…"
          : `Loading Python (Pyodide): ${Math.round(loaded / 1e6)} of ${Math.round(total / 1e6)} MB…`);
      }
    }
  }
  self.fetch = async (resource, init) => {
    const answer = await plain(resource, init);
    const name = new URL(resource instanceof Request ? resource.url : String(resource), self.location.href).pathname.split("/").pop();
    if (name in sizes && answer.ok && answer.body) count(answer.clone().body).catch(() => { /* the bar only */ });
    return answer;
  };
}

async function start() {
  say(5, "Loading Python (Pyodide)…");
  const site = await (await fetch(new URL("static/site.json", root))).json();
  counted(site.sizes);
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
  // the parser built and the run's modules imported now, not at the learner's first click
  for (const path of ["check", "run"]) handle("POST", path, new TextEncoder().encode('{"source": ""}')).destroy();
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
