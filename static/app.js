// companion: what htmx cannot say by itself. No inline script anywhere (the CSP forbids it).
//
// A tap that was not recorded is said at once, in a banner near the thumb, with its true
// cause (issue 31): it never reached the server (no connection, no answer in time: htmx's
// sendError and timeout), or the server answered without recording it (responseError): this
// phone is no referee of the game (403: the page then turns into a watcher's), the game is
// gone (404), the server is busy (503, 429: said as not recorded, try again; a card tap
// waits on the phone instead, see below), it failed (500) or refused the request (400,
// 413). A refusal by the rules (422) or a stale version (409) is answered with the board
// and said there. The next answer that arrives hides the banner again.
(function () {
  "use strict";

  function banner() { return document.getElementById("net-error"); }

  function tapped(detail) {
    var cfg = detail && detail.requestConfig;
    var params = cfg && cfg.parameters;
    var card = params && (typeof params.get === "function" ? params.get("card") : params.card);
    var button = card && document.getElementById("pick-" + card);
    if (button) { return button.textContent.trim(); }
    return card || null;
  }

  // The server's answer, as the banner says its cause (a key of #net-error's data-*).
  function cause(status) {
    if (status === 403) { return "forbidden"; }
    if (status === 404) { return "gone"; }
    if (status === 503 || status === 429) { return "busy"; }
    return status >= 500 ? "failed" : "refused";
  }

  // A board that could not be fetched: out of date, unless this phone referees the game (the
  // board is then its own answers, and only other phones' moves wait for the network). That
  // is said once until a fetch gets through, not at each one that fails (the board is asked
  // for every few seconds): dismissed, it does not come back over the grid mid-deal.
  var alone = false;
  function stale(words) {
    if (!(window.companionReferee && window.companionReferee.playing())) { say(words.stale); return; }
    if (!alone) { say(words.alone); }
    alone = true;
  }

  function say(text) { window.companionSay(text, false); }

  // A tap the network lost: "did not reach the server (no connection)".
  function lost(detail, why) {
    var b = banner();
    if (!b) { return; }
    var cfg = detail && detail.requestConfig;
    var words = b.dataset;
    if ((cfg && cfg.verb || "get").toLowerCase() === "get") { stale(words); return; }
    var card = tapped(detail);
    say((card ? words.card.replace("{card}", card) : words.tap).replace("{why}", words[why]));
  }

  // A tap the server answered without recording it: "Not recorded: 7♣. <why>".
  function refused(detail, status) {
    var b = banner();
    if (!b) { return; }
    var cfg = detail && detail.requestConfig;
    var words = b.dataset;
    if ((cfg && cfg.verb || "get").toLowerCase() === "get") { stale(words); return; }
    var why = words[cause(status)].replace("{status}", status);
    say(words.said.replace("{cards}", tapped(detail) || words.last).replace("{why}", why));
    if (status === 403) { window.companionRoles && window.companionRoles(); }
  }

  document.addEventListener("htmx:sendError", function (e) { lost(e.detail, "offline"); });
  document.addEventListener("htmx:timeout", function (e) { lost(e.detail, "late"); });
  document.addEventListener("htmx:responseError", function (e) {
    refused(e.detail, e.detail.xhr ? e.detail.xhr.status : 0);
  });
  // A banner about waiting taps that were not recorded (data-sticky) stays until dismissed:
  // the next poll's answer must not take it away before it is read.
  document.addEventListener("htmx:afterRequest", function (e) {
    var b = banner();
    if (e.detail.successful) { alone = false; }
    if (b && !b.hidden && e.detail.successful && !b.dataset.sticky) { b.hidden = true; }
  });
  document.addEventListener("click", function (e) {
    if (e.target && e.target.closest && e.target.closest("#net-error .dismiss")) {
      banner().hidden = true;
      delete banner().dataset.sticky;
    }
  });
}());

// Where the banner is said: near the thumb, at the bottom of the screen, unless it would
// cover something to tap there (on a short phone, the grid's last row or Undo); then at the
// top, below the bar of taps waiting. Placed again when that bar comes or goes.
window.companionPlaceBanner = function () {
  "use strict";
  var b = document.getElementById("net-error"), w = document.getElementById("waiting"), r;
  if (!b || b.hidden) { return; }
  b.classList.remove("top");
  b.style.top = "";
  r = b.getBoundingClientRect();  // as wide as the screen: what it covers is what its height spans
  if ([].some.call(document.querySelectorAll("main :is(button, a, input, select, summary)"), function (e) {
    var c = e.getBoundingClientRect();
    return c.width && c.bottom > r.top && c.top < r.bottom;
  })) {
    b.classList.add("top");
    if (w && !w.hidden) { b.style.top = w.getBoundingClientRect().bottom + 8 + "px"; }
  }
};

