// An answer changes the page only where it differs (issue 45). static/app.js loads this,
// after idiomorph (static/idiomorph.min.js, vendored: htmx's own morphing library), once a
// page with a board has loaded. From then on the board (#live) and each part an answer sends
// out of band (a card of the grid, Undo, the record) are morphed into what the page shows
// instead of being swapped whole: every element that did not change stays, with its style
// and layout, and the card tapped keeps the focus, so the browser works out again only what
// a card changed. The answer itself is the same, and so is everything htmx does with it.
(function () {
  "use strict";
  var Idiomorph = window.Idiomorph;
  if (!Idiomorph || !window.htmx) { return; }

  // A part equal to what the page shows is left alone, without walking it (isEqualNode is the
  // browser's own, and most of a board is unchanged by a card). htmx is then shown only what
  // the morph added, and the elements whose requests it changed (an hx- attribute): the rest
  // keeps what htmx set up on it (a board's hx-get stays the same: it names no version).
  var touched;
  var CALLBACKS = {
    beforeNodeMorphed: function (old, now) { return !old.isEqualNode(now); },
    afterNodeAdded: function (node) { if (node.nodeType === 1) { touched.push(node); } },
    beforeAttributeUpdated: function (name, node) { hx(name, node); }
  };
  function morph(old, now) {
    if (sameShape(old, now)) { update(old, now); return; }
    Idiomorph.morph(old, now, { morphStyle: "outerHTML", callbacks: CALLBACKS });
  }
  // Most parts a card changes keep their shape: the same elements in the same places, only
  // attributes and words changed (the card struck, a total, Undo's label). Those are brought
  // up to date in place, without idiomorph's matching of elements (about 1 ms a part with the
  // CPU slowed 4x, issue 45); any other change is idiomorph's. A form's fields other than
  // <input> (whose value and checked state follow the answer's, as idiomorph makes them) go
  // to idiomorph too.
  function sameShape(a, b) {
    if (a.nodeType !== b.nodeType || a.nodeName !== b.nodeName || a.nodeName === "TEXTAREA" || a.nodeName === "SELECT") {
      return false;
    }
    if (a.nodeType !== 1 || a.isEqualNode(b)) { return true; }
    for (var x = a.firstChild, y = b.firstChild; x || y; x = x.nextSibling, y = y.nextSibling) {
      if (!x || !y || !sameShape(x, y)) { return false; }
    }
    return true;
  }
  function update(a, b) {
    if (a.nodeType !== 1) {
      if (a.nodeValue !== b.nodeValue) { a.nodeValue = b.nodeValue; }
      return;
    }
    if (a.isEqualNode(b)) { return; }
    var i, attr;
    for (i = a.attributes.length - 1; i >= 0; i--) {
      attr = a.attributes[i];
      if (!b.hasAttribute(attr.name)) { hx(attr.name, a); a.removeAttribute(attr.name); }
    }
    for (i = 0; i < b.attributes.length; i++) {
      attr = b.attributes[i];
      if (a.getAttribute(attr.name) !== attr.value) { hx(attr.name, a); a.setAttribute(attr.name, attr.value); }
    }
    if (a.nodeName === "INPUT") {
      a.checked = b.checked;
      a.value = b.value;
    }
    for (var x = a.firstChild, y = b.firstChild; x; x = x.nextSibling, y = y.nextSibling) { update(x, y); }
  }
  function hx(name, node) { if (/^(data-)?hx-/.test(name)) { touched.push(node); } }
  // htmx is shown them once the frame that shows the answer is painted (2-3 ms of a tap with
  // the CPU slowed 4x, issue 45), or at once if a finger or a key reaches the page first
  // (capture: before htmx would look for them).
  var unprocessed = [];
  function process() {
    var nodes = unprocessed;
    unprocessed = [];
    nodes.forEach(function (node) { if (node.isConnected) { window.htmx.process(node); } });
  }
  function processed(fn) {
    touched = [];
    fn();
    if (touched.length && !unprocessed.length) {
      var later = window.setTimeout(process, 100);  // a page not drawn (no frame comes)
      window.requestAnimationFrame(function () { window.clearTimeout(later); window.setTimeout(process); });
    }
    unprocessed = unprocessed.concat(touched);
  }
  ["pointerdown", "keydown", "focusin", "click", "submit"].forEach(function (type) {
    document.addEventListener(type, function () { if (unprocessed.length) { process(); } }, true);
  });

  // The board, part by part (companion/board/parts.py marks each element at its top with a
  // digest of its markup, data-part). A part whose digest the page shows stays as it is (an
  // answer sends it as a stub, <template data-part>, when the page said it shows it); any
  // other goes into the part of its kind (its id, or its tag and first class) with idiomorph,
  // or in as it comes. Kinds matter: left to itself, idiomorph fits a new element into the
  // next one with the same tag, and a table of seats came in anew into the old choice's place.
  // What the page showed when it asked, by digest (two asks back: an answer may cross the
  // next ask), so that a stub finds its part even if the board changed meanwhile.
  var said = [{}, {}];
  function shown() {
    var live = document.getElementById("live"), parts = {};
    if (!live) { return ""; }
    Array.prototype.forEach.call(live.children, function (el) {
      var d = el.getAttribute("data-part");
      if (d) { parts[d] = el; }
    });
    said = [parts, said[0]];
    return Object.keys(parts).join(" ");
  }
  function still(d) {  // an element that still shows the part with digest d (not morphed since)
    return function (el) { return el && el.getAttribute("data-part") === d; };
  }
  function kind(el) { return el.id ? "#" + el.id : el.tagName + "." + (el.classList[0] || ""); }
  function spared(el) {  // an element's place taken, with the whitespace before it
    var before = el.previousSibling;
    if (before && before.nodeType === 3 && !before.data.trim()) { before.remove(); }
    el.remove();
  }
  // The board ``now`` put into ``old`` (both #live); false, and nothing changed, if it holds
  // a stub this page cannot fill.
  function board(old, now) {
    var olds = Array.prototype.slice.call(old.children), byDigest = {}, used = new Set(), places = [], cursor;
    olds.forEach(function (el) {
      var d = el.getAttribute("data-part");
      if (d && !byDigest[d]) { byDigest[d] = el; }
    });
    // First what stays (by digest), then each other part into the first unused one of its kind.
    var news = Array.prototype.map.call(now.children, function (part) {
      var d = part.getAttribute("data-part"), same = d && byDigest[d];
      if (d && !same && part.tagName === "TEMPLATE") { same = [said[0][d], said[1][d]].find(still(d)); }
      if (same && used.has(same)) { same = same.cloneNode(true); }
      if (same) { used.add(same); }
      return { part: part, same: same };
    });
    if (news.some(function (n) { return n.part.tagName === "TEMPLATE" && !n.same; })) { return false; }
    news.forEach(function (n) {
      n.like = n.same || olds.find(function (el) { return !used.has(el) && kind(el) === kind(n.part); });
      if (n.like) { used.add(n.like); }
    });
    // A part going away with the focus in it (the option just tapped in a choice) gives it up
    // first, while the page's style is still as painted: taken away later, among the changes,
    // the browser works the whole page's style out at once (5-18 ms with the CPU slowed 4x).
    var gone = olds.filter(function (el) { return !used.has(el); });
    if (gone.some(function (el) { return el.contains(document.activeElement); })) { document.activeElement.blur(); }
    news.forEach(function (n) {
      if (n.like && !n.same) { morph(n.like, n.part); }
      places.push(n.like || n.part);
      if (!n.like) { touched.push(n.part); }
    });
    gone.forEach(spared);
    cursor = old.firstElementChild;
    places.forEach(function (el) {
      if (el === cursor) { cursor = cursor.nextElementSibling; } else { old.insertBefore(el, cursor); }
    });
    // The board's own attributes (what it is locked by, its request).
    Array.prototype.slice.call(old.attributes).forEach(function (a) {
      if (!now.hasAttribute(a.name)) { old.removeAttribute(a.name); }
    });
    Array.prototype.forEach.call(now.attributes, function (a) {
      if (old.getAttribute(a.name) === a.value) { return; }
      old.setAttribute(a.name, a.value);
      if (/^(data-)?hx-/.test(a.name)) { touched.push(old); }
    });
    return true;
  }
  function whole() {  // the board as the game stands, with no part left out
    var live = document.getElementById("live");
    if (live) { window.htmx.ajax("GET", live.getAttribute("hx-get"), { target: live, swap: "outerHTML" }); }
  }

  // Every request for the board says which of its parts the page shows.
  document.addEventListener("htmx:configRequest", function (e) {
    if (e.detail.target && e.detail.target.id === "live") { e.detail.headers["X-Board-Parts"] = shown(); }
  });

  // The server's answers, as htmx puts them in: the board put in here, and htmx told to swap
  // nothing itself ("none"), so it still puts the parts sent out of band in (below), keeps
  // the address the answer names and settles as usual. (Not through htmx's morph extension:
  // it looks for the extension from the element tapped, which the answer may have removed.)
  document.addEventListener("htmx:beforeSwap", function (e) {
    var d = e.detail, t = document.createElement("template"), now, done;
    if (!d.shouldSwap || !d.target || d.target.id !== "live" || typeof d.serverResponse !== "string") { return; }
    t.innerHTML = d.serverResponse;
    now = t.content.firstElementChild;
    if (!now || now.id !== "live") { return; }  // a whole game (a watcher's page now): swapped
    processed(function () { done = board(d.target, now); });
    if (!done) { d.shouldSwap = false; whole(); return; }
    d.swapOverride = "none";
  });
  document.addEventListener("htmx:oobBeforeSwap", function (e) {
    var d = e.detail, part = d.fragment && d.fragment.nodeType === 11 ? d.fragment.firstElementChild : d.fragment;
    if (!part || !part.id || part.id !== d.target.id) { return; }
    processed(function () { morph(d.target, part); });
    d.shouldSwap = false;
  });

  // An answer the page puts in place itself (the phone's own, one the queue sent): each part
  // put into its namesake, then htmx's settle event, as after its own swap.
  // ``parsed``: ``html`` parsed already (companionParse), while nothing else was to be done.
  window.companionParse = function (html) {
    var t = document.createElement("template");
    t.innerHTML = html;
    return t;
  };
  window.companionSwap = function (html, parsed) {
    var t = parsed || window.companionParse(html), live;
    processed(function () {
      Array.prototype.slice.call(t.content.children).forEach(function (part) {
        var old = part.id && document.getElementById(part.id);
        if (!old) { return; }
        part.removeAttribute("hx-swap-oob");
        if (part.id === "live") { board(old, part); } else { morph(old, part); }
      });
    });
    live = document.getElementById("live");
    live.dispatchEvent(new CustomEvent("htmx:afterSettle", { bubbles: true, detail: { elt: live, target: live } }));
  };
}());
