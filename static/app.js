// companion: what htmx cannot say by itself. No inline script anywhere (the CSP forbids it).
//
// A tap that never reached the server (no connection, a timeout, a server error) is said
// at once, in a banner near the thumb: that card was NOT recorded. htmx fires sendError
// (network), timeout and responseError (an answer it does not swap); the next answer that
// arrives hides the banner again.
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

  function show(detail, why) {
    var b = banner();
    if (!b) { return; }
    var cfg = detail && detail.requestConfig;
    var verb = (cfg && cfg.verb || "get").toLowerCase();
    // The words are the page's (data-* of #net-error), in its language.
    var say = b.dataset, text;
    if (verb === "get") {
      text = say.stale;
    } else {
      var card = tapped(detail);
      text = (card ? say.card.replace("{card}", card) : say.tap).replace("{why}", say[why] || why);
    }
    b.querySelector(".text").textContent = text;
    b.hidden = false;
  }

  document.addEventListener("htmx:sendError", function (e) { show(e.detail, "offline"); });
  document.addEventListener("htmx:timeout", function (e) { show(e.detail, "late"); });
  document.addEventListener("htmx:responseError", function (e) {
    var status = e.detail.xhr ? e.detail.xhr.status : 0;
    show(e.detail, status >= 500 ? "failed" : banner().dataset.refused.replace("{status}", status));
  });
  // A banner about waiting taps that were not recorded (data-sticky) stays until dismissed:
  // the next poll's answer must not take it away before it is read.
  document.addEventListener("htmx:afterRequest", function (e) {
    var b = banner();
    if (b && e.detail.successful && !b.dataset.sticky) { b.hidden = true; }
  });
  document.addEventListener("click", function (e) {
    if (e.target && e.target.closest && e.target.closest("#net-error .dismiss")) {
      banner().hidden = true;
      delete banner().dataset.sticky;
    }
  });
}());

// A choice waiting for its answer (which capture, which total) locks the card grid until it
// is answered or cancelled: #live says so (data-locked) and the grid goes inert, which no
// tap, keyboard or screen reader reaches. The answer to a tap then never has to send the
// whole grid again (templates/play/_live.html).
(function () {
  "use strict";
  function lock() {
    var live = document.getElementById("live"), picker = document.getElementById("picker");
    if (picker) { picker.inert = !!(live && live.hasAttribute("data-locked")); }
  }
  document.addEventListener("htmx:afterSwap", lock);
  document.addEventListener("htmx:afterSettle", lock);
  document.addEventListener("DOMContentLoaded", lock);
}());

