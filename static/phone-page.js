// companion's referee in the phone, the page's part (issue 45). static/app.js loads this once
// the page's worker runs the engines (window.companionPhone, static/phone.js): it is no part
// of the page's first load, and until it runs every tap is the server's to answer.
//
// The phone takes the game the page shows (GET /games/<id>/phone, or the copy it kept here),
// then answers a referee's taps itself: a move, Undo of a tap not sent yet, a choice
// cancelled, 100's hand to show. companion/phone.py applies the tap with the same engine and
// renders the server's own answer (byte for byte: tests/test_phone_render.py); its board is
// swapped in as the server's would be, and the page's address keeps the question it asks. A
// tap it applied waits in app.js's queue to be sent (the same versions and entry ids: the
// server applies it once, and stays the record). Where the server's answer differs (another
// phone moved first, a refusal, a question), app.js shows the server's board and says why,
// and the phone takes the server's game again. The phone's game is kept in localStorage
// ("companion.phone:<game>") after each answer, so a page reloaded offline goes on from it.
// A tap the phone's engine cannot read as a move goes to the server.
(function () {
  "use strict";
  var waiting = window.companionWaiting;
  // The version of the game the phone holds (null: none), the links and settings the server
  // gave with it, its answers in order, and whether it is taking a game.
  var phone = { version: null, page: null, chain: Promise.resolve(), taking: false };

  function box() { return document.getElementById("waiting"); }
  function watching() { var b = box(); return !b || b.hasAttribute("data-watching"); }
  function shownVersion() {
    var v = document.getElementById("version");
    return v ? Number(v.value) : -1;
  }
  function playing() { return phone.version !== null && phone.version === shownVersion() && !watching(); }
  function phoneKey() { return "companion.phone:" + box().dataset.game; }
  function isMove(path) { return /\/moves$/.test(path || ""); }
  function isUndo(path) { return /\/undo$/.test(path || ""); }
  function posted(formData) {
    var fields = [];
    formData.forEach(function (value, name) {
      if (name !== "entry" && name !== "server" && typeof value === "string") { fields.push([name, value]); }
    });
    return fields;
  }
  // The calls that change the phone's game, counted: a finger's peek answers for its tap while
  // none was made since, and none is on its way (record and show change nothing).
  var CHANGES = { take: 1, tap: 1, undo: 1 };
  var calls = 0, open = 0;
  function call(op, payload) {
    if (!CHANGES[op]) { return window.companionPhone.call(op, payload); }
    calls += 1;
    open += 1;
    var done = function () { open -= 1; };
    var asked = window.companionPhone.call(op, payload);
    asked.then(done, done);
    return asked;
  }

  // One tap answered here: its board swapped in, the address kept with the question it asks,
  // the tap waiting to be sent if it was applied. One at a time, in order. A tap the phone
  // worked out as the finger touched its card (``early``: the peek's answer, below) is shown
  // as soon as that answer is in, and the worker only told to keep that game.
  function here(op, payload, d, version, early) {
    payload.current = window.location.href;
    if (early) {
      early.then(function (answer) { answered(op, answer, d, version); }, function () {
        phone.version = null;  // the worker failed: the server answers from now on
        server(d);
      });
    }
    phone.chain = phone.chain.then(function () {
      return call(op, payload).then(function (answer) {
        if (!early) { answered(op, answer, d, version); }
      });
    }).catch(function () {
      phone.version = null;
      if (!early) { server(d); }
    });
  }
  function answered(op, answer, d, version) {
    if (!answer.status) { server(d); return; }
    phone.version = answer.version;
    put(answer.html, answer.parsed);
    if (answer.address) { window.history.replaceState(window.history.state, "", answer.address); }
    waiting.inView();
    if (op === "tap" && answer.applied) { waiting.enqueue(d.formData, version, null, answer.state); }
    remember();
  }
  // An answer put in place as the server's is (static/app.js, companionSwap): morphed into
  // the page, changing only what differs from it (issue 45: nothing else is laid out again),
  // then htmx's settle event, as after any answer (the grid locks while a choice waits).
  // A peek's answer comes parsed already (while the finger was down).
  function put(html, parsed) { window.companionSwap(html, parsed); }

  // The server answers it (htmx, as before this file ran).
  function server(d) {
    var values = {};
    d.formData.forEach(function (value, name) {
      if (typeof value !== "string") { return; }
      values[name] = values[name] === undefined ? value : [].concat(values[name], value);
    });
    values.server = "1";  // not answered here again (app.js leaves it out)
    window.htmx.ajax(d.verb.toUpperCase(), d.path, { source: d.elt, target: "#live", swap: "outerHTML", values: values });
  }

  // The phone's game for a reload without the network, with how the page links.
  function remember() {  // once the answer is painted: a tap's frame is not held up by it
    waiting.afterPaint(keepRecord);
  }
  function keepRecord() {
    call("record", { keep: waiting.load().length }).then(function (record) {
      try { window.localStorage.setItem(phoneKey(), JSON.stringify(Object.assign(record, phone.page))); }
      catch (e) { /* no room: a reload takes the server's */ }
    });
  }
  function forget() {
    phone.version = null;
    try { window.localStorage.removeItem(phoneKey()); } catch (e) { /* none kept */ }
  }
  function take(record) {
    phone.page = { routes: record.routes, config: record.config };
    var body = Object.assign({}, record, { language: document.documentElement.lang || "en", csrf: waiting.csrf() });
    return call("take", body).then(function (answer) { return answer.version; });
  }
  // The phone takes the game the page shows: its own copy when it is that version (a reload,
  // maybe offline), else the server's (with no tap waiting: then the server has them all).
  function takeShown() {
    var b = box();
    if (watching() || !b.dataset.phone || phone.taking || playing()) { return; }
    var kept = null;
    try { kept = JSON.parse(window.localStorage.getItem(phoneKey()) || "null"); } catch (e) { kept = null; }
    var taking, queue = waiting.load();
    // Kept at the game the server has (the first tap waiting was entered on it), or after it.
    if (kept && kept.row.version >= (queue.length ? queue[0].version : shownVersion())) {
      taking = take(kept).then(catchUp);
    } else if (queue.length || navigator.onLine === false) {
      return;
    } else {
      taking = window.fetch(b.dataset.phone, { credentials: "same-origin", cache: "no-store" })
        .then(function (response) {
          if (!response.ok) { throw new Error(String(response.status)); }
          return response.json();
        }).then(function (record) {
          if (record.row.version === shownVersion()) {
            return take(record).then(function (version) { phone.version = version; });
          }
        });
    }
    phone.taking = true;
    taking.catch(function () { phone.version = null; }).then(function () {
      phone.taking = false;
      waiting.show();  // the taps waiting, as the phone's board shows them
    });
  }

  // The copy the phone kept and the page it kept may each be a tap or two behind the taps
  // waiting (a reload right after a tap): the phone applies those it has not, and shows its
  // board when the page's is another.
  // Until it has, the page's taps wait in the queue as before it held the game, and are
  // applied in turn too (the queue is read again until the phone has them all).
  function catchUp(version) {
    var behind = waiting.load().filter(function (entry) { return entry.version >= version; });
    if (behind.length) {
      return behind.reduce(function (step, entry) {
        return step.then(function (at) {
          return call("tap", { fields: entry.fields, current: window.location.href }).then(function (answer) {
            return answer.applied ? answer.version : at;
          });
        });
      }, Promise.resolve(version)).then(function (at) { return at === version ? shown(at) : catchUp(at); });
    }
    return shown(version);
  }
  function shown(version) {  // the phone holds the game from now on: the page shows its board
    if (version === shownVersion()) {
      phone.version = version;
      return null;
    }
    return call("show", { current: window.location.href }).then(function (answer) {
      phone.version = answer.version;
      put(answer.html);
    });
  }

  // A finger on a move's button (a card of the grid, an option, a total): the phone works the
  // tap out at once (phone.peek), while the finger is still down, and parses its board. A tap
  // that does not come (the finger slid off to scroll) changes nothing. The tap itself, as the
  // finger lifts, is then answered in its click: with that answer, at once when it is in (no
  // second turn of the worker), when its fields are the peek's (as companion/phone.py
  // compares them, _tap_key: by name, each name's values in their order, and the page's
  // address) and no other call changed the phone's game since. The click then submits
  // nothing, and htmx never gathers the form (3 ms of the tap with the CPU slowed 4x). Any
  // other tap (a keyboard's, one the peek no longer fits) is a form's submission, answered
  // below as htmx asks for it.
  var ahead = null;
  function tapKey(fields) {
    var sorted = fields.slice().sort(function (a, b) { return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0; });
    return JSON.stringify([sorted, window.location.href]);
  }
  // The move a button posts, as htmx would send it (its form's fields, the button's, and the
  // version: the move forms' hx-include), or null for a button that posts no move here.
  function moveTap(e) {
    var button = e.target && e.target.closest && e.target.closest("button");
    var form = button && button.type === "submit" && button.form;
    if (!form || !isMove(form.getAttribute("hx-post")) || button.getAttribute("aria-disabled") === "true" || !playing()) {
      return null;
    }
    var fields = [];
    new FormData(form).forEach(function (value, name) {
      if (typeof value === "string") { fields.push([name, value]); }
    });
    if (button.name) { fields.push([button.name, button.value]); }
    fields.push(["version", String(shownVersion())]);
    return { button: button, form: form, fields: fields };
  }
  document.addEventListener("pointerdown", function (e) {
    var tap = moveTap(e);
    ahead = null;
    if (!tap) { return; }
    var mine = ahead = { key: tapKey(tap.fields), calls: calls, answer: null };
    mine.asked = call("peek", { fields: tap.fields, current: window.location.href }).then(function (answer) {
      if (answer.status && window.companionParse) { answer.parsed = window.companionParse(answer.html); }
      mine.answer = answer;
      return answer;
    });
    mine.asked.catch(function () { /* the tap asks again */ });
  }, true);
  document.addEventListener("click", function (e) {
    var a = ahead, tap = a && moveTap(e);
    ahead = null;
    if (!tap || a.calls !== calls || open || a.key !== tapKey(tap.fields) || (a.answer && !a.answer.status)) { return; }
    e.preventDefault();
    var data = new FormData();
    tap.fields.forEach(function (f) { data.append(f[0], f[1]); });
    here("tap", { fields: tap.fields }, { verb: "post", path: tap.form.getAttribute("hx-post"), elt: tap.button, formData: data },
      data.get("version"), a.asked);
  }, true);

  // Taps, before app.js sees them (capture): answered here while the phone holds the game
  // the page shows.
  document.addEventListener("htmx:configRequest", function (e) {
    var d = e.detail;
    if (!playing()) { return; }
    var answer = null;
    if (d.verb === "get" && d.elt && d.elt.closest && d.elt.closest("button.cancel, .reveal")) {
      answer = function () { here("show", { reveal: /[?&]reveal=1/.test(d.path) }, d, null); };
    } else if (d.verb === "post" && isMove(d.path) && !d.parameters.server) {
      answer = function () { here("tap", { fields: posted(d.formData) }, d, d.formData.get("version")); };
    } else if (d.verb === "post" && isUndo(d.path) && waiting.load().length &&
      !(waiting.sending() && waiting.load().length === 1)) {
      answer = function () {  // the last tap, not sent yet: taken back here, and never sent
        var queue = waiting.load();
        queue.pop();
        waiting.save(queue);
        here("undo", {}, d, null);
      };
    }
    if (answer) {
      e.preventDefault();
      e.stopImmediatePropagation();
      answer();
    }
  }, true);
  // A board the server sent (another phone's move, a tap it answered; app.js's companion:sent
  // once the taps it answered are out of the queue): the phone takes that game.
  function again() {
    if (!playing() && !waiting.load().length) { takeShown(); }
  }
  document.addEventListener("htmx:afterSettle", again);
  document.addEventListener("companion:sent", again);

  // worked(): the tap under the finger is worked out, and will be shown as it lifts.
  window.companionReferee = { playing: playing, forget: forget, worked: function () { return !!(ahead && ahead.answer); } };
  takeShown();
}());