// The banner says ``text``; sticky, it stays until dismissed.
window.companionSay = function (text, sticky) {
  "use strict";
  var b = document.getElementById("net-error");
  b.querySelector(".text").textContent = text;
  if (sticky) { b.dataset.sticky = "1"; }
  b.hidden = false;
  window.companionPlaceBanner();
};

// This phone stopped being a referee (another phone took the game over, or revoked the
// others): the board is fetched as it is, and the server answers with the whole game as a
// watcher's page shows it (views/play.py, live). The page's stream says so at once
// (sse:roles on #live); a tap refused with 403 asks the same.
window.companionRoles = function () {
  "use strict";
  window.setTimeout(function () {  // after the refused request has ended, so the fetch is not held back
    var live = document.getElementById("live");
    if (live && window.htmx) { window.htmx.trigger(live, "poll"); }
  }, 0);
};

// A choice waiting for its answer (which capture, which total) locks the card grid until it
// is answered or cancelled: #live says so (data-locked) and the grid's fieldset is disabled
// (not inert, whose grid Chromium lays out anew: 15-40 ms at 4x), so no tap or keyboard
// reaches a card. A tap's answer then never sends the whole grid (play/_live.html).
(function () {
  "use strict";
  function lock() {
    var live = document.getElementById("live"), locked = !!(live && live.hasAttribute("data-locked"));
    document.querySelectorAll("#picker .cards").forEach(function (set) {
      if (set.disabled !== locked) { set.disabled = locked; }  // unchanged: no style to work out again
    });
  }
  document.addEventListener("htmx:afterSwap", lock);
  document.addEventListener("htmx:afterSettle", lock);
  document.addEventListener("DOMContentLoaded", lock);
}());

