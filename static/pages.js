// companion's other pages (every page but a game's, whose first load is app.js alone: see
// templates/play/page.html): what their forms need besides htmx and static/app.js.

// The new-game form: the dealer list names the players as they are typed.
(function () {
  "use strict";
  document.addEventListener("input", function (e) {
    var m = e.target && e.target.name && /^player(\d+)$/.exec(e.target.name);
    var option = m && document.querySelector('#dealer option[value="' + m[1] + '"]');
    var seat = option && document.querySelector('label[for="player' + m[1] + '"]');
    if (option) { option.textContent = e.target.value.trim() || (seat ? seat.textContent.trim() : m[1]); }
  });
}());

// The tally screen (play/tally_form.html) answers each change with the whole form again. A
// number being typed in another box while that answer is on its way is kept: the answer
// was made before it, and it would come back empty (a slow room's Wi-Fi lost its digits).
(function () {
  "use strict";
  var typing = null;
  document.addEventListener("htmx:beforeSwap", function (e) {
    var a = document.activeElement, t = e.detail.target;
    typing = t && t.id === "tally" && a && a.tagName === "INPUT" && a.id && t.contains(a) ?
      { id: a.id, value: a.value } : null;
  });
  document.addEventListener("htmx:afterSwap", function () {
    var box = typing && document.getElementById(typing.id);
    if (box && box.value !== typing.value) { box.value = typing.value; }  // its change is sent when it is left
    typing = null;
  });
}());
