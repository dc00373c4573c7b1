// companion's service worker (companion/views/offline.py renders it; no build step).
// It keeps the app shell and the pages opened on this phone, so a game page opens again
// without the network. It never answers a tap or a poll: those go to the server, and a
// tap made offline waits in the page (static/app.js) until the connection is back.
"use strict";

var SHELL = {{ shell|tojson }};
var CACHE = "companion-shell-{{ version }}";
var PAGES = "companion-pages";
// Pyodide (the phone's own referee: static/phone.js), kept as it is first fetched rather than
// at install (15 MB would hold up the first page), in a cache named by its version, which
// outlives the shell's: "" when the server has no Pyodide.
var RUNTIME = {{ runtime|tojson }};
var MAX_PAGES = 40;

self.addEventListener("install", function (event) {
  event.waitUntil(caches.open(CACHE).then(function (cache) {
    return cache.addAll(SHELL);
  }).then(function () { return self.skipWaiting(); }));
});

self.addEventListener("activate", function (event) {
  event.waitUntil(caches.keys().then(function (keys) {
    return Promise.all(keys.filter(function (key) {
      return (key.indexOf("companion-shell-") === 0 && key !== CACHE) ||
        (key.indexOf("companion-pyodide-") === 0 && key !== RUNTIME);
    }).map(function (key) { return caches.delete(key); }));
  }).then(function () { return self.clients.claim(); }).then(function () {
    // The pages it takes were opened before it (a first visit): each is fetched again as it
    // was opened and kept (fetched, below), so it opens without the network from now on, and
    // the page's copies of itself after each answer (message, below) are kept in its place.
    return self.clients.matchAll({ type: "window" });
  }).then(function (pages) {
    return Promise.all(pages.map(function (page) { return fetched(page.url); }));
  }));
});

// Pages are kept one at a time, in the order they came: a copy never replaces a newer one.
var turn = Promise.resolve();
function inTurn(work) {
  turn = turn.then(work, work);
  return turn;
}

// The newest pages stay; the oldest go past MAX_PAGES. One copy an address, whatever the
// request's headers its answer varies by (the copy taken is matched ignoring them).
function put(request, response) {
  return caches.open(PAGES).then(function (cache) {
    return cache.delete(request, { ignoreVary: true }).then(function () {
      return cache.put(request, response);
    }).then(function () { return cache.keys(); }).then(function (keys) {
      return Promise.all(keys.slice(0, Math.max(0, keys.length - MAX_PAGES)).map(function (old) {
        return cache.delete(old);
      }));
    });
  });
}
function keep(request, response) {
  return inTurn(function () { return put(request, response); });
}

// A page as it stands now ([its address, its HTML] from static/app.js, keep: the board after the last answer), kept in
// place of the copy the server sent when it was opened, so a reload without the network
// shows it. It goes with the headers the server sent with that page (its security policy
// first), less those that described the body it had then; a page the server never sent
// through this worker is not kept.
self.addEventListener("message", function (event) {
  var data = event.data, url = Array.isArray(data) && typeof data[0] === "string" && new URL(data[0], self.location.href);
  if (!url || url.origin !== self.location.origin || typeof data[1] !== "string") { return; }
  event.waitUntil(inTurn(function () {
    return caches.match(url.href, { ignoreSearch: true, ignoreVary: true, cacheName: PAGES }).then(function (sent) {
      if (!sent) { return null; }
      var headers = new Headers(sent.headers);
      ["Content-Length", "Content-Encoding", "ETag", "Last-Modified"].forEach(function (name) { headers.delete(name); });
      return put(new Request(url.href), new Response(data[1], { status: 200, headers: headers }));
    });
  }));
});

// A page opened before this worker took it (at activation: the first page of a first visit,
// such as "Play on this phone only", which must open without the network afterwards) is
// fetched again as it was opened, and kept as a page it sent.
function fetched(address) {
  var url = new URL(address, self.location.href);
  if (url.origin !== self.location.origin) { return Promise.resolve(); }
  // Marked as the worker's own (companion.KEEPING): the server neither renews this phone's
  // cookie with its answer nor says there what the page the phone shows says once.
  var request = new Request(url.href, { credentials: "same-origin", headers: { {{ keeping|tojson }}: "1" } });
  return fetch(request).then(function (response) {
    return response.ok ? keep(request, response) : null;
  }).catch(function () { /* no connection: kept at its next visit */ });
}

// The phone's Python bundle (/phone/<digest>.zip, companion/views/phone.py): its address names
// its contents, so the copy kept answers for good; only the newest is kept.
var BUNDLE = "companion-bundle";
function bundle(event) {
  var request = event.request;
  // Found in any cache: a worker before this one kept it with the shell's files.
  return caches.match(request, { ignoreVary: true }).then(function (hit) {
    return hit || fetch(request).then(function (response) {
      if (response.status === 200) { event.waitUntil(keepBundle(request, response.clone())); }
      return response;
    });
  });
}
function keepBundle(request, response) {
  return caches.open(BUNDLE).then(function (cache) {
    return cache.keys().then(function (old) {
      return Promise.all(old.map(function (r) { return cache.delete(r); }));
    }).then(function () { return cache.put(request, response); });
  });
}

var OFFLINE = "<!doctype html><meta charset=utf-8><meta name=viewport content='width=device-width'>" +
  "<title>companion</title><body style='font:1.1rem/1.5 system-ui;margin:2rem'>" +
  "<p>No connection, and this page was not opened on this phone before.</p>" +
  "<p lang=ja>接続がありません。このページはこの端末でまだ開いたことがありません。</p>";

self.addEventListener("fetch", function (event) {
  var request = event.request;
  var url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) { return; }
  if (/^\/phone\/[0-9a-f]+\.zip$/.test(url.pathname)) {
    event.respondWith(bundle(event));
  } else if (url.pathname.indexOf("/static/") === 0) {
    // Versioned URLs (?v=<hash>) never change: the cache first.
    event.respondWith(caches.match(request).then(function (hit) {
      return hit || fetch(request).then(function (response) {
        if (response.ok && url.search) {
          var copy = response.clone();
          caches.open(CACHE).then(function (cache) { cache.put(request, copy); });
        }
        return response;
      });
    }));
  } else if (url.pathname.indexOf("/pyodide/") === 0 && RUNTIME) {
    // Pyodide's URLs name its version and never change: the cache first, each file kept
    // whole once fetched (a partial answer is not kept).
    event.respondWith(caches.open(RUNTIME).then(function (cache) {
      return cache.match(request).then(function (hit) {
        return hit || fetch(request).then(function (response) {
          if (response.status === 200) { cache.put(request, response.clone()); }
          return response;
        });
      });
    }));
  } else if (request.mode === "navigate") {
    // Pages: the network first (the board as it is now), the copy kept when there is none.
    event.respondWith(fetch(request).then(function (response) {
      if (response.ok) { keep(request, response.clone()); }
      return response;
    }).catch(function () {
      // Read in turn with the copies being kept: one is replaced by a delete and a put, and a
      // reload between the two found no copy at all (seen under load).
      return inTurn(function () { return caches.match(request, { ignoreVary: true }); }).then(function (hit) {
        return hit || new Response(OFFLINE, { status: 503, headers: { "Content-Type": "text/html; charset=utf-8" } });
      });
    }));
  }
});
