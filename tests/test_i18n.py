"""Japanese and English (issue 15): the catalogs are complete, the language comes from
the phone and its switch, and a phone set to Japanese reads no English.

* Every message the code and templates hold (extracted as ``make messages`` does) has a
  Japanese translation, none fuzzy, each with the same %(name)s places as its English.
* Every page and state a table sees (home, new game, each game at start, mid-deal, with
  its choices, a refusal, its tally, log, share panel and watch page, finished; the rules
  pages and the lab; error pages), asked with ``Accept-Language: ja`` by phones whose
  players have Japanese names, shows no English word: all its visible text and the words
  screen readers say (aria-label, title, alt, placeholder) are Japanese.
* The RULES.md vectors that are refusals are worded in Japanese from their code and params.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from urllib.parse import urlencode

import pytest
from babel.messages.checkers import python_format
from babel.messages.frontend import CommandLineInterface
from babel.messages.pofile import read_po
from flask import render_template_string
from markupsafe import Markup
from werkzeug.datastructures import MultiDict

from companion import games, web
from companion.errors import AmbiguousMove, IllegalMove, MoveError
from companion.i18n import LANGUAGES, say
from tests import ROOT
from tests.conftest import become_referee
from tests.test_refusals import MODULES, refusals

CATALOGS = ROOT / "companion" / "translations"
JA = CATALOGS / "ja" / "LC_MESSAGES" / "messages.po"
JAPANESE = {"Accept-Language": "ja,en-US;q=0.7"}

#: Words that are the same in a Japanese interface: the app's name, and abbreviations.
NOT_ENGLISH = {"companion", "OK", "QR", "URL", "CSV", "JSON", "API", "ID", "HTTP", "HTTPS"}
#: An English word: two letters or more (a card's rank, "A" or "K", is one letter), and not
#: a card as a typist writes it ("QH", "10D": a card, like Q♥; docs/GLOSSARY.md).
WORD = re.compile(r"(?![AJQK][SHDC](?![A-Za-z'’]))[A-Za-z][A-Za-z'’]+")
#: An English full stop, comma or semicolon after Japanese (a sentence glued from pieces):
#: Japanese ends with 。 and lists with 、.
WESTERN_STOP = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff][)）]?\s*[.,;](?!\d)")


def _keywords() -> list[str]:
    """The extraction keywords, from the Makefile (one place says them)."""
    text = (ROOT / "Makefile").read_text()
    block = re.search(r"^KEYWORDS\s*:=(.*?)(?<!\\)\n", text, re.S | re.M)
    assert block, "the Makefile's KEYWORDS"
    return block.group(1).replace("\\\n", " ").split()


@pytest.fixture(scope="module")
def extracted(tmp_path_factory):
    pot = tmp_path_factory.mktemp("catalog") / "messages.pot"
    args = ["pybabel", "-q", "extract", "-F", str(ROOT / "babel.cfg"), "--no-location", *_keywords()]
    CommandLineInterface().run([*args, "-o", str(pot), str(ROOT)])
    with pot.open("rb") as f:
        return read_po(f)


@pytest.fixture(scope="module")
def japanese():
    with JA.open("rb") as f:
        return read_po(f, locale="ja")


def _translated(message) -> bool:
    strings = message.string if isinstance(message.string, tuple) else (message.string,)
    return all(s for s in strings)


def test_every_message_has_a_japanese_translation_and_none_is_fuzzy(extracted, japanese):
    ids = [(m.id, m.context) for m in extracted if m.id]
    assert len(ids) > 300, "extraction found too little: the keywords or babel.cfg are wrong"
    found = {key: japanese.get(*key) for key in ids}  # (id, context): "N" as a compass point
    missing = [key for key, m in found.items() if m is None or not _translated(m)]
    assert not missing, f"{len(missing)} messages lack Japanese (make messages, then translate): {missing[:20]}"
    fuzzy = [m.id for m in japanese if m.id and m.fuzzy]
    assert not fuzzy, f"fuzzy translations: {fuzzy[:20]}"


def test_each_translation_keeps_the_places_of_its_english(japanese):
    wrong = []
    for message in japanese:
        if not message.id or not message.python_format:
            continue
        try:
            python_format(japanese, message)
        except Exception as e:  # babel's TranslationError, with what differs
            wrong.append(f"{message.id!r}: {e}")
    assert not wrong, "\n".join(wrong[:20])


def test_the_compiled_catalog_is_current():
    mo = JA.with_suffix(".mo")
    assert mo.exists() and mo.stat().st_mtime >= JA.stat().st_mtime, "make compiles the catalogs: run make test"


@pytest.mark.parametrize("path", MODULES)
def test_every_refusal_text_has_japanese_wording(japanese, path):
    """Each refusal's English text (the message id) has its Japanese, so each code is worded
    in Japanese from its params."""
    for r in refusals(path):
        for text in r["text"] or []:
            found = japanese.get(text)
            assert found is not None and _translated(found), f"{path}:{r['line']} {r['code']}: {text!r}"


# -- pages a phone set to Japanese reads -------------------------------------------------------------


class _Visible(HTMLParser):
    """The text a person reads or hears: text outside script/style/template, and the
    attributes screen readers say. An element marked with another ``lang`` (the switch's
    "English") is left out."""

    SAID = ("aria-label", "title", "alt", "placeholder", "aria-description")
    HIDDEN = {"script", "style", "template", "noscript"}
    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.texts: list[str] = []
        self.stack: list[tuple[str, bool]] = []

    def _skipping(self) -> bool:
        return any(skip for _, skip in self.stack)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        other_language = a.get("lang") not in (None, "ja")
        if tag == "html":
            other_language = False
        if not self._skipping() and not other_language:
            self.texts += [a[k] for k in self.SAID if a.get(k)]
            if tag == "input" and a.get("type") in ("submit", "button") and a.get("value"):
                self.texts.append(a["value"])
        if tag not in self.VOID:
            self.stack.append((tag, tag in self.HIDDEN or other_language))

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                break

    def handle_data(self, data):
        if not self._skipping() and data.strip():
            self.texts.append(data)


def english_words(html: str, names: list[str]) -> list[str]:
    """The English words a Japanese page shows (player names and :data:`NAMES_KEPT` aside),
    and any Western stop glued after Japanese text."""
    parser = _Visible()
    parser.feed(html)
    text = " ".join(parser.texts)
    for name in [*names, *NAMES_KEPT]:
        text = text.replace(name, " ")
    stops = {m.group(0) for m in WESTERN_STOP.finditer(text)}
    return sorted({w for w in WORD.findall(text) if w not in NOT_ENGLISH} | stops)


#: Names that stay in Latin letters on a Japanese page, as the seeds write pagat.com and John
#: McLeod (docs/GLOSSARY.md): the programs and sites the rules pages name as sources, and what is
#: typed into those programs (a file, an option group, a rule set), so that a reader can look
#: them up. Longer first: each is taken out of the page's text before it is read.
NAMES_KEPT = sorted(
    [
        "PlayAural",
        "Quentin C",
        "server/games/ninetynine/game.py",
        "ichabod801/t_games",
        "card_games/ninety_nine_game.py",
        "ninety_nine_game.py",
        "t_games",
        "chicago",
        "joker-rules",
        "joker rules",
        "gonzo",
        "pagat.com",
        "pagat",
        "github.com/Pajke/tablic",
        "Pajke",
        "DavorPenzar",
        "askarte",
        "extramagazin",
        "gambiter",
        "ludoteka",
        "tute.com.ar",
        "cuatrola.es",
        "Juegon",
        "fantaciencia.com",
        "acanomas.com",
        "GitHub",
        "Wikipedia",
        "Board Game Arena",
        "mob4gamers.com",
        "Rutmaniyar",
        "Tantony-Game",
    ],
    key=len,
    reverse=True,
)
#: The players' names, and what the tests type as a bad card ("ZZ"), which a refusal echoes.
PLAYERS = ["太郎", "花子", "次郎", "桜", "健"]
TYPED = ["ZZ"]
#: The adapters' sample games use these names; the pages get Japanese ones instead.
SAMPLE_NAMES = ["Ann", "Ben", "Cat", "Dan", "Eve", "Nan", "Sam", "Wes"]


def _japanese_names(data):
    text = json.dumps(data, ensure_ascii=False)
    for english, japanese in zip(SAMPLE_NAMES, PLAYERS * 2):
        text = text.replace(f'"{english}"', f'"{japanese}"')
    return json.loads(text)


class Table:
    """A game played through the API, a referee phone and a watcher's, all in Japanese."""

    def __init__(self, app, game: str, options=None, moves=(), players=None):
        sample = _japanese_names(web.get(game).SAMPLE)
        self.players = players or sample["players"]
        self.referee, self.watcher = app.test_client(), app.test_client()
        created = self.referee.post(
            "/api/games", json={"game": game, "players": self.players, "options": options or {}}
        ).get_json()
        assert "id" in created, created
        self.id, key = created["id"], created["edit_key"]
        for version, move in enumerate(_japanese_names(list(moves))):
            answer = self.referee.post(
                f"/api/games/{self.id}/moves", json={"version": version, "move": move}, headers={"X-Edit-Key": key}
            )
            assert answer.status_code == 200, answer.get_json()
        become_referee(self.referee, self.id, key)
        self.version = len(moves)

    def page(self, path="", who=None, status=200) -> str:
        answer = (who or self.referee).get(f"/games/{self.id}{path}", headers=JAPANESE)
        assert answer.status_code == status, (path, answer.status_code)
        return answer.get_data(as_text=True)

    def post_move(self, move: dict, status: int | None = None) -> str:
        """A move as the picker posts it (htmx): the answer swapped into the page (a
        choice to make is a 200 that asks; a refusal a 422)."""
        fields = [("version", str(self.version))]
        for k, v in _japanese_names(move).items():
            fields += [(f"{k}[]", str(x)) for x in v] if isinstance(v, list) else [(k, str(v))]
        answer = self.referee.post(
            f"/games/{self.id}/moves",
            data=MultiDict(fields),
            headers=JAPANESE | {"HX-Request": "true", "HX-Target": "live"},
        )
        assert answer.status_code == (status or answer.status_code) < 500, (move, answer.status_code)
        self.version = self.referee.get(f"/api/games/{self.id}").get_json()["version"]
        return answer.get_data(as_text=True)


