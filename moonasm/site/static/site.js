// The site without a server (moonasm site): loaded before the server's editor scripts, it
// answers their same-origin requests under api/ from a Web Worker running moonasm on Pyodide
// (static/worker.js), so the editor runs unchanged. It also shows the loading bar, keeps the
// site for offline visits (sw.js), opens shared links (play.html#p=ID), asks puzzles' hints,
// and on the index shows each puzzle's best and exports and imports the answers as a zip of
// STUDENT/PUZZLE.masm files (what `moonasm grade --answers` reads).
"use strict";
(function () {
  const body = document.body;
  const root = new URL(body.dataset.root, location.href);
  const api = new URL("api/", root).href;
  const $ = (id) => document.getElementById(id);
  const BEST = "moonasm-best:";  // + KEY:NAME: the least power of a solved answer here
  const MEMO = "moonasm-memo:";  // + check or run: the last answers, their requests and the wheels'
  const MEMO_LIMIT = 256 * 1024;  // characters of an answer worth keeping
  const MEMO_TOTAL = 1024 * 1024;  // characters kept of a path's answers, the newest first

  if ("serviceWorker" in navigator) {
    navigator.serviceWorker.register(new URL("sw.js", root).href).catch(() => { /* no offline */ });
  }

  // -- the worker and the loading bar ---------------------------------------------------------
  const bar = $("python-progress");
  const waiting = new Map();
  let next = 0;
  let readyNow;
  let failedNow;
  const ready = new Promise((resolve, reject) => { readyNow = resolve; failedNow = reject; });
  ready.catch(() => { /* each request says it */ });
  function progress(value, text) {
    bar.value = value;
    bar.setAttribute("aria-valuenow", String(value));
    if (text) $("loading-text").textContent = text;
  }
  function failed(why) {
    $("loading").classList.add("failed");
    $("loading-text").textContent = "MOON could not start in this page: " + why;
    failedNow(new Error(why));
  }
  let worker = null;
  try {
    worker = new Worker(new URL("static/worker.js", root).href);
  } catch (e) {
    // a page opened as a file: browsers start no worker there
    failed(location.protocol === "file:" ? "open it through a web server (python -m http.server -d FOLDER), not as a file"
      : String(e && e.message || e));
  }
  if (worker) worker.onmessage = (event) => {
    const m = event.data;
    if (m.progress !== undefined) progress(m.progress, m.text);
    else if (m.ready) {
      progress(100, "Ready.");
      $("loading").hidden = true;
      body.dataset.ready = "true";
      readyNow();
    } else if (m.failed) {
      failed(m.failed);
    } else if (waiting.has(m.id)) {
      waiting.get(m.id)(m);
      waiting.delete(m.id);
    }
  };

  async function ask(method, path, bytes, puzzle, optimum) {
    await ready;
    const id = ++next;
    return new Promise((resolve) => {
      waiting.set(id, resolve);
      worker.postMessage({ id, method, path, body: bytes, puzzle, optimum }, [bytes]);
    });
  }

  // a puzzle's file and proven optimum, from the site's own files
  async function puzzleOf(key, name) {
    const index = await realFetch(new URL(`puzzles/${encodeURIComponent(key)}/index.json`, root));
    if (!index.ok) return [null, null];
    const entry = (await index.json()).puzzles.find((p) => p.name === name);
    if (!entry) return [null, null];
    const file = await realFetch(new URL(`puzzles/${encodeURIComponent(key)}/${encodeURIComponent(name)}.masm`, root));
    return file.ok ? [await file.text(), entry.optimum] : [null, null];
  }

  const realFetch = window.fetch.bind(window);
  window.fetch = async function (resource, init) {
    const request = new Request(resource, init);
    if (!request.url.startsWith(api)) return realFetch(resource, init);
    const path = request.url.slice(api.length).split(/[?#]/)[0];
    const bytes = await request.arrayBuffer();
    let parts;
    try { parts = path.split("/").map(decodeURIComponent); } catch (e) { parts = ["?"]; }
    // check and run answer as pure functions of the request: the last of each are kept (the
    // debugger asks for the start, then for each stop), so a reload shows its answers before
    // Python has started again
    const memo = request.method === "POST" && (path === "check" || path === "run") ? MEMO + path : null;
    const text = memo ? new TextDecoder().decode(bytes) : null;
    let keptAnswers = [];
    if (memo) {
      try { keptAnswers = JSON.parse(localStorage.getItem(memo)) || []; } catch (e) { keptAnswers = []; }
      if (!Array.isArray(keptAnswers)) keptAnswers = [];
      keptAnswers = keptAnswers.filter((k) => k && k.version === body.dataset.version);
      const found = keptAnswers.find((k) => k.request === text);
      if (found) return new Response(found.json, { status: 200, headers: { "Content-Type": "application/json" } });
    }
    let puzzle = null, optimum = null;
    if (parts[0] === "courses" && parts.length === 4 && ["answers", "hint"].includes(parts[3])) {
      [puzzle, optimum] = await puzzleOf(parts[1], parts[2]);
    }
    let answer;
    try {
      answer = await ask(request.method, parts.join("/"), bytes, puzzle, optimum);
    } catch (e) {
      answer = { status: 503, json: JSON.stringify({ error: "MOON could not start in this page: " + e.message }) };
    }
    let json = answer.json;
    if (memo && answer.status === 200 && json.length + text.length <= MEMO_LIMIT) {
      const keep = [{ version: body.dataset.version, request: text, json }];
      let size = json.length + text.length;
      for (const k of keptAnswers) {
        size += k.json.length + k.request.length;
        if (size > MEMO_TOTAL) break;
        keep.push(k);
      }
      try { localStorage.setItem(memo, JSON.stringify(keep)); } catch (e) { /* full: nothing kept */ }
    }
    if (answer.status === 200 && parts[0] === "courses" && parts[3] === "answers") json = JSON.stringify(kept(parts[1], parts[2], JSON.parse(json)));
    return new Response(json, { status: answer.status, headers: { "Content-Type": "application/json" } });
  };

  // a graded answer with what the page keeps: the best here, no class's histogram
  function kept(key, name, grade) {
    const storage = BEST + key + ":" + name;
    let best = null;
    try { best = JSON.parse(localStorage.getItem(storage)); } catch (e) { best = null; }
    if (grade.reached && (best === null || grade.power < best)) {
      best = grade.power;
      try { localStorage.setItem(storage, JSON.stringify(best)); } catch (e) { /* full */ }
    }
    return Object.assign({}, grade, { at: new Date().toISOString().replace(/\.\d+Z$/, "Z"), best, histogram: null });
  }

  // -- a shared program: play.html#p=ID holds it ------------------------------------------------
  const play = $("play");
  if (play && location.hash.startsWith("#p=") && !play.querySelector("#puzzle-source")) {
    const ident = location.hash.slice(3);
    try {
      const b64 = ident.replace(/-/g, "+").replace(/_/g, "/");
      const bytes = Uint8Array.from(atob(b64 + "=".repeat((4 - b64.length % 4) % 4)), (c) => c.charCodeAt(0));
      $("source").value = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
      play.dataset.storage = "moonasm-shared:" + ident;  // the program's own edits, kept
    } catch (e) { /* not a link of ours: the playground as it was */ }
  }
  if (play && $("status")) {
    // a shared link or a program handed over (#source=, handover.js), opened over the
    // playground (the same page, another fragment): open it
    window.addEventListener("hashchange", () => {
      if (location.hash.startsWith("#p=") || new URLSearchParams(location.hash.slice(1)).has("source")) location.reload();
    });
  }

  // -- a puzzle's hint ----------------------------------------------------------------------------
  const hinting = $("hinting");
  if (hinting) {
    $("hint").addEventListener("click", async () => {
      $("hint-text").textContent = "asking the solver…";
      const answer = await window.fetch(hinting.dataset.hintUrl, { method: "POST", body: "{}" });
      const data = await answer.json();
      if (!answer.ok) { $("hint-text").textContent = data.error; return; }
      $("hint-text").textContent = data.hint === null ? "The solver found no program that reaches this goal."
        : `Start with ${data.hint}: a cheapest answer spends power ${data.power} in ${data.operations} operation${data.operations === 1 ? "" : "s"}.`;
    });
  }

  // -- the index: bests, export and import --------------------------------------------------------
  const form = $("student-form");
  if (!form) return;
  const answerKey = (key, name) => form.dataset.storage.replace("{key}", key).replace("{name}", name);
  const student = $("student");
  try { student.value = localStorage.getItem("moonasm-student") || ""; } catch (e) { /* none */ }
  student.addEventListener("input", () => {
    try { localStorage.setItem("moonasm-student", student.value); } catch (e) { /* full */ }
  });
  form.addEventListener("submit", (e) => e.preventDefault());
  function showBests() {
    for (const cell of document.querySelectorAll("td.best")) {
      let best = null;
      try { best = JSON.parse(localStorage.getItem(BEST + cell.dataset.key + ":" + cell.dataset.name)); } catch (e) { best = null; }
      cell.textContent = best === null ? "—" : String(best);
    }
  }
  showBests();
  const status = $("transfer-status");
  const folderName = () => student.value.trim().replace(/[^A-Za-z0-9 ._-]/g, "_").replace(/^[._ ]+/, "") || "student";

  for (const section of document.querySelectorAll("section.course")) {
    const key = section.dataset.key;
    const names = [...section.querySelectorAll("td.best")].map((c) => c.dataset.name);
    section.querySelector("button.export").addEventListener("click", () => {
      const folder = folderName();
      const files = [];
      for (const name of names) {
        let text = null;
        try { text = localStorage.getItem(answerKey(key, name)); } catch (e) { text = null; }
        if (text !== null && text.trim()) files.push([`${folder}/${name}.masm`, new TextEncoder().encode(text)]);
      }
      if (!files.length) { status.textContent = "No answers to export in this course yet."; return; }
      const link = document.createElement("a");
      link.href = URL.createObjectURL(new Blob([zip(files)], { type: "application/zip" }));
      link.download = `${key}-${folder}.zip`;
      document.body.appendChild(link);
      link.click();
      link.remove();
      status.textContent = `Exported ${files.length} answer${files.length === 1 ? "" : "s"} as ${link.download}.`;
    });
    section.querySelector("input.import-file").addEventListener("change", async (event) => {
      const file = event.target.files[0];
      if (!file) return;
      try {
        let count = 0;
        for (const [path, data] of await unzip(new Uint8Array(await file.arrayBuffer()))) {
          const name = path.split("/").pop().replace(/\.masm$/, "");
          if (!path.endsWith(".masm") || !names.includes(name)) continue;
          localStorage.setItem(answerKey(key, name), new TextDecoder().decode(data));
          count++;
        }
        status.textContent = `Imported ${count} answer${count === 1 ? "" : "s"} from ${file.name}.`;
      } catch (e) {
        status.textContent = `${file.name}: not a zip of answers (${e.message}).`;
      }
      event.target.value = "";
    });
  }

  // a zip of stored (uncompressed) files: [[path, bytes]...]
  const table = new Uint32Array(256).map((_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc32 = (bytes) => {
    let c = 0xffffffff;
    for (const b of bytes) c = table[(c ^ b) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  function zip(files) {
    const parts = [], central = [];
    let offset = 0;
    for (const [path, data] of files) {
      const name = new TextEncoder().encode(path);
      const head = new DataView(new ArrayBuffer(30));
      const crc = crc32(data);
      head.setUint32(0, 0x04034b50, true); head.setUint16(4, 20, true); head.setUint16(6, 0x800, true);
      head.setUint16(12, 0x21, true);  // 1980-01-01
      head.setUint32(14, crc, true); head.setUint32(18, data.length, true); head.setUint32(22, data.length, true);
      head.setUint16(26, name.length, true);
      const entry = new DataView(new ArrayBuffer(46));
      entry.setUint32(0, 0x02014b50, true); entry.setUint16(4, 20, true); entry.setUint16(6, 20, true);
      entry.setUint16(8, 0x800, true); entry.setUint16(14, 0x21, true);
      entry.setUint32(16, crc, true); entry.setUint32(20, data.length, true); entry.setUint32(24, data.length, true);
      entry.setUint16(28, name.length, true); entry.setUint32(42, offset, true);
      parts.push(head, name, data);
      central.push(entry, name);
      offset += 30 + name.length + data.length;
    }
    const size = central.reduce((n, p) => n + p.byteLength, 0);
    const end = new DataView(new ArrayBuffer(22));
    end.setUint32(0, 0x06054b50, true); end.setUint16(8, files.length, true); end.setUint16(10, files.length, true);
    end.setUint32(12, size, true); end.setUint32(16, offset, true);
    return new Blob([...parts, ...central, end]);
  }
  // a zip's files, stored or deflated, read from its central directory
  async function unzip(bytes) {
    const view = new DataView(bytes.buffer);
    let end = bytes.length - 22;
    while (end >= 0 && view.getUint32(end, true) !== 0x06054b50) end--;
    if (end < 0) throw new Error("no zip directory");
    const files = [];
    let at = view.getUint32(end + 16, true);
    for (let i = 0; i < view.getUint16(end + 10, true); i++) {
      if (view.getUint32(at, true) !== 0x02014b50) throw new Error("a broken zip directory");
      const method = view.getUint16(at + 10, true), size = view.getUint32(at + 20, true);
      const nameLength = view.getUint16(at + 28, true), local = view.getUint32(at + 42, true);
      const path = new TextDecoder().decode(bytes.subarray(at + 46, at + 46 + nameLength));
      at += 46 + nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
      const start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
      const data = bytes.subarray(start, start + size);
      if (size > 1 << 20) throw new Error(`${path} is too large for an answer`);
      if (method === 0) files.push([path, data]);
      else if (method === 8) {
        const stream = new Blob([data]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
        files.push([path, new Uint8Array(await new Response(stream).arrayBuffer())]);
      } else throw new Error(`${path}: compression ${method} unknown`);
    }
    return files;
  }
})();