// A form that is complete at a known count submits itself: Tablanette's layout is laid
// out by its fourth card, without a fifth tap on "Lay out" (the button stays, for a
// phone without scripts).
(function () {
  "use strict";
  document.addEventListener("change", function (e) {
    var form = e.target && e.target.form;
    var at = form && Number(form.dataset.submitAt);
    if (!at || !e.target.checked || e.target.name !== form.dataset.counts) { return; }
    var name = form.dataset.counts.replace(/"/g, "");
    if (form.querySelectorAll('input[name="' + name + '"]:checked').length === at) { form.requestSubmit(); }
  });
}());

// The service worker keeps the app shell and the pages opened here (templates/offline/sw.js).
// Browsers allow one on HTTPS or this machine's own address only; without it everything
// else works the same.
(function () {
  "use strict";
  var url = document.body && document.body.dataset.worker;
  if (url && "serviceWorker" in navigator && window.isSecureContext) {
    navigator.serviceWorker.register(url, { scope: "/" }).catch(function () { /* the app works without it */ });
  }
}());

// Taps made while the connection is down (issue 16). A referee's card tap that cannot be
// sent now waits on this phone (localStorage, so a reload keeps it), shown at the top of
// the screen ("Offline: 3 entries waiting") with its card marked, and is sent when the
// connection is back: in order, each with the version it was entered at (the version
// before it plus the taps waiting before it) and its own id, so the server applies it
// once even if an answer was lost. A tap the server does not apply (another phone moved
// first, the rules refused it, or it asks a question) stops the line: it and every tap
// after it are said as not recorded, near the thumb, with the reason, and the board shows
// the server's answer. Undo while taps wait takes back the last waiting one. A tap the
// server could not take (503: busy, or its database is; 429; another 5xx) waits the same
// way ("Server busy: 1 entry waiting"), and is sent again by itself.
//
// The board keeps the thread meanwhile (issue 31): the waiting cards show in the trick or
// table area, in order, marked as waiting, each with who played it, and the prompt names
// who plays next, as far as the rules make it certain without the server (the board's
// [data-pending] carries the players of the next cards, and the cards after which the
// order is no longer certain: board/<game>.py, turns).
//
// Once the phone referees itself (issue 45: static/phone-page.js, window.companionReferee),
// a tap it applied waits here the same way, to be sent; the board already shows it, so
// nothing is threaded on it and the banner shows only while it can't be sent. Where the
// server's answer differs, its board stands (as above), and the phone takes its game again.
(function () {
  "use strict";
  var sending = false, timer = null, memory = {}, busy = false, failed = false;
  function playing() { return window.companionReferee && window.companionReferee.playing(); }

  function box() { return document.getElementById("waiting"); }
  function storeKey() { var b = box(); return b ? "companion.waiting:" + b.dataset.game : null; }
  function load() {
    var key = storeKey();
    if (!key) { return []; }
    try { return JSON.parse(window.localStorage.getItem(key) || "[]"); } catch (e) { return memory[key] || []; }
  }
  function save(queue) {
    var key = storeKey();
    memory[key] = queue;
    try {
      if (queue.length) { window.localStorage.setItem(key, JSON.stringify(queue)); }
      else { window.localStorage.removeItem(key); }
    } catch (e) { /* private mode: kept in memory for this page */ }
    if (!queue.length) { busy = false; }
    show(queue);
  }
  function newId() {
    var bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return (b + 256).toString(16).slice(1); }).join("");
  }
  function isMove(path) { return /\/moves$/.test(path || ""); }
  function isUndo(path) { return /\/undo$/.test(path || ""); }
  function watching() { var b = box(); return b && b.hasAttribute("data-watching"); }

  // The cards of a tap, as the grid shows them (7♣), and their buttons or boxes.
  function codes(entry) {
    return entry.fields.filter(function (f) { return f[0] === "card" || f[0] === "cards[]"; })
      .map(function (f) { return f[1]; });
  }
  function control(code) {
    return document.getElementById("pick-" + code) ||
      document.querySelector('#picker input[value="' + code + '"]');
  }
  function face(code) {
    var c = control(code);
    if (!c) { return code; }
    var shown = c.tagName === "INPUT" ? c.parentNode.querySelector("[aria-hidden]") : c;
    return shown ? shown.textContent.trim() : code;
  }
  function named(entries) {
    return entries.map(function (e) { return codes(e).map(face).join(" ") || box().dataset.tap; }).join(", ");
  }
  function mark(queue) {
    queue.forEach(function (entry) {
      codes(entry).forEach(function (code) {
        var c = control(code);
        if (c) { c.classList.add("queued"); c.disabled = true; }
      });
    });
  }
  function unmark(entries) {
    entries.forEach(function (entry) {
      codes(entry).forEach(function (code) {
        var c = control(code);
        if (c && c.classList.contains("queued")) { c.classList.remove("queued"); c.disabled = false; }
      });
    });
  }

  function show(queue) {
    present(queue);
    window.companionPlaceBanner();  // below the bar, if it came
  }
  function present(queue) {
    var b = box();
    if (!b || watching()) { return; }
    if (!queue.length) { unshow(document); return; }
    if (playing()) {  // the board shows them already: said only while they can't be sent
      unshow(document);  // what was threaded on the board before the phone held the game (a reload)
      if (busy || failed || navigator.onLine === false) {
        b.hidden = false;
        words(b, queue);
      }
      return;
    }
    if (b.hidden) { b.hidden = false; }
    thread(queue);
    words(b, queue);
    mark(queue);
    undoLabel(queue);
  }
  function words(b, queue) {
    var one = busy ? b.dataset.busyOne : b.dataset.one, many = busy ? b.dataset.busyMany : b.dataset.many;
    b.querySelector(".text").textContent = queue.length === 1 ? one : many.replace("{n}", queue.length);
    b.querySelector(".cards").textContent = named(queue);
    b.classList.toggle("sending", sending);
  }

  // The waiting cards on the board, in order, each with its player; and who plays next.
  function thread(queue) {
    var spot = document.querySelector("#live [data-pending]");
    var prompt = document.querySelector("#live .prompt");
    if (!spot) { return; }
    var turns = { players: [], breaks: [] };
    try { turns = JSON.parse(spot.dataset.turns); } catch (e) { /* none said: nobody named */ }
    var words = box().dataset, sure = true;
    spot.textContent = "";
    queue.forEach(function (entry, i) {
      codes(entry).forEach(function (code) {
        var chip = document.createElement("span"), who = document.createElement("small");
        chip.className = "chip waited" + (/[HD]$/.test(code) ? " red" : "");
        chip.textContent = face(code);
        who.textContent = sure && turns.players[i] ? turns.players[i] : "";
        chip.appendChild(who);
        spot.appendChild(chip);
        if (turns.breaks.indexOf(code) >= 0) { sure = false; }
      });
    });
    spot.hidden = false;
    var label = document.createElement("span");
    label.className = "waited-label";
    label.textContent = words.waited;
    spot.insertBefore(label, spot.firstChild);
    if (!prompt) { return; }
    if (prompt.dataset.said === undefined) { prompt.dataset.said = prompt.innerHTML; }
    var next = sure && turns.players[queue.length];
    prompt.textContent = next ? words.next.replace("{name}", next) : words.unsure;
    prompt.classList.add("waiting-next");
  }

  // While taps wait, Undo takes back the last of them, and says so.
  function undoLabel(queue) {
    var button = document.querySelector("#undo button");
    if (!button) { return; }
    if (!button.dataset.sent) { button.dataset.sent = button.textContent; }
    button.textContent = "↶ " + box().dataset.undo.replace("{card}", named(queue.slice(-1)));
  }

  // What the taps waiting showed, taken away: the page as the server's last answer left it.
  // In the page once none waits (after every answer, as a rule): only what they changed is
  // put back, a board just swapped in is left alone, so its frame is worked out once (issue
  // 34). And in the copy of the page kept for a reload (keep, below), which shows them again
  // from their list.
  function unshow(root) {
    var b = root.querySelector("#waiting"), spot = root.querySelector("#live [data-pending]");
    var prompt = root.querySelector("#live .prompt[data-said]"), button = root.querySelector("#undo button[data-sent]");
    if (!b.hidden) { b.hidden = true; }
    if (spot && spot.firstChild) { spot.textContent = ""; }
    if (spot && !spot.hidden) { spot.hidden = true; }
    if (prompt) {
      prompt.innerHTML = prompt.dataset.said;
      delete prompt.dataset.said;
      prompt.classList.remove("waiting-next");
    }
    if (button) {
      button.textContent = button.dataset.sent;
      delete button.dataset.sent;
    }
    root.querySelectorAll(".queued").forEach(function (c) { c.classList.remove("queued"); c.disabled = false; });
  }

  // The page as it stands is kept on this phone for a reload without the network (issue 44):
  // the service worker answers it then (templates/offline/sw.js), and it shows the board of
  // the last answer, with the taps still waiting shown on it from their list, instead of
  // the board as the page was first opened. Kept after each answer, as the server would
  // send it: without what this script says of the taps waiting, of a tap on its way or of the
  // connection (the banner). (What it says of the stream, .game's data-push, is said anew.)
  var keeping = 0;
  function keep() {
    var worker = navigator.serviceWorker && navigator.serviceWorker.controller;
    if (!worker || !box() || keeping) { return; }
    keeping = 1;
    afterPaint(function () {  // once, after the answer is painted
      keeping = 0;
      var copy = document.documentElement.cloneNode(true), b = copy.querySelector("#waiting");
      var banner = copy.querySelector("#net-error");
      unshow(copy);
      copy.querySelectorAll("script.added").forEach(function (s) { s.remove(); });
      delete b.dataset.sending;  // its class "sending" is set anew with the taps shown again
      banner.hidden = true;
      delete banner.dataset.sticky;
      worker.postMessage([location.href, "<!doctype html>" + copy.outerHTML]);
    });
  }

  // fn once the frame that shows an answer is painted, when nothing else waits (or 100 ms on,
  // in a page not drawn: once more if it is drawn later, which the callers allow). Idle: the
  // frames right after the answer's are not held up either (requestIdleCallback, where the
  // browser has it; at most 200 ms on).
  function afterPaint(fn) {
    var later = window.setTimeout(fn, 100);
    window.requestAnimationFrame(function () {
      window.clearTimeout(later);
      if (window.requestIdleCallback) { window.requestIdleCallback(fn, { timeout: 200 }); } else { window.setTimeout(fn); }
    });
  }

  function say(text) { window.companionSay(text, true); }

  function enqueue(parameters, version, entry, state) {
    var queue = load();
    var fields = [];
    parameters.forEach(function (value, name) {
      if (name !== "version" && name !== "entry" && typeof value === "string") { fields.push([name, value]); }
    });
    if (queue.length) { version = queue[queue.length - 1].version + 1; }
    queue.push({ id: entry || newId(), version: Number(version), fields: fields, state: state });
    save(queue);
    later();
    // The phone may still be online (a lost answer, a server restarting): try at once; a tap
    // the phone answered, once its answer is painted.
    if (state) { afterPaint(flush); } else { flush(); }
  }

  function later() {
    if (!timer) { timer = window.setInterval(flush, 5000); }
  }

  function csrf() {
    try { return JSON.parse(document.body.getAttribute("hx-headers"))["X-CSRFToken"]; } catch (e) { return ""; }
  }

  // A waiting tap's answer is in (or none came). Once it is shown and no other tap is on
  // its way, the board may be fetched again ("companion:sent", for the push below).
  function done() {
    var b = box();
    if (b) { delete b.dataset.sending; }
  }
  function settled() { document.dispatchEvent(new CustomEvent("companion:sent")); }

  // Send the first waiting tap; on to the next once it is applied.
  function flush() {
    var queue = load();
    if (sending || !queue.length || watching()) {
      if (!queue.length && timer) { window.clearInterval(timer); timer = null; }
      return;
    }
    if (navigator.onLine === false) { return; }
    var entry = queue[0], body = new URLSearchParams();
    entry.fields.forEach(function (f) { body.append(f[0], f[1]); });
    body.append("version", String(entry.version));
    body.append("entry", entry.id);
    sending = true;
    box().dataset.sending = "";  // the board is not fetched meanwhile (see "Moves pushed" below)
    show(queue);
    window.fetch(box().dataset.url, {
      method: "POST", body: body, credentials: "same-origin",
      headers: { "HX-Request": "true", "X-CSRFToken": csrf(), "HX-Current-URL": window.location.href },
    }).then(function (response) {
      return response.text().then(function (html) {
        var headers = response.headers;
        return { status: response.status, version: Number(headers.get("X-Version")), state: headers.get("X-State"), html: html };
      });
    }).then(function (answer) {
      sending = false;
      done();
      if (answer.status >= 500 || answer.status === 429) {  // not taken: it waits, and goes again later
        busy = true;
        show(load());
        settled();
        return;
      }
      failed = false;
      var rest = load().filter(function (e) { return e.id !== entry.id; });
      var applied = answer.status === 200 && answer.version > entry.version;
      // Applied, but to another game than the phone's (its rules are newer, say): the server's stands.
      var differs = applied && entry.state && answer.state && entry.state !== answer.state;
      var here = applied && !differs && playing();  // the phone showed it already: its board stands
      if ((!applied || differs) && window.companionReferee) { window.companionReferee.forget(); }
      if (!here && (answer.status === 200 || answer.status === 409 || answer.status === 422)) {
        window.companionSwap(answer.html);
        inView();
      }
      if (applied) {
        // Its cards are played: no longer waiting, and not given back to tap (unshow gives
        // back the cards of taps not recorded, when the board was not swapped in anew).
        codes(entry).forEach(function (code) { var c = control(code); if (c) { c.classList.remove("queued"); } });
        save(differs ? [] : rest);  // what came after it was worked out from the phone's game: not sent
        if (differs) { say(box().dataset.differs.replace("{card}", named([entry]))); }
        flush();
        settled();
        return;
      }
      var b = box(), why;
      if (answer.status === 409) { why = b.dataset.conflict; }
      else if (answer.status === 422) { why = b.dataset.refused; }
      else if (answer.status === 200) { why = b.dataset.asked; }
      else if (answer.status === 403) { why = b.dataset.forbidden; }
      else { why = b.dataset.failed.replace("{status}", answer.status); }
      save([]);  // their cards marked are unmarked (unshow)
      say(why.replace("{card}", named([entry])).replace("{cards}", named([entry].concat(rest))));
      settled();
      if (answer.status === 403) { window.companionRoles(); }
    }).catch(function () {
      sending = false;  // still no connection: they wait
      busy = false;
      failed = true;
      done();
      show(load());
    });
  }

  // The answer in view after a tap: a board swapped in while the page is scrolled (a short
  // phone, scrolled to reach the grid's lower rows) would put it above the screen.
  function inView() {
    if (window.companionInView) { window.companionInView(); }
  }

  function played(code) {
    var c = document.getElementById("pick-" + code);
    return c && c.getAttribute("aria-disabled") === "true";
  }

  // What the phone's referee uses of this (static/phone-page.js).
  window.companionWaiting = {
    enqueue: enqueue, load: load, save: save, inView: inView, csrf: csrf, afterPaint: afterPaint,
    show: function () { show(load()); },
    sending: function () { return sending; }
  };

  document.addEventListener("htmx:configRequest", function (e) {
    var d = e.detail;
    if (!box() || watching()) { return; }
    if (d.verb !== "post") { return; }
    if (isMove(d.path)) {
      delete d.parameters.server;  // sent here by the phone's referee (static/phone-page.js)
      d.parameters.entry = newId();
      if (load().length || navigator.onLine === false) {
        e.preventDefault();
        var card = d.formData.get("card");
        if (card && played(card)) {  // the board says where it went once the connection is back
          say(box().dataset.played.replace("{card}", face(card)));
          return;
        }
        enqueue(d.formData, d.formData.get("version"));
      }
    } else if (isUndo(d.path) && load().length) {
      e.preventDefault();
      var queue = load(), last = queue.pop();
      save(queue);
      unmark([last]);
    }
  });
  // Sent, but no answer came back: it may or may not have landed; it waits with its id.
  function lost(e) {
    var cfg = e.detail && e.detail.requestConfig;
    if (!box() || watching() || !cfg || cfg.verb !== "post" || !isMove(cfg.path)) { return; }
    e.stopImmediatePropagation();
    enqueue(cfg.formData, cfg.formData.get("version"), cfg.formData.get("entry"));
  }
  document.addEventListener("htmx:sendError", lost, true);
  document.addEventListener("htmx:timeout", lost, true);
  // Answered "not now" (busy, or a database that is): not recorded; it waits the same way.
  document.addEventListener("htmx:responseError", function (e) {
    var status = e.detail.xhr ? e.detail.xhr.status : 0;
    if (status === 503 || status === 429 || status >= 500) {
      var cfg = e.detail.requestConfig;
      if (!box() || watching() || !cfg || cfg.verb !== "post" || !isMove(cfg.path)) { return; }
      busy = true;
      lost(e);
    }
  }, true);
  document.addEventListener("htmx:afterRequest", function (e) { if (e.detail.successful) { flush(); } });
  // A board swapped in shows the taps still waiting (after htmx settles its attributes).
  document.addEventListener("htmx:afterSettle", function () { show(load()); keep(); });
  window.addEventListener("online", flush);
  // Taps left waiting on a page that is a watcher's now (this phone stopped being a
  // referee): they can't be recorded from here, and are said so.
  function unsent() {
    var queue = load();
    if (!watching() || !queue.length) { return; }
    save([]);
    say(box().dataset.forbidden.replace("{cards}", named(queue)));
  }
  document.addEventListener("htmx:afterSettle", unsent);
  document.addEventListener("DOMContentLoaded", function () {
    unsent();
    if (load().length) { show(load()); later(); flush(); }
  });
}());

