// The screen stays on while a referee's game is open (issue 46): the Screen Wake Lock API,
// taken once the page has loaded (static/app.js loads this on a page with a board) and again
// each time the page is shown; the browser lets it go while the page is hidden, and this lets
// it go once the game is over (#live's data-over) or no longer shown (a game on this phone
// only, static/phone-only.js: back to its list). Browsers offer it only in a secure context
// (HTTPS, or this machine's own address): on the room's plain HTTP, and when the phone
// refuses it, the page says so (#awake, templates/play/_awake.html).
(function () {
  "use strict";
  var lock = null, asking = false;
  function hint() { return document.getElementById("awake"); }  // a referee's game is shown
  if (!hint() && !document.getElementById("here")) { return; }  // a watcher's page
  function wanted() {
    return !!hint() && !document.querySelector("#live[data-over]") && document.visibilityState === "visible";
  }
  function say(text) {
    var h = hint();
    if (!h) { return; }
    if (text) { h.textContent = text; }
    h.hidden = false;
  }
  function take() {
    if (lock || asking) { return; }
    if (!window.isSecureContext || !navigator.wakeLock) { say(); return; }
    asking = true;
    navigator.wakeLock.request("screen").then(function (taken) {
      asking = false;
      lock = taken;
      taken.addEventListener("release", function () { if (lock === taken) { lock = null; } });
      if (hint()) { hint().hidden = true; }
      if (!wanted()) { release(); }
    }, function () {
      asking = false;
      say(hint() && hint().dataset.denied);
    });
  }
  function release() {
    var held = lock;
    lock = null;
    if (held) { held.release(); }
  }
  function check() {
    if (wanted()) { take(); } else { release(); }
  }
  document.addEventListener("visibilitychange", check);
  document.addEventListener("htmx:afterSettle", check);
  window.addEventListener("hashchange", check);  // after the page's own listener: its game shown or gone
  window.addEventListener("popstate", check);
  check();
}());