def _states(app, game: str) -> dict[str, str]:
    """The pages of ``game`` a table sees, by name, in Japanese."""
    sample = web.get(game).SAMPLE
    pages = {}
    fresh = Table(app, game)
    pages["start"] = fresh.page()
    pages["tally"] = fresh.page("/tally")
    pages["delete"] = fresh.page("/delete")
    mid = Table(app, game, moves=sample["moves"])
    pages["mid-deal"] = mid.page()
    pages["watch"] = mid.page(who=mid.watcher)
    pages["log"] = mid.page("/log")
    pages["share"] = mid.page("/share")
    done = Table(app, game, sample["finished"]["options"], sample["finished"]["moves"])
    pages["finished"] = done.page()
    pages["finished-watch"] = done.page(who=done.watcher)
    pages["finished-log"] = done.page("/log")
    return pages


#: Each game's choices and refusals, posted as its picker posts them.
def _tablanette_moves(app, pages):
    t = Table(app, "tablanette", moves=[{"type": "layout", "cards": ["2S", "3H", "5D", "9C"]}])
    pages["choice"] = t.post_move({"type": "play", "card": "KH"})  # TB-08: two captures, say which
    assert 'class="choice' in pages["choice"]
    pages["refusal"] = t.post_move({"type": "play", "card": "7C", "capture": ["2D"]}, 422)
    pages["sweep"] = t.post_move({"type": "play", "card": "KH", "capture": ["2S", "3H", "9C"]})