// What a page with a board loads once it has loaded (body's data-later, in order), kept out
// of its first load: static/morph.js (with idiomorph, vendored), which puts every answer in
// place by morphing it into the page (window.companionSwap, and htmx's own swaps; until
// then, and without it, answers are swapped whole, as here), and static/awake.js, which
// keeps a referee's screen on (issue 46).
window.companionSwap = function (html) {
  "use strict";
  window.htmx.swap("#live", html, { swapStyle: "outerHTML", swapDelay: 0, settleDelay: 0 });
};
addEventListener("load", function () {
  "use strict";
  var urls = document.body.dataset.later;
  if (!urls || (!document.getElementById("live") && !document.getElementById("here"))) { return; }
  urls.split(" ").forEach(function (url) {
    var s = document.createElement("script");
    s.src = url;
    s.async = false;  // in order: idiomorph before what uses it
    s.className = "added";  // not in the copy kept for a reload: its page loads them anew
    document.head.appendChild(s);
  });
});

// The answer to a tap stays in view (issue 31): on a short phone the grid's lower rows are
// reached by scrolling, and the board above is then partly off the screen. After each
// answer to this phone's own tap, the page scrolls just enough to bring the answer (a
// refusal, the last play, the deal's end, a notice) back to the top of the screen; an answer
// already in view moves nothing. A board another phone's move brought (a poll) moves nothing.
(function () {
  "use strict";
  var ANSWER = "#live [role=alert], #live [role=status], #live .choice:not(.sheet)";

  // Once the frame is due (issue 45): the answer's parts are measured with the layout that
  // frame works out anyway, after everything the answer changes, not in a layout of its own.
  var asked = false;
  window.companionInView = function () {
    if (asked) { return; }
    asked = true;
    window.requestAnimationFrame(function () {
      asked = false;
      inView();
    });
  };
  function inView() {
    var top = Infinity, bottom = -Infinity, height = window.innerHeight;
    document.querySelectorAll(ANSWER).forEach(function (e) {  // the answer: all its parts
      if (!e.getClientRects().length) { return; }
      var box = e.getBoundingClientRect();
      top = Math.min(top, box.top);
      bottom = Math.max(bottom, box.bottom);
    });
    if (top === Infinity) { return; }
    if (top < 0) {  // above the screen: its top to the top
      window.scrollBy(0, top - 4);
    } else if (bottom > height && bottom - top <= height - 8) {  // below: all of it in view
      window.scrollBy(0, bottom - height + 4);
    } else if (bottom > height && top > height / 4) {  // taller than the screen: its top to the top
      window.scrollBy(0, top - 4);
    }
  }
  document.addEventListener("htmx:afterSwap", function (e) {
    var d = e.detail;
    if (!d.target || d.target.id !== "live" || !d.requestConfig || d.requestConfig.elt === d.target) { return; }
    window.companionInView();
  });
}());

