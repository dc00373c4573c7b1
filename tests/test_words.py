"""Words a player uses (issue 12): no option or rule identifier reaches the screen. Every
choice an engine offers has a plain label, and pages show those, not the API's codes."""

import dataclasses
import re

import pytest

from companion import games


def codes(rules) -> set[str]:
    """The choice values that are identifiers (ace_ten, flat1, web2023), not words."""
    return {
        str(v)
        for values in getattr(rules, "CHOICES", {}).values()
        for v in values
        if v is not None and re.search(r"_|[a-z]\d|\d[a-z]", str(v))
    } | {name for name in rules.OPTION_HELP if "_" in name}


def visible_text(html: str) -> str:
    html = re.sub(r"<(script|style)[^>]*>.*?</\1>", " ", html, flags=re.S)
    return re.sub(r"<[^>]+>", " ", html)


@pytest.mark.parametrize("game", games.GAMES)
def test_every_choice_has_a_plain_label(game):
    rules = games.get(game)
    labels = getattr(rules, "CHOICE_LABELS", {})
    for name, values in getattr(rules, "CHOICES", {}).items():
        for value in values:
            if str(value) in codes(rules):
                assert labels.get(name, {}).get(value), (name, value)


@pytest.mark.parametrize("game", games.GAMES)
def test_pages_show_no_option_codes(client, game):
    rules = games.get(game)
    for url in (f"/games/new?game={game}", f"/games/new/options?game={game}", f"/rules/{game}", f"/rules/{game}/words"):
        text = visible_text(client.get(url).get_data(as_text=True))
        shown = {code for code in codes(rules) if re.search(rf"(?<![\w/]){re.escape(code)}(?![\w])", text)}
        assert not shown, (url, sorted(shown))
        assert "as in the seeds" not in text


@pytest.mark.parametrize("game", games.GAMES)
def test_every_option_has_a_plain_label_and_a_one_line_hint(client, game):
    """Labels are written, not derived from the option's name ("Jack sweep is tablanette")."""
    rules = games.get(game)
    names = [f.name for f in dataclasses.fields(rules.Options)]
    assert set(rules.OPTION_LABELS) == set(names) == set(rules.OPTION_HELP)
    for name in names:
        assert rules.OPTION_LABELS[name] != name.replace("_", " ").capitalize() or " " not in name.replace("_", " ")
        assert "\n" not in rules.OPTION_HELP[name] and len(rules.OPTION_HELP[name]) < 160, name
    for url in (f"/games/new?game={game}", f"/rules/{game}/words"):
        text = visible_text(client.get(url).get_data(as_text=True))
        shown = [n for n in names if n != "preset" and rules.OPTION_LABELS[n] not in text]
        assert not shown, (url, shown)