def _hundred_moves(app, pages):
    t = Table(app, "hundred", {"tokens": 1}, [{"type": "play", "card": "10D"}])
    pages["black-ace"] = t.post_move({"type": "play", "card": "AS"})
    pages["refusal"] = t.post_move({"type": "play", "card": "ZZ"}, 422)


def _tantony_moves(app, pages):
    t = Table(app, "tantony")
    for card in ("9D", "3D", "7D"):
        t.post_move({"type": "play", "card": card})
    pages["gift"] = t.post_move({"type": "play", "card": "10D"})
    assert 'class="choice' in pages["gift"]
    pages["refusal"] = t.post_move({"type": "play", "card": "9D"}, 422)
    view = t.referee.get(f"/api/games/{t.id}").get_json()["view"]
    pages["given"] = t.post_move({"type": "give", "to": view["room"][-1]})  # the last trick: two sentences


def _tute_moves(app, pages):
    t = Table(app, "tute", moves=[{"type": "trump", "card": "5D"}])
    pages["refusal"] = t.post_move({"type": "play", "card": "5D"}, 422)


CHOICES = {
    "tablanette": _tablanette_moves,
    "hundred": _hundred_moves,
    "tantony": _tantony_moves,
    "tute": _tute_moves,
}


@pytest.fixture(scope="module")
def ja_app(tmp_path_factory):
    from tests.conftest import make_app

    return make_app(tmp_path_factory.mktemp("ja"))


