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
  document.addEventListener("htmx:afterRequest", function (e) {
    var b = banner();
    if (b && e.detail.successful) { b.hidden = true; }
  });
  document.addEventListener("click", function (e) {
    if (e.target && e.target.closest && e.target.closest("#net-error .dismiss")) { banner().hidden = true; }
  });
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
