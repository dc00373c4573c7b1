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
// import, boot, bundle, module, total), or {ready: false, error} when it can't (the server
// referees as before).
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
  const { loadPyodide } = await import(new URL(indexURL + "pyodide.mjs", self.location.href).href);
  lap("import");
  const pyodide = await loadPyodide({ indexURL, packages: [] });
  lap("boot");
  pyodide.unpackArchive(await bundle, "zip", { extractDir: DIR });
  lap("bundle");
  const sys = pyodide.pyimport("sys");
  sys.path.insert(0, DIR);
  sys.destroy();
  module = pyodide.pyimport(config.module || "companion.phone");
  lap("module");
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