@pytest.mark.parametrize("game", games.GAMES)
def test_a_game_reads_in_japanese_at_every_state(ja_app, game):
    pages = _states(ja_app, game)
    CHOICES[game](ja_app, pages)
    found = {name: english_words(html, PLAYERS + TYPED) for name, html in pages.items()}
    assert not {k: v for k, v in found.items() if v}, found


def _lab_urls(game: str) -> list[str]:
    positions = {
        "tablanette": [{"table": "2S,3H,5D,9C", "card": "KH"}, {"table": "2S,3H", "card": "ZZ"}],
        "tute": [{"trump": "D", "trick": "7S,5D", "hand": "3D,2D,AC", "into": "hand"}],
        "tantony": [{}],
        "hundred": [{"total": "95"}, {"total": "95", "card": "5S"}, {"total": "²"}],
    }
    return [f"/rules/{game}?{urlencode(p)}" for p in positions[game]]


@pytest.mark.parametrize("game", games.GAMES)
def test_the_rules_and_the_lab_read_in_japanese(ja_app, game):
    client = ja_app.test_client()
    found = {}
    for url in [f"/rules/{game}", f"/rules/{game}/words", *_lab_urls(game)]:
        answer = client.get(url, headers=JAPANESE)
        assert answer.status_code in (200, 400), url
        found[url] = english_words(answer.get_data(as_text=True), PLAYERS + TYPED)
    assert not {k: v for k, v in found.items() if v}, found


def test_the_other_pages_read_in_japanese(ja_app):
    client = ja_app.test_client()
    urls = {
        "/": 200,
        "/rules/": 200,
        "/games/new": 200,
        **{f"/games/new?game={g}": 200 for g in games.GAMES},
        **{f"/games/new/options?game={g}": 200 for g in games.GAMES},
        "/games/nonesuch": 404,
        "/no/such/page": 404,
        "/games/new?game=nonesuch": 200,
    }
    found = {}
    for url, status in urls.items():
        answer = client.get(url, headers=JAPANESE)
        assert answer.status_code == status, url
        found[url] = english_words(answer.get_data(as_text=True), PLAYERS)
    table = Table(ja_app, "tablanette")
    stranger = ja_app.test_client()
    answers = {
        "403": stranger.post(f"/games/{table.id}/moves", data={"version": "0"}, headers=JAPANESE),
        "405": stranger.put("/games/new", headers=JAPANESE),
        "410": stranger.get(f"/games/{table.id}/join/expired-token", headers=JAPANESE),
        "new game refused": stranger.post(
            "/games/new", data={"game": "tablanette", "player0": "太郎"}, headers=JAPANESE
        ),
    }
    for name, answer in answers.items():
        assert answer.status_code < 500, name
        found[name] = english_words(answer.get_data(as_text=True), PLAYERS)
    assert not {k: v for k, v in found.items() if v}, found


def test_a_stale_form_is_told_in_japanese(csrf_client):
    answer = csrf_client.post("/games/new", data={"game": "tablanette"}, headers=JAPANESE)
    assert answer.status_code == 400
    assert english_words(answer.get_data(as_text=True), []) == []


# -- the language: from the phone, the switch, a link ------------------------------------------------