// The new-game form: the dealer list names the players as they are typed.
(function () {
  "use strict";
  document.addEventListener("input", function (e) {
    var m = e.target && e.target.name && /^player(\d+)$/.exec(e.target.name);
    var option = m && document.querySelector('#dealer option[value="' + m[1] + '"]');
    var seat = document.querySelector('label[for="player' + m[1] + '"]');
    if (option) { option.textContent = e.target.value.trim() || (seat ? seat.textContent.trim() : m[1]); }
  });
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
// the server's answer. Undo while taps wait takes back the last waiting one.
(function () {
  "use strict";
  var sending = false, timer = null, memory = {};

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
    show(queue);
  }
  function newId() {
    var bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return (b + 256).toString(16).slice(1); }).join("");
  }
  function isMove(path) { return /\/moves$/.test(path || ""); }
  function isUndo(path) { return /\/undo$/.test(path || ""); }

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
    var b = box();
    if (!b) { return; }
    b.hidden = !queue.length;
    if (!queue.length) { undoLabel(queue); return; }
    var words = queue.length === 1 ? b.dataset.one : b.dataset.many.replace("{n}", queue.length);
    b.querySelector(".text").textContent = words;
    b.querySelector(".cards").textContent = named(queue);
    b.classList.toggle("sending", sending);
    mark(queue);
    undoLabel(queue);
  }

  // While taps wait, Undo takes back the last of them, and says so.
  function undoLabel(queue) {
    var button = document.querySelector("#undo button");
    if (!button) { return; }
    if (queue.length) {
      if (!button.dataset.sent) { button.dataset.sent = button.textContent; }
      button.textContent = "↶ " + box().dataset.undo.replace("{card}", named(queue.slice(-1)));
    } else if (button.dataset.sent) {
      button.textContent = button.dataset.sent;
      delete button.dataset.sent;
    }
  }

  function say(text) {
    var banner = document.getElementById("net-error");
    banner.querySelector(".text").textContent = text;
    banner.dataset.sticky = "1";
    banner.hidden = false;
  }

  function enqueue(parameters, version, entry) {
    var queue = load();
    var fields = [];
    parameters.forEach(function (value, name) {
      if (name !== "version" && name !== "entry" && typeof value === "string") { fields.push([name, value]); }
    });
    if (queue.length) { version = queue[queue.length - 1].version + 1; }
    queue.push({ id: entry || newId(), version: Number(version), fields: fields });
    save(queue);
    later();
    flush();  // the phone may still be online (a lost answer, a server restarting): try at once
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
    if (sending || !queue.length) {
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
        return { status: response.status, version: Number(response.headers.get("X-Version")), html: html };
      });
    }).then(function (answer) {
      sending = false;
      done();
      if (answer.status >= 500 || answer.status === 429) { show(load()); settled(); return; }  // try again later
      var rest = load().filter(function (e) { return e.id !== entry.id; });
      var applied = answer.status === 200 && answer.version > entry.version;
      if (answer.status === 200 || answer.status === 409 || answer.status === 422) {
        window.htmx.swap("#live", answer.html, { swapStyle: "outerHTML", swapDelay: 0, settleDelay: 0 });
      }
      if (applied) {
        save(rest);
        flush();
        settled();
        return;
      }
      var b = box(), why;
      if (answer.status === 409) { why = b.dataset.conflict; }
      else if (answer.status === 422) { why = b.dataset.refused; }
      else if (answer.status === 200) { why = b.dataset.asked; }
      else { why = b.dataset.failed.replace("{status}", answer.status); }
      save([]);
      unmark([entry].concat(rest));
      say(why.replace("{card}", named([entry])).replace("{cards}", named([entry].concat(rest))));
      settled();
    }).catch(function () {
      sending = false;  // still no connection: they wait
      done();
      show(load());
    });
  }

  document.addEventListener("htmx:configRequest", function (e) {
    var d = e.detail;
    if (!box() || d.verb !== "post") { return; }
    if (isMove(d.path)) {
      d.parameters.entry = newId();
      if (load().length || navigator.onLine === false) {
        e.preventDefault();
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
    if (!box() || !cfg || cfg.verb !== "post" || !isMove(cfg.path)) { return; }
    e.stopImmediatePropagation();
    enqueue(cfg.formData, cfg.formData.get("version"), cfg.formData.get("entry"));
  }
  document.addEventListener("htmx:sendError", lost, true);
  document.addEventListener("htmx:timeout", lost, true);
  document.addEventListener("htmx:afterRequest", function (e) { if (e.detail.successful) { flush(); } });
  window.addEventListener("online", flush);
  document.addEventListener("DOMContentLoaded", function () {
    if (load().length) { show(load()); later(); flush(); }
  });
}());

// Moves pushed (issue 17): the server says each new version on the page's stream (htmx's sse
// extension, sse-connect on .game) and #live fetches the board (hx-trigger "sse:move"), unless
// it shows that version; nor does it fetch or poll while a tap of this phone is in flight, by
// htmx or from the waiting taps (#waiting[data-sending]): its answer brings the board. While no stream is open (none, the server's all taken, no network)
// it polls every data-poll seconds.
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

  function stream(state) {
    return function (e) {
      open = state === "open";
      if (e.target && e.target.dataset) { e.target.dataset.push = state; }  // said on .game (tests read it)
    };
  }
  document.addEventListener("htmx:sseOpen", stream("open"));
  document.addEventListener("htmx:sseError", stream("closed"));
  document.addEventListener("htmx:sseClose", stream("closed"));
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
  document.addEventListener("DOMContentLoaded", function () {
    var game = document.querySelector("[sse-connect][data-poll]");
    var seconds = game ? Number(game.dataset.poll) : 0;
    if (seconds > 0) {
      window.setInterval(function () { if (!open) { refresh(); } }, seconds * 1000);
    }
  });
}());