// A double tap records one card: the same card tapped again at once (it is played now, so
// a tap on it would ask where it went) does nothing.
(function () {
  "use strict";
  var last = null, at = 0;
  document.addEventListener("htmx:beforeRequest", function (e) {
    var cfg = e.detail.requestConfig;
    if (cfg && cfg.verb === "post" && cfg.formData && cfg.formData.get("card")) {
      last = cfg.formData.get("card");
      at = Date.now();
    }
  });
  document.addEventListener("click", function (e) {
    var button = e.target && e.target.closest && e.target.closest("button.pick");
    if (button && button.value === last && Date.now() - at < 800 && button.getAttribute("aria-disabled") === "true") {
      e.preventDefault();
      e.stopPropagation();
    }
  }, true);
}());

// The new-game form sends itself once: a second tap on "Start" while the first is on its
// way does nothing, and the form sent again later (Back, a reload) opens the game it made
// (its nonce: views/games.py). A phone that kept the page on Back has the nonce in it; one
// that loads the page again gets a fresh one, so the page takes back the one it sent.
(function () {
  "use strict";
  var KEY = "companion.sent-form";
  document.addEventListener("submit", function (e) {
    var form = e.target;
    if (!form.classList || !form.classList.contains("new-game")) { return; }
    if (form.dataset.sent) { e.preventDefault(); return; }
    form.dataset.sent = "1";
    try { window.sessionStorage.setItem(KEY, form.elements.nonce.value); } catch (err) { /* no storage */ }
  }, true);
  window.addEventListener("pageshow", function () {
    document.querySelectorAll("form.new-game").forEach(function (form) {
      delete form.dataset.sent;  // back to the form: it sends again
      var how = window.performance && window.performance.getEntriesByType &&
        window.performance.getEntriesByType("navigation")[0];
      var sent = null;
      try { sent = window.sessionStorage.getItem(KEY); } catch (err) { /* no storage */ }
      if (sent && how && how.type === "back_forward" && form.elements.nonce) { form.elements.nonce.value = sent; }
    });
  });
}());

