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
    beforeAttributeUpdated: function (name, node) { if (/^(data-)?hx-/.test(name)) { touched.push(node); } }
  };
  function morph(old, now) {
    touched = [];
    Idiomorph.morph(old, now, { morphStyle: "outerHTML", callbacks: CALLBACKS });
    touched.forEach(function (node) { if (node.isConnected) { window.htmx.process(node); } });
  }

  // The server's answers, as htmx puts them in: the board morphed here, and htmx told to swap
  // nothing itself ("none"), so it still puts the parts sent out of band in (below), keeps
  // the address the answer names and settles as usual. (Not through htmx's morph extension:
  // it looks for the extension from the element tapped, which the answer may have removed.)
  document.addEventListener("htmx:beforeSwap", function (e) {
    var d = e.detail, t = document.createElement("template"), board;
    if (!d.shouldSwap || !d.target || d.target.id !== "live" || typeof d.serverResponse !== "string") { return; }
    t.innerHTML = d.serverResponse;
    board = t.content.firstElementChild;
    if (!board || board.id !== "live") { return; }  // a whole game (a watcher's page now): swapped
    morph(d.target, board);
    d.swapOverride = "none";
  });
  document.addEventListener("htmx:oobBeforeSwap", function (e) {
    var d = e.detail, part = d.fragment && d.fragment.nodeType === 11 ? d.fragment.firstElementChild : d.fragment;
    if (!part || !part.id || part.id !== d.target.id) { return; }
    morph(d.target, part);
    d.shouldSwap = false;
  });

  // An answer the page puts in place itself (the phone's own, one the queue sent): each part
  // morphed into its namesake, then htmx's settle event, as after its own swap.
  window.companionSwap = function (html) {
    var t = document.createElement("template"), live;
    t.innerHTML = html;
    Array.prototype.slice.call(t.content.children).forEach(function (part) {
      var old = part.id && document.getElementById(part.id);
      if (!old) { return; }
      part.removeAttribute("hx-swap-oob");
      morph(old, part);
    });
    live = document.getElementById("live");
    live.dispatchEvent(new CustomEvent("htmx:afterSettle", { bubbles: true, detail: { elt: live, target: live } }));
  };
}());