def test_the_language_comes_from_the_phone(client):
    assert '<html lang="ja">' in client.get("/", headers={"Accept-Language": "ja-JP,ja;q=0.9"}).get_data(as_text=True)
    assert '<html lang="en">' in client.get("/", headers={"Accept-Language": "en-GB"}).get_data(as_text=True)
    assert '<html lang="en">' in client.get("/", headers={"Accept-Language": "fr"}).get_data(as_text=True)
    assert '<html lang="ja">' in client.get("/", headers={"Accept-Language": "fr, ja;q=0.5"}).get_data(as_text=True)


def test_the_switch_is_on_every_page_and_is_remembered(client):
    page = client.get("/rules/hundred?total=95", headers=JAPANESE).get_data(as_text=True)
    switch = re.search(r'<a href="([^"]+)" hreflang="en" lang="en">English</a>', page)
    assert switch and "total=95" in switch.group(1)
    answer = client.get(switch.group(1).replace("&amp;", "&"), headers=JAPANESE)
    assert '<html lang="en">' in answer.get_data(as_text=True)
    assert "lang=en" in answer.headers["Set-Cookie"]
    # remembered: the phone still says Japanese, the cookie wins
    assert '<html lang="en">' in client.get("/", headers=JAPANESE).get_data(as_text=True)
    back = re.search(r'<a href="([^"]+)" hreflang="ja" lang="ja">日本語</a>', client.get("/").get_data(as_text=True))
    assert back
    client.get(back.group(1))
    assert '<html lang="ja">' in client.get("/", headers={"Accept-Language": "en"}).get_data(as_text=True)