// Moves pushed (issue 17): the server says each new version on the page's stream (an
// EventSource on .game's data-events, views/events.py) and #live fetches the board (hx-trigger
// "sse:move"), unless it shows that version; nor does it fetch or poll while a tap of this
// phone is in flight, by htmx or from the waiting taps (#waiting[data-sending]): its answer
// brings the board. While no stream is open (none, the server's all taken, no network) it
// polls every data-poll seconds. (htmx's sse extension did the stream's part; these few lines
// do what the page uses of it, and keep the first load light: issue 34.)
(function () {
  "use strict";
  var open = false, pushed = -1, posting = [];

  function shown() {
    var v = document.getElementById("version");
    return v ? Number(v.value) : -1;
  }
  function refresh() {
    var live = document.getElementById("live");
    if (live && window.htmx) { window.htmx.trigger(live, "poll"); }
  }
  function isPost(e) {
    var cfg = e.detail && e.detail.requestConfig;
    return cfg && String(cfg.verb).toLowerCase() === "post";
  }

  // The stream of the .game shown: each of its events ("move", "roles") triggers "sse:<event>"
  // on the elements inside that listen for it, with the event (its data) as the detail. A
  // stream the browser gave up on (answered 204: the server's streams are all taken, or an
  // error) is opened again after 0.5, 1, 2 ... 64 s; one that ended reconnects by itself.
  var source = null, game = null, tries = 0;
  function state(now) {
    open = now === "open";
    if (game) { game.dataset.push = now; }  // said on .game (tests read it)
  }
  function connect() {
    var g = document.querySelector(".game[data-events]");
    if (g === game) { return; }
    if (source) { source.close(); source = null; }
    game = g;
    open = false;
    if (!g || !window.EventSource) { return; }
    var s = source = new EventSource(g.dataset.events);
    s.onopen = function () { if (s === source) { tries = 0; state("open"); } };
    s.onerror = function () {
      if (s !== source) { return; }
      state("closed");
      if (s.readyState !== EventSource.CLOSED) { return; }
      tries = Math.min(Math.max(tries * 2, 1), 128);
      window.setTimeout(function () { if (s === source) { game = null; connect(); } }, tries * 500);
    };
    ["move", "roles"].forEach(function (name) {
      s.addEventListener(name, function (e) {
        if (s !== source) { return; }
        g.querySelectorAll('[hx-trigger*="sse:' + name + '"]').forEach(function (elt) {
          window.htmx.trigger(elt, "sse:" + name, e);
        });
      });
    });
  }
  document.addEventListener("htmx:confirm", function (e) {  // #live about to fetch the board
    if (!e.detail.elt || e.detail.elt.id !== "live") { return; }
    var event = e.detail.triggeringEvent;
    if (event && event.type === "sse:move") {
      var version = Number(event.detail && event.detail.data);
      if (version > pushed) { pushed = version; }
      if (!(version > shown())) { e.preventDefault(); return; }
    }
    if (posting.length || document.querySelector("#waiting[data-sending]")) { e.preventDefault(); }
  });
  // A board fetched while this phone's taps were being sent (its waiting taps go by fetch,
  // not htmx) may come back after a newer one: versions only grow (an undo is one more), so
  // an answer older than the board shown is dropped instead of turning the clock back.
  document.addEventListener("htmx:beforeSwap", function (e) {
    var d = e.detail;
    if (!d.target || d.target.id !== "live" || !d.xhr || !d.requestConfig) { return; }
    if (String(d.requestConfig.verb).toLowerCase() !== "get") { return; }
    var version = d.xhr.getResponseHeader("X-Version");
    if (version !== null && Number(version) < shown()) { d.shouldSwap = false; }
  });
  document.addEventListener("htmx:beforeSend", function (e) {  // sent: htmx:afterRequest follows
    if (isPost(e) && e.detail.xhr) { posting.push(e.detail.xhr); }
  });
  function caughtUp() {
    if (!posting.length && !document.querySelector("#waiting[data-sending]") && pushed > shown()) { refresh(); }
  }
  document.addEventListener("htmx:afterRequest", function (e) {
    var i = posting.indexOf(e.detail.xhr);
    if (i < 0) { return; }
    posting.splice(i, 1);
    caughtUp();
  });
  document.addEventListener("companion:sent", caughtUp);
  document.addEventListener("htmx:afterSettle", connect);  // a .game swapped in whole opens its own
  document.addEventListener("DOMContentLoaded", function () {
    connect();
    var seconds = game ? Number(game.dataset.poll) : 0;
    if (seconds > 0) {
      window.setInterval(function () { if (!open) { refresh(); } }, seconds * 1000);
    }
  });
}());

