"""One name per option (issue 32): the plain-words rules pages quote each option, each of
its choices and each one-tap start by the very label the new-game form shows, in English
and in Japanese, because both take it from one place (``web.query.option_label`` and
``choice_label``, the engines' ``OPTION_LABELS``, ``CHOICE_LABELS`` and ``STARTS``)."""

from __future__ import annotations

import re
from html import unescape
from html.parser import HTMLParser

import pytest

from companion import games
from tests import ROOT

LANGUAGES = {"en": {"Accept-Language": "en"}, "ja": {"Accept-Language": "ja"}}
#: How a rules page quotes a name: “Points to win”, 「目標点」.
QUOTED = re.compile(r'<span class="option-name">[“「](.*?)[”」]</span>')


class _Texts(HTMLParser):
    """Every piece of text a page shows, stripped."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.texts: set[str] = set()

    def handle_data(self, data):
        if data.strip():
            self.texts.add(data.strip())


def shown(html: str) -> set[str]:
    parser = _Texts()
    parser.feed(html)
    return parser.texts


def _labels(rules) -> list[str]:
    """Every English name the form can show for the game's options, choices and starts."""
    names = [*rules.OPTION_LABELS.values(), *(s.label for s in rules.STARTS.values())]
    return names + [label for labels in getattr(rules, "CHOICE_LABELS", {}).values() for label in labels.values()]


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("game", games.GAMES)
def test_the_rules_page_names_each_option_as_the_form_labels_it(client, game, lang):
    headers = LANGUAGES[lang]
    form = shown(client.get(f"/games/new?game={game}", headers=headers).get_data(as_text=True))
    words = client.get(f"/rules/{game}/words", headers=headers).get_data(as_text=True)
    quoted = [unescape(name) for name in QUOTED.findall(words)]
    assert len(quoted) >= 5, quoted  # the page does name its options
    assert not [name for name in quoted if name not in form], (set(quoted) - form, lang)
    # the page's list of every option (its "Variants" section) uses the form's labels too
    listed = [unescape(name) for name in re.findall(r"<dt>(.*?) <small", words)]
    assert listed and not [name for name in listed if name not in form], set(listed) - form


@pytest.mark.parametrize("game", games.GAMES)
def test_no_rules_text_types_a_name_by_hand(game):
    """A name is quoted only through ``option_name``/``start_name``: the English text holds no
    hand-typed copy of a label, which would drift from the form again."""
    rules = games.get(game)
    text = (ROOT / "templates" / "rules" / f"_text_{game}.html").read_text(encoding="utf-8")
    typed = [label for label in _labels(rules) if f"“{label}”" in text]
    assert not typed, typed


@pytest.mark.parametrize("game", games.GAMES)
def test_no_japanese_rules_text_types_a_name_by_hand(client, game):
    """The Japanese page too: no label of the form is quoted in 「」 but through the helpers."""
    form = client.get(f"/games/new?game={game}", headers=LANGUAGES["ja"]).get_data(as_text=True)
    page = client.get(f"/rules/{game}/words", headers=LANGUAGES["ja"]).get_data(as_text=True)
    typed = QUOTED.sub("", page)
    hand_typed = [name for name in shown(form) if len(name) > 2 and f"「{name}」" in typed]
    assert not hand_typed, hand_typed
