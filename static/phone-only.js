// "Play on this phone only" (issue 45, item 5): the script of templates/games/phone.html, and
// of no other page. No server at the table: the games are kept on this phone (IndexedDB,
// "companion-here"), each as a transcript's parts (game, players, options, the moves in
// effect), and refereed by the engines in the phone: a Web Worker (static/phone.js) running
// companion/phone.py in Pyodide. The service worker keeps the page, the worker, Pyodide and
// the bundle, so after one visit online it all works with no connection.
//
// The page shows the list of games kept here and the new-game form, or one game (its
// address: /phone#<id>, with the question it asks after "?", as a game page's address keeps
// it). A new game is started by the engine (phone.start: names and options checked there,
// a refusal said beside the field); a game kept is taken again from its moves (phone.resume).
// Its board is the server's own markup, rendered in the phone (play/_phone_game.html), and
// every tap on it is answered here, never sent: a move (phone.play), Undo (phone.take_back),
// a choice cancelled or 100's hand shown (phone.show); the moves kept after each answer.
// "Send to the server" imports the game through the API (POST /api/games/import), then
// makes this phone its referee as a share link does (a one-use link made with the new
// game's edit key, redeemed), marks the copy here as sent and opens the server's game.
// "Export" downloads the transcript the server's import takes.
(function () {
  "use strict";
  var root = document.getElementById("here");
  if (!root) { return; }
  var words = root.dataset;
  var routes = JSON.parse(words.routes);
  // The board's settings: no stream and no poll (nothing to fetch: the phone holds the game).
  var CONFIG = { POLL_SECONDS: 0, PUSH_POLL_SECONDS: 86400 };
  var home = document.getElementById("here-home"), play = document.getElementById("here-play");
  var board = document.getElementById("here-board"), form = document.getElementById("here-new");
  var status = document.getElementById("here-status"), said = document.getElementById("here-said");
  var current = null;  // the game shown: its record as kept
  var chain = Promise.resolve();  // the worker's answers, one at a time, in order

  // -- The worker (static/phone.js): {bundle} starts it; {id, op, args} calls companion.phone.<op>.
  var worker = null, calls = {}, count = 0;
  var ready = words.worker ? controlled().then(function () {
    return new Promise(function (resolve, reject) {
      calls[0] = [resolve, reject];
      worker = new Worker(words.worker, { type: "module" });
      worker.onerror = function (e) { reject(new Error(e.message || "worker")); };
      worker.onmessage = function (e) {
        var m = e.data, c = calls[m.id || 0];
        if (!c) { return; }
        delete calls[m.id || 0];
        if ("ready" in m) { c[m.ready ? 0 : 1](m.ready ? m.ms : new Error(m.error)); }
        else if (m.ok) { c[0](JSON.parse(m.result)); }
        else { c[1](new Error(m.error)); }
      };
      worker.postMessage({ bundle: words.bundle });
    });
  }) : Promise.reject(new Error("no Pyodide"));
  ready.catch(function () { /* said once, below */ });

  // The worker fetches Pyodide and the bundle through the service worker, which keeps them for
  // a visit without the network: on a first visit it waits (a little) for it to take the page.
  // This page itself, opened before the service worker took it, is kept by it then (sw.js,
  // activate).
  function controlled() {
    var sw = navigator.serviceWorker;
    if (!sw || !window.isSecureContext || sw.controller) { return Promise.resolve(); }
    return new Promise(function (resolve) {
      sw.addEventListener("controllerchange", resolve);
      window.setTimeout(resolve, 3000);
    });
  }

  function call(op, payload) {
    return ready.then(function () {
      return new Promise(function (resolve, reject) {
        calls[++count] = [resolve, reject];
        worker.postMessage({ id: count, op: op, args: JSON.stringify(payload) });
      });
    });
  }
  function inTurn(work) {
    var turn = chain.then(work);
    chain = turn.catch(function () { /* the next goes on */ });
    return turn;
  }

  // -- The games kept on this phone (IndexedDB): {id, game, players, options, moves, created,
  // updated, summary: {deal, over}, sent: {id, key, joined} once on a server}.
  function database() {
    return new Promise(function (resolve, reject) {
      var request = indexedDB.open("companion-here", 1);
      request.onupgradeneeded = function () { request.result.createObjectStore("games", { keyPath: "id" }); };
      request.onsuccess = function () { resolve(request.result); };
      request.onerror = function () { reject(request.error); };
    });
  }
  function stored(how, value) {
    return database().then(function (db) {
      return new Promise(function (resolve, reject) {
        var transaction = db.transaction("games", how === "put" ? "readwrite" : "readonly");
        var games = transaction.objectStore("games");
        var request = how === "put" ? games.put(value) : how === "get" ? games.get(value) : games.getAll();
        transaction.oncomplete = function () { db.close(); resolve(request.result); };  // written for good
        transaction.onerror = transaction.onabort = function () { db.close(); reject(transaction.error); };
      });
    });
  }

  function newId() {
    var bytes = new Uint8Array(9);
    window.crypto.getRandomValues(bytes);
    return "p" + Array.prototype.map.call(bytes, function (b) { return (b + 256).toString(16).slice(1); }).join("");
  }
  function csrf() {
    try { return JSON.parse(document.body.getAttribute("hx-headers"))["X-CSRFToken"]; } catch (e) { return ""; }
  }
  function language() { return document.documentElement.lang || "en"; }
  function page() { return { language: language(), routes: routes, config: CONFIG, csrf: csrf() }; }
  function kept(record) {
    return { game: record.game, players: record.players, options: record.options, moves: record.moves };
  }
  function title(game) {
    var input = form.querySelector('input[name=game][value="' + game + '"]');
    return input ? input.parentNode.textContent.trim() : game;
  }
  function say(element, text) {
    element.textContent = text || "";
    element.hidden = !text;
  }

  // -- The list and the form.
  function list() {
    return stored("all").then(function (games) {
      var ul = document.getElementById("here-games");
      games.sort(function (a, b) { return b.updated - a.updated; });
      ul.textContent = "";
      games.forEach(function (g) {
        var li = document.createElement("li"), a = document.createElement("a");
        var name = document.createElement("strong"), who = document.createElement("span");
        var what = document.createElement("small");
        var sent = g.sent && g.sent.joined;
        a.href = sent ? words.games + encodeURIComponent(g.sent.id) : "#" + g.id;
        name.textContent = title(g.game);
        who.textContent = g.players.join(language() === "ja" ? "・" : ", ");
        what.className = "muted";
        what.textContent = (sent ? words.sent : g.summary && g.summary.over ? words.over :
          words.deal.replace("{n}", g.summary ? g.summary.deal : 1)) + " · " +
          new Date(g.updated).toLocaleString(language(), { dateStyle: "short", timeStyle: "short" });
        a.append(name, " ", who, " ", what);
        li.appendChild(a);
        ul.appendChild(li);
      });
      document.getElementById("here-list").hidden = !games.length;
    });
  }

  // The form shows the chosen game's starts, seats and dealers.
  function chosen() { return form.querySelector("input[name=game]:checked").value; }
  function fit() {
    var game = chosen(), high = 0;
    form.querySelectorAll("fieldset.starts").forEach(function (f) {
      f.hidden = f.dataset.game !== game;
      if (!f.hidden) { high = Number(f.dataset.high); }
    });
    form.querySelectorAll("#here-more summary span").forEach(function (s) { s.hidden = s.dataset.game !== game; });
    form.querySelectorAll("[data-seat]").forEach(function (s) { s.hidden = Number(s.dataset.seat) >= high; });
    document.getElementById("here-more").hidden = high <= 4;
    var dealer = document.getElementById("dealer");
    dealer.querySelectorAll("option").forEach(function (o) { o.hidden = o.disabled = Number(o.value) >= high; });
    if (Number(dealer.value) >= high) { dealer.value = "0"; }
  }
  form.addEventListener("change", function (e) { if (e.target.name === "game") { fit(); } });

  function unsaid() {
    form.querySelectorAll("p.error").forEach(function (p) { say(p, ""); });
    form.querySelectorAll(".field.invalid").forEach(function (f) { f.classList.remove("invalid"); });
  }
  function refused(answer, typed) {
    var where = document.getElementById("here-error");
    if (answer.option === "dealer") {
      where = document.getElementById("dealer-error");
    } else if (answer.option === "players" && typeof answer.seat === "number" && typed[answer.seat] !== undefined) {
      where = document.getElementById("player" + typed[answer.seat] + "-error");
    }
    if (where.parentNode.classList.contains("field")) { where.parentNode.classList.add("invalid"); }
    say(where, answer.error);
  }

  form.addEventListener("submit", function (e) {
    e.preventDefault();
    var game = chosen(), players = [], typed = [];
    form.querySelectorAll("[data-seat]:not([hidden]) input").forEach(function (input, seat) {
      var name = input.value.normalize("NFC").trim();
      if (name) { players.push(name); typed.push(seat); }
    });
    var start = form.querySelector('input[name="start-' + game + '"]:checked');
    var id = newId();
    unsaid();
    inTurn(function () {
      return call("start", Object.assign(page(), {
        id: id, game: game, start: start && start.value, players: players,
        dealer: Number(document.getElementById("dealer").value),
      })).then(function (answer) {
        if (answer.status !== 200) { refused(answer, typed); return; }
        var now = Date.now();
        var record = Object.assign({ id: id, created: now, updated: now, summary: answer.summary, sent: null },
          answer.game);
        return stored("put", record).then(function () {
          window.history.pushState(null, "", "#" + id);
          show(record, answer);
        });
      });
    }).catch(failed);
  });

  // -- One game: shown, its taps answered here.
  function show(record, answer) {
    current = record;
    home.hidden = true;
    play.hidden = false;
    say(said, "");
    window.htmx.swap(board, answer.html, { swapStyle: "innerHTML", swapDelay: 0, settleDelay: 0 });
    window.scrollTo(0, 0);
  }
  function showHome() {
    current = null;
    board.textContent = "";
    play.hidden = true;
    home.hidden = false;
    list().catch(failed);
  }
  function open(id, params) {
    return inTurn(function () {
      return stored("get", id).then(function (record) {
        if (!record) { showHome(); say(status, words.gone); return; }
        if (record.sent && record.sent.joined) { window.location.assign(words.games + record.sent.id); return; }
        var asked = { ask: params.get("ask"), reveal: params.get("reveal") === "1" };
        return call("resume", Object.assign(page(), kept(record), { id: id }, asked)).then(function (answer) {
          show(record, answer);
          if (answer.refused) { say(said, words.replay.replace("{n}", answer.refused).replace("{why}", answer.error)); }
        });
      });
    }).catch(failed);
  }
  function route() {
    var hash = window.location.hash.slice(1), q = hash.indexOf("?");
    var id = decodeURIComponent(q < 0 ? hash : hash.slice(0, q));
    if (!id) { if (current || home.hidden) { showHome(); } return; }
    if (current && current.id === id) { return; }  // its own address, changed by an answer
    open(id, new URLSearchParams(q < 0 ? "" : hash.slice(q + 1)));
  }
  window.addEventListener("hashchange", route);
  window.addEventListener("popstate", route);

  // A tap's answer: the board swapped in (its out-of-band parts too: the grid's cards, Undo,
  // the record), the address kept with the question it asks, the moves kept.
  function answered(op, payload) {
    var record = current;
    payload.current = window.location.href;
    return inTurn(function () {
      return call(op, payload).then(function (answer) {
        if (!answer.status || record !== current) { return; }  // nothing to undo; another game shown now
        window.companionSwap(answer.html);
        if (answer.address) { window.history.replaceState(window.history.state, "", answer.address); }
        if (window.companionInView) { window.companionInView(); }
        if (!answer.applied || op === "show") { return; }
        if (op === "play") { record.moves.push(answer.move); } else { record.moves.pop(); }
        record.summary = answer.summary;
        record.updated = Date.now();
        return stored("put", record);
      });
    }).catch(failed);
  }
  function posted(formData) {
    var fields = [];
    formData.forEach(function (value, name) { if (typeof value === "string") { fields.push([name, value]); } });
    return fields;
  }

  // Every request of the board is answered here (capture: before app.js sees it): a move, Undo,
  // a choice cancelled, 100's hand to show; the board's own refresh fetches nothing. A card
  // tapped twice at once is entered once (the second tap would ask where it went).
  var last = null, at = 0;
  document.addEventListener("htmx:configRequest", function (e) {
    var d = e.detail, elt = d.elt;
    if (!elt || !elt.closest || !board.contains(elt)) { return; }
    e.preventDefault();
    e.stopImmediatePropagation();
    if (d.verb === "post" && /\/moves$/.test(d.path)) {
      var card = d.formData.get("card"), button = card && document.getElementById("pick-" + card);
      if (card && card === last && Date.now() - at < 800 && button && button.getAttribute("aria-disabled") === "true") {
        return;
      }
      last = card;
      at = Date.now();
      answered("play", { fields: posted(d.formData) });
    } else if (d.verb === "post" && /\/undo$/.test(d.path)) {
      answered("take_back", {});
    } else if (d.verb === "get" && elt.closest("button.cancel, .reveal")) {
      answered("show", { reveal: /[?&]reveal=1/.test(d.path) });
    }
  }, true);

  // -- Send to this server, or export.
  function problem(why) { return new Error(why); }
  function json(response) {
    return response.json().catch(function () { return {}; }).then(function (body) {
      if (!response.ok) { throw problem(body.error || String(response.status)); }
      return body;
    });
  }
  function send() {
    var record = current;
    if (!record) { return; }
    if (navigator.onLine === false) { say(said, words.offline); return; }
    say(said, words.sending);
    var imported = record.sent ? Promise.resolve(record.sent) : call("transcript", kept(record)).then(function (doc) {
      return window.fetch(words.import, {
        method: "POST", credentials: "same-origin", body: JSON.stringify(doc),
        headers: { "Content-Type": "application/json" },
      }).then(json).then(function (made) {
        record.sent = { id: made.id, key: made.edit_key, joined: false };  // imported once, whatever comes next
        return stored("put", record).then(function () { return record.sent; });
      });
    });
    imported.then(function (sent) {
      // This phone becomes its referee as a share link makes one (views/share.py): a one-use
      // link made with the game's edit key, redeemed with this page's session.
      return window.fetch(words.import.replace(/import$/, encodeURIComponent(sent.id) + "/links"), {
        method: "POST", credentials: "same-origin", body: JSON.stringify({ kind: "add" }),
        headers: { "Content-Type": "application/json", "X-Edit-Key": sent.key },
      }).then(json).then(function (link) {
        var body = new URLSearchParams({ token: link.url.split("/").pop() });
        return window.fetch(words.games + encodeURIComponent(sent.id) + "/join", {
          method: "POST", credentials: "same-origin", body: body, redirect: "manual",
          headers: { "X-CSRFToken": csrf() },
        });
      }).then(function (response) {
        if (!(response.ok || response.type === "opaqueredirect")) { throw problem(String(response.status)); }
        sent.joined = true;
        return stored("put", record);
      }).then(function () { window.location.assign(words.games + encodeURIComponent(sent.id)); });
    }).catch(function (e) {
      say(said, e instanceof TypeError ? words.offline : words.refused.replace("{why}", e.message));
    });
  }
  function download() {
    var record = current;
    if (!record) { return; }
    call("transcript", kept(record)).then(function (doc) {
      // As the server's transcript download writes it (views/games.py: one space an indent).
      var file = new Blob([JSON.stringify(doc, null, 1)], { type: "application/json" });
      var a = document.createElement("a");
      a.href = URL.createObjectURL(file);
      a.download = "companion-" + record.id + ".json";
      document.body.appendChild(a);
      a.click();
      a.remove();
      window.setTimeout(function () { URL.revokeObjectURL(a.href); }, 60000);
    }).catch(failed);
  }
  document.getElementById("here-send").addEventListener("click", send);
  document.getElementById("here-export").addEventListener("click", download);

  function failed(e) {
    var text = words.failed.replace("{why}", String(e && e.message || e));
    if (current) { say(said, text); } else if (status) { say(status, text); }
  }

  fit();
  list().catch(failed);
  if (words.worker) {
    ready.then(function () {
      say(status, "");
      form.querySelector("button[type=submit]").disabled = false;
    }, failed);
  }
  route();
}());
