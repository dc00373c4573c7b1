// companion's referee on the phone itself (issue 45): a module Web Worker, made by
// static/app.js on a game page, that runs the game engines in Python (Pyodide, served by the
// app from /pyodide/<version>/: companion/views/pyodide.py), off the page's thread. Its own
// URL names that folder: /static/phone.js?pyodide=/pyodide/<version>/&v=<hash>.
//
// The page's first message says what to load, once the page has loaded:
//   {bundle: "<URL of a zip of Python>"}  (and, optionally, module: "companion.phone", the
//   module to import, and indexURL: another Pyodide folder)
// The worker boots Pyodide (no packages: nothing is fetched but the app's own files), fetches
// the bundle meanwhile, unpacks it into /home/pyodide/bundle, puts that on sys.path and
// imports the module. Then it posts {ready: true, ms: {...}} (what each step took, in ms:
// import, boot, bundle, module, save, total; snapshot: "made", "restored" or why none), or
// {ready: false, error} when it can't (the server referees as before). The first start
// keeps a snapshot of Python's memory, which the next one restores (below); the message's
// snapshot: false starts afresh and keeps none.
//
// Every other message is a call {id, op, args}: the module's function op (a public name)
// called with args, a JSON string, answered {id, ok: true, result} with the JSON string it
// returned, or {id, ok: false, error} with the Python error's words. Calls sent before it is
// ready wait for it, in order (and are answered with the error if it can't start).

const DIR = "/home/pyodide/bundle";
const started = performance.now();
let module = null;
let failed = null;
let waiting = [];
let booting = false;

function answer(message) {
  const { id, op, args } = message;
  if (failed) { postMessage({ id, ok: false, error: failed }); return; }
  let fn = null;
  try {
    if (typeof op !== "string" || !/^[A-Za-z]\w*$/.test(op) || typeof args !== "string") {
      throw new Error("a call is {id, op, args}: op a public function's name, args a JSON string");
    }
    fn = module[op];
    if (typeof fn !== "function") { throw new Error("companion.phone has no function " + op); }
    const result = fn(args);
    if (typeof result !== "string") {
      if (result && result.destroy) { result.destroy(); }
      throw new Error(op + " did not return a string");
    }
    JSON.parse(result); // the page parses it: a string that is not JSON is said here
    postMessage({ id, ok: true, result });
  } catch (e) {
    postMessage({ id, ok: false, error: String(e && e.message || e) });
  } finally {
    if (fn && fn.destroy) { fn.destroy(); }
  }
}

// A memory snapshot (Pyodide's makeMemorySnapshot, experimental): Python's whole memory once
// the module is imported, kept in IndexedDB (a phone on the room's plain-HTTP Wi-Fi has no
// Cache API), so the next start restores it instead of starting Python and importing again.
// Keyed by Pyodide's folder (its version) and the bundle's URL (which names its version);
// Pyodide refuses a snapshot of another build. One that fails to restore is dropped, and
// Python starts afresh.
const STORE = "snapshots";

function database() {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open("companion-phone", 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

async function stored(how, key, value) {
  const db = await database();
  try {
    return await new Promise((resolve, reject) => {
      const transaction = db.transaction(STORE, how === "get" ? "readonly" : "readwrite");
      const store = transaction.objectStore(STORE);
      const request = how === "get" ? store.get(key) : how === "put" ? store.put(value, key) : store.clear();
      transaction.oncomplete = () => resolve(request.result); // written for good, not only queued
      transaction.onerror = transaction.onabort = () => reject(transaction.error || request.error);
    });
  } finally {
    db.close();
  }
}

async function boot(config) {
  const ms = {};
  let t = performance.now();
  const lap = (name) => { const now = performance.now(); ms[name] = Math.round(now - t); t = now; };
  const bundle = fetch(config.bundle, { credentials: "same-origin" }).then((response) => {
    if (!response.ok) { throw new Error("the bundle: " + response.status); }
    return response.arrayBuffer();
  });
  bundle.catch(() => {}); // said below, once Pyodide is up
  const indexURL = config.indexURL || new URL(self.location.href).searchParams.get("pyodide");
  const name = config.module || "companion.phone";
  const key = new URL(indexURL, self.location.href).href + " " + new URL(config.bundle, self.location.href).href;
  const snapshot = config.snapshot === false ? null : stored("get", key).catch(() => null);
  const { loadPyodide } = await import(new URL(indexURL + "pyodide.mjs", self.location.href).href);
  lap("import");
  let pyodide = null;
  const saved = await snapshot;
  if (saved) {
    try {
      pyodide = await loadPyodide({ indexURL, packages: [], _loadSnapshot: saved });
      ms.snapshot = "restored";
    } catch (e) {
      pyodide = null;
      await stored("clear").catch(() => {});
    }
  }
  const fresh = !pyodide;
  if (fresh) {
    pyodide = await loadPyodide({ indexURL, packages: [], _makeSnapshot: config.snapshot !== false });
  }
  lap("boot");
  pyodide.unpackArchive(await bundle, "zip", { extractDir: DIR }); // its files, for tracebacks and data
  lap("bundle");
  if (fresh) {
    const sys = pyodide.pyimport("sys");
    sys.path.insert(0, DIR);
    sys.destroy();
  }
  module = pyodide.pyimport(name);
  lap("module");
  if (fresh && config.snapshot !== false) {
    try {
      await stored("put", key, pyodide.makeMemorySnapshot());
      ms.snapshot = "made";
    } catch (e) {
      ms.snapshot = "none: " + String(e && e.message || e);
    }
    lap("save");
  }
  ms.total = Math.round(performance.now() - started);
  return ms;
}

self.onmessage = (event) => {
  const message = event.data || {};
  if ("id" in message) {
    if (module || failed) { answer(message); } else { waiting.push(message); }
    return;
  }
  if (booting) { return; } // started once
  booting = true;
  boot(message).then((ms) => {
    postMessage({ ready: true, ms });
  }, (e) => {
    failed = "not started: " + String(e && e.message || e);
    postMessage({ ready: false, error: failed });
  }).then(() => {
    const calls = waiting;
    waiting = [];
    calls.forEach(answer);
  });
};