// The referee on the phone itself (issue 45): on a game page whose body names a Python
// bundle (data-phone-bundle), a Web Worker (static/phone.js; its URL names the Pyodide it
// loads) boots Pyodide and the bundle once the page has loaded, so it never holds up a tap,
// which goes to the server as before. window.companionPhone.ready resolves with the
// worker's timings once companion.phone is imported (and rejects if it can't start);
// call(op, payload) sends the payload as JSON to companion.phone.<op> (the worker holds
// calls made before it is ready) and resolves with its answer, parsed, or rejects with its
// error. Once ready, it loads the page's part of the referee (static/phone-page.js). Kept
// short: it is part of every page's first load (tests/test_page_weight.py).
(function () {
  "use strict";
  var d = document.body.dataset, n = 0, q = {}, w;
  if (!d.phoneBundle || !window.Worker) { return; }
  w = new Worker(d.phoneWorker, { type: "module" });
  window.companionPhone = {
    ready: new Promise(function (y, f) { q[0] = [y, f]; w.onerror = f; }).then(function (ms) {
      var s = document.createElement("script");
      s.src = d.phonePage;
      s.className = "added";  // not in the copy kept for a reload (keep): its page loads it anew
      document.head.appendChild(s);
      return ms;
    }),
    call: function (op, p) {
      return new Promise(function (y, f) {
        q[++n] = [y, f];
        w.postMessage({ id: n, op: op, args: JSON.stringify(p) });
      });
    }
  };
  // A call's answer {id, ok, result / error}, or the worker's {ready: true, ms} / {ready: false, error}.
  w.onmessage = function (e) {
    var m = e.data, c = q[m.id || 0];
    c[m.ok || m.ready ? 0 : 1](m.ms || (m.ok ? JSON.parse(m.result) : Error(m.error)));
    delete q[m.id];
  };
  addEventListener("load", function () {
    setTimeout(function () { w.postMessage({ bundle: d.phoneBundle }); });
  });
}());
