// The screen stays on while a referee's game page is open (issue 46): the Screen Wake Lock
// API, taken once the page has loaded (static/app.js loads this on a page with a board) and
// again each time the page is shown; the browser lets it go while the page is hidden, and
// this lets it go once the game is over (#live's data-over). Browsers offer it only in a
// secure context (HTTPS, or this machine's own address): on the room's plain HTTP, and when
// the phone refuses it, the page says so (#awake, templates/play/_awake.html).
(function () {
  "use strict";
  var hint = document.getElementById("awake"), lock = null, asking = false;
  if (!hint) { return; }  // not a referee's page
  function over() { return !!document.querySelector("#live[data-over]"); }
  function say(text) {
    if (text) { hint.textContent = text; }
    hint.hidden = false;
  }
  function take() {
    if (lock || asking || over() || document.visibilityState !== "visible") { return; }
    if (!window.isSecureContext || !navigator.wakeLock) { say(); return; }
    asking = true;
    navigator.wakeLock.request("screen").then(function (taken) {
      asking = false;
      lock = taken;
      hint.hidden = true;
      taken.addEventListener("release", function () { if (lock === taken) { lock = null; } });
      if (over()) { release(); }
    }, function () {
      asking = false;
      say(hint.dataset.denied);
    });
  }
  function release() {
    var held = lock;
    lock = null;
    if (held) { held.release(); }
  }
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") { take(); } else { release(); }
  });
  document.addEventListener("htmx:afterSettle", function () {
    if (over()) { release(); } else { take(); }
  });
  take();
}());