def test_a_watch_link_may_carry_its_language(client, app):
    table = Table(app, "tablanette")
    watcher = app.test_client()
    page = watcher.get(f"/games/{table.id}?lang=ja", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert '<html lang="ja">' in page
    # its fragments (the watch page's polls) follow
    assert '<html lang="ja">' in watcher.get(f"/games/{table.id}", headers={"Accept-Language": "en"}).get_data(
        as_text=True
    )


def test_english_pages_say_nothing_in_japanese(app):
    table = Table(app, "tablanette", moves=web.get("tablanette").SAMPLE["moves"])
    page = table.referee.get(f"/games/{table.id}", headers={"Accept-Language": "en"}).get_data(as_text=True)
    parser = _Visible()
    parser.feed(page)
    text = " ".join(parser.texts)
    for name in PLAYERS:
        text = text.replace(name, "")
    assert not re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", text.replace("日本語", "")), text


# -- refusals, worded from their code and params ---------------------------------------------------


def _refusals_of_the_vectors() -> list[MoveError]:
    """The refusals the RULES.md vectors make through the engines: a declared capture not
    among a vector's legal ones, and a play without its capture where several are legal
    (Tablanette 1.11); each card of a hand the duties forbid, as the lab refuses it (Tute 2.4)."""
    from companion.games import tablanette, tute
    from tests.test_tablanette_vectors import VECTORS as CAPTURES
    from tests.test_tablanette_vectors import game_with_table
    from tests.test_tute_vectors import LEGAL

    out: list[MoveError] = []
    for v in CAPTURES:
        state = game_with_table(v["table"], v["options"], v["played"])
        legal = {tuple(sorted(c["cards"])) for c in v["captures"]}
        wrong = next(
            (s for s in ([v["table"][0]] if v["table"] else [], v["table"], []) if tuple(sorted(s)) not in legal),
            None,
        )
        if wrong is not None:
            with pytest.raises(MoveError) as err:
                tablanette.apply(state, {"type": "play", "card": v["played"], "capture": wrong})
            out.append(err.value)
        if len(legal) > 1:
            with pytest.raises(AmbiguousMove) as err:
                tablanette.apply(state, {"type": "play", "card": v["played"]})
            out.append(err.value)
    for v in LEGAL:
        for card in sorted(set(v["hand"]) - set(v["legal"])):
            reason = tute.why_illegal(v["hand"], v["trick"], v["trump"], card)
            assert reason is not None, (v["id"], card)
            out.append(IllegalMove(reason))
    return out


def test_the_refusals_of_the_vectors_read_in_japanese(ja_app):
    found = _refusals_of_the_vectors()
    assert len({r.code for r in found}) >= 3, sorted({r.code for r in found})
    with ja_app.test_request_context(headers=JAPANESE):
        for refusal in found:
            english, japanese = str(refusal.reason), say(refusal.reason)
            assert japanese != english and re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", japanese), (english, japanese)
            assert not [w for w in WORD.findall(japanese) if w not in NOT_ENGLISH], (english, japanese)


def test_an_api_refusal_keeps_its_code_and_params_and_is_worded_in_the_request_language(client):
    created = client.post("/api/games", json={"game": "tablanette", "players": ["Ann", "Ben"]}).get_json()
    move = {"version": 0, "move": {"type": "play", "card": "KH"}}
    headers = {"X-Edit-Key": created["edit_key"]}
    english = client.post(f"/api/games/{created['id']}/moves", json=move, headers=headers | {"Accept-Language": "en"})
    japanese = client.post(f"/api/games/{created['id']}/moves", json=move, headers=headers | JAPANESE)
    assert english.status_code == japanese.status_code >= 400
    e, j = english.get_json(), japanese.get_json()
    assert {k: v for k, v in e.items() if k != "error"} == {k: v for k, v in j.items() if k != "error"}
    assert e["code"] and e["error"] != j["error"] and re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", j["error"]), (e, j)


@pytest.mark.parametrize("game", games.GAMES)
def test_the_japanese_rules_text_has_every_section_and_mark_of_the_english(game):
    """The plain-words rules are written in Japanese with the original pages' terms
    (templates/rules/_text_<game>.ja.html): the same sections (a refusal's citation links
    to them) and the same assumed/decided marks as the English text."""
    texts = ROOT / "templates" / "rules"
    english, japanese = (texts / f"_text_{game}.html").read_text(), (texts / f"_text_{game}.ja.html").read_text()
    ids = re.compile(r'id="([^"]+)"')
    assert ids.findall(japanese) == ids.findall(english)
    for mark in ('class="badge decided"', 'class="badge assumed"'):
        assert japanese.count(mark) == english.count(mark), mark


def test_the_stylesheet_writes_no_words():
    """Words a stylesheet draws (``content: "..."``) can't be translated: they come from the
    page (``attr(data-under)``), or are symbols."""
    css = (ROOT / "static" / "app.css").read_text()
    drawn = re.findall(r'content:\s*((?:"[^"]*"|[^;}])*)', css)
    words = [w for c in drawn for s in re.findall(r'"([^"]*)"', c) for w in WORD.findall(s)]
    assert drawn and not words, words


def test_a_template_translates_formats_and_escapes_its_words(app):
    """``_()`` in a template (Jinja's newstyle gettext, called directly: companion/i18n.py):
    the words in the request's language, a text param escaped (a player types the names)
    and a markup one kept (a card's chip), ``%%`` a percent sign, as Jinja's own ``_`` does."""
    text = "{{ _('%(name)s played %(card)s: laid down.', name=who, card=card) }}|{{ _('Table') }}|{{ _('100%%') }}"
    card = Markup('<span class="chip">7♣</span>')
    said = {}
    for lang in LANGUAGES:
        with app.test_request_context(f"/?lang={lang}"):
            said[lang] = render_template_string(text, who="<b>Ann</b>", card=card)
    assert said["en"] == f"&lt;b&gt;Ann&lt;/b&gt; played {card}: laid down.|Table|100%"
    played, table, percent = said["ja"].split("|")
    assert "&lt;b&gt;Ann&lt;/b&gt;" in played and card in played and "played" not in played
    assert table not in ("", "Table") and percent == "100%"


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("style", ["standard", "or"])
def test_lists_are_worded_by_cldrs_patterns_as_babel_words_them(language, style):
    """companion/i18n.py carries CLDR's list patterns itself (the phone has no Babel): every
    length of list comes out as Babel's ``format_list`` words it."""
    import gettext

    from babel.lists import format_list as babels

    from companion import i18n

    with i18n.speaking(i18n.Speech(language, gettext.NullTranslations())):
        for n in range(6):
            values = [f"v{i}" for i in range(n)]
            assert i18n.format_list(values, style) == babels(values, style=style, locale=language)
