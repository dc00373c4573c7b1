"""Every word true in Japanese (issue 32): the pages a table reads in Japanese join their
sentences as Japanese does, every refusal the app can make reads in Japanese, and the
catalog uses one word per concept, the one docs/GLOSSARY.md takes from the seeds.

* **Sentences:** no half-width space after 。 where a page joins two sentences (a
  browser draws it: Chromium keeps a space between Japanese characters), on every page
  and state a table sees, in the words a screen reader says too.
* **Refusals:** every refusal code of every module (the engines', the store's, the API's
  schema checks), worded in Japanese from sample params, holds no English word. What may
  stay in Latin letters: cards (as chips, Q♥ 10♦, or as codes a typist writes, QH 10D),
  numbers, the names players type, the abbreviations any Japanese page uses (JSON, API),
  and what a program sends or must send, as it is written (:data:`TOKENS`: a field of the
  API, "move.card"; a value quoted, ``'loser'``, ``"play"``). A rule is cited by the
  game's Japanese name and its section number (「トゥテ 4.2」).
* **Glossary:** a term the glossary rejects appears in no Japanese message.
"""

from __future__ import annotations

import random
import re
from html.parser import HTMLParser

import pytest

from companion import games
from companion.games import tantony
from tests import ROOT
from tests.test_i18n import CHOICES, JAPANESE, NOT_ENGLISH, WORD, Table, _lab_urls, _states

#: Where a browser breaks the line, or a datum that is no sentence (a move's time in the log): text
#: on either side of one of these is not joined.
BLOCKS = frozenset(
    "address article aside blockquote body br button caption dd details dialog div dl dt fieldset figcaption figure "
    "footer form h1 h2 h3 h4 h5 h6 head header hr html img input li main nav ol option p section select summary svg "
    "table tbody td textarea tfoot th thead time title tr ul".split()
)
#: A Japanese sentence's end, then the half-width space a template's join leaves before more text (a
#: page title's 「 · companion」 is no sentence).
SPACED = re.compile(r"[。！？][ \t\r\n]+(?=[^\x00\s·])")
#: Japanese text, then a label's colon with the space English puts after it (「切り札: ハート」), or
#: the space English puts before a parenthesis (「第2ディール (集計)」, 「ゲーム (CSV)」, and a rule
#: cited after a closing one, 「(時計回り) (100/99/98 4.2)」): the catalog writes neither.
JA = "\u3040-\u30ff\u4e00-\u9fff"
SPACED_MARKS = re.compile(rf"[{JA})]:[ \t\r\n]+(?=[^\x00\s])|[{JA})][ \t\r\n]+\((?=[^\x00\s])")


class _Flow(HTMLParser):
    """A page's text as a browser runs it: inline text joined, each block apart (``\\x00``);
    the hidden parts and those in another language left out; and each attribute a screen
    reader says, on its own."""

    HIDDEN = {"script", "style", "template", "noscript"}
    SAID = ("aria-label", "title", "alt", "placeholder", "aria-description")

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.said: list[str] = []
        self.stack: list[tuple[str, bool, list[str], bool]] = []

    def _hidden(self) -> bool:
        return any(entry[1] for entry in self.stack)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        hidden = tag in self.HIDDEN or (tag != "html" and a.get("lang") not in (None, "ja"))
        if not self._hidden() and not hidden:
            self.said += [a[k] for k in self.SAID if a.get(k)]
        # A phone runs the last move's sentences on, and a deal end's (static/app.css: inline).
        parent = self.stack[-1][2] if self.stack else []
        apart = {"verdict", "big-news", "how", "revoke"} & set((a.get("class") or "").split())
        run_on = tag == "p" and ("last" in parent or ("deal-end" in parent and not apart))
        block = tag in BLOCKS and not run_on
        if block:
            self.parts.append("\x00")
        if tag not in _VOID:
            self.stack.append((tag, hidden, (a.get("class") or "").split(), block))

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                if self.stack[i][3]:
                    self.parts.append("\x00")
                del self.stack[i:]
                break
        else:
            if tag in BLOCKS:
                self.parts.append("\x00")

    def handle_data(self, data):
        if not self._hidden():
            self.parts.append(data)


_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


def spaced_joins(html: str, pattern: re.Pattern = SPACED) -> list[str]:
    """Each place a page shows a half-width space after a Japanese sentence's end (or where
    ``pattern`` finds one), in context."""
    flow = _Flow()
    flow.feed(html)
    found = []
    for text in ["".join(flow.parts), *flow.said]:
        found += [text[max(0, m.start() - 12) : m.end() + 12].replace("\x00", "¶") for m in pattern.finditer(text)]
    return found


def test_spaced_joins_finds_what_a_browser_draws():
    assert spaced_joins("<p>あります。 <strong>花子</strong>は…</p>") == ["¶あります。 花子は…¶"]
    assert spaced_joins("<p>あります。\n  花子は…</p>") != []
    assert spaced_joins('<p><span aria-label="一。 二">x</span></p>') != []
    # a block's end is no join, nor a gap before a button, nor text in another language
    assert spaced_joins("<ul><li>一。</li>\n<li>二。</li></ul><p>三。 <button>四</button></p>") == []
    assert spaced_joins('<p>一。<a lang="en">English. Here</a></p>') == []
    # the last move's sentences run on, on a phone: a space between them is drawn
    assert spaced_joins('<div class="last"><p>一。</p>\n  <p>二。</p></div>') != []
    assert spaced_joins('<section class="deal-end"><p>一。</p>\n<p>二。</p></section>') != []
    assert spaced_joins('<section class="deal-end"><p>一。</p>\n<p class="verdict">二。</p></section>') == []


# -- the pages a table reads in Japanese ---------------------------------------------------------------

#: Tute, 4 players: the dealer turns 4D; the third player drops KC on a heart lead while holding
#: hearts, and a heart later proves it (RULES.md 2.11).
TUTE_REVOKE = [
    {"type": "trump", "card": "4D"},
    *({"type": "play", "card": c} for c in ["2C", "3C", "7C", "5C", "2H", "KC", "QH", "5H", "7H", "6H", "3H", "4H"]),
]
#: Tute, 4 players: trick 1 is 7D AD 2D 4D, and its winner holds KD QD: a cante to sing (RULES.md 2.5).
TUTE_CANTE = [{"type": "trump", "card": "4D"}, *({"type": "play", "card": c} for c in ["7D", "AD", "2D", "4D"])]
FOUR = ["太郎", "花子", "次郎", "桜"]


def tute_pages(app) -> dict[str, str]:
    pages = {}
    revoke = Table(app, "tute", {"dealer": FOUR[-1]}, TUTE_REVOKE, players=FOUR)
    pages["tute revoke"] = revoke.page()
    cante = Table(app, "tute", {"dealer": FOUR[-1]}, TUTE_CANTE, players=FOUR)
    pages["tute cante"] = cante.page()
    pages["tute sang"] = cante.post_move({"type": "declare", "suit": "D", "player": "花子"})
    return pages


def tantony_pages(app) -> dict[str, str]:
    """Tantony's first deal played to its end: the 13th trick and its exchange, on the deal's end."""
    rng = random.Random(3)
    deck = [str(c) for c in tantony.pack(4)]
    rng.shuffle(deck)
    hands = {i: deck[i * 13 : (i + 1) * 13] for i in range(4)}
    s, moves = tantony.start(FOUR, {"dealer": FOUR[-1]}), []
    while s.deal == 1:
        v = tantony.view(s)
        if "give" in v["expects"]:
            move = {"type": "give", "to": v["room"][0]}
        else:
            seat = tantony.to_act(s)
            card = sorted(tantony.legal_plays(hands[seat], [c for _, c in s.trick]))[0]
            hands[seat].remove(card)
            move = {"type": "play", "card": card}
        s = tantony.apply(s, move)
        moves.append(move)
    return {"tantony deal end": Table(app, "tantony", {"dealer": FOUR[-1]}, moves, players=FOUR).page()}


def hundred_pages(app) -> dict[str, str]:
    t = Table(app, "hundred", {"dealer": "次郎"}, [{"type": "play", "card": "10D"}], players=["太郎", "花子", "次郎"])
    return {"100 bust confirm": t.post_move({"type": "play", "card": "5C"})}


@pytest.fixture(scope="module")
def ja_pages(tmp_path_factory) -> dict[str, str]:
    """Every page and state a table sees in Japanese, by name."""
    from tests.conftest import make_app

    app = make_app(tmp_path_factory.mktemp("ja-words"))
    pages: dict[str, str] = {}
    for game in games.GAMES:
        states = _states(app, game)
        CHOICES[game](app, states)
        pages |= {f"{game} {name}": html for name, html in states.items()}
    pages |= tute_pages(app) | tantony_pages(app) | hundred_pages(app)
    client = app.test_client()
    urls = ["/", "/rules/", "/games/new", "/games/nonesuch", "/players", "/players/1", "/stats"]
    for game in games.GAMES:
        rules = games.get(game)
        urls += [f"/rules/{game}", f"/rules/{game}/words", *_lab_urls(game)]
        urls += [f"/games/new?game={game}&start={start}" for start in rules.STARTS]
    for url in urls:
        pages[url] = client.get(url, headers=JAPANESE).get_data(as_text=True)
    return pages


def test_the_states_shown_are_the_ones_asked_for(ja_pages):
    assert "リボーク" in ja_pages["tute revoke"]
    assert 'class="choice' in ja_pages["100 bust confirm"]


def test_no_page_joins_japanese_sentences_with_a_half_width_space(ja_pages):
    found = {name: joins for name, html in ja_pages.items() if (joins := spaced_joins(html))}
    assert not found, found


def test_spaced_marks_finds_english_spacing_in_japanese():
    found = spaced_joins("<h2>第2ディール (集計): 太郎がディールの負け</h2>", SPACED_MARKS)
    assert len(found) == 2 and "ル (集" in found[0] and "): 太" in found[1]
    assert spaced_joins("<p>切り札: <strong>♥ ハート</strong></p>", SPACED_MARKS) != []
    assert spaced_joins("<p>切り札:<strong>♥ ハート</strong>(太郎が表に)</p>", SPACED_MARKS) == []
    assert spaced_joins('<p>太郎<span lang="en">: Ann (the dealer)</span></p>', SPACED_MARKS) == []
    assert spaced_joins("<a>ゲーム (CSV)</a>", SPACED_MARKS) != []
    assert spaced_joins("<p>次が出します(時計回り) (<a>100/99/98 4.2</a>)。</p>", SPACED_MARKS) != []
    assert spaced_joins("<p>次が出します(時計回り)(<a>100/99/98 4.2</a>)。</p>", SPACED_MARKS) == []


def test_no_page_puts_english_spaces_around_a_colon_or_parenthesis_in_japanese(ja_pages):
    """A label's colon and a parenthesis read as the catalog writes them (「切り札:ハート」,
    「第2ディール(集計)」), also where a template joins a label and what follows."""
    found = {name: joins for name, html in ja_pages.items() if (joins := spaced_joins(html, SPACED_MARKS))}
    assert not found, found


def test_the_revoke_banner_says_what_a_revoke_is(ja_pages):
    """リボーク is a loanword a family table may not know: the banner that flags one says what it is."""
    assert "リボーク（出し方の反則）" in ja_pages["tute revoke"]


def test_a_card_laid_down_is_said_in_one_japanese_sentence(ja_app):
    """「3♣を出しました:場に置きました」 read as two sentences joined by English punctuation:
    the board says it as Japanese does, the clauses run on (を出して場に置きました)."""
    layout = {"type": "layout", "cards": ["2S", "3H", "5D", "9C"]}
    board = Table(ja_app, "tablanette", {}, [layout]).post_move({"type": "play", "card": "4C"})
    last = board[board.index('<div class="last') :]
    last = re.sub(r"<[^>]+>", "", last[: last.index("</div>")]).strip()
    assert "を出して場に置きました。" in last and ":" not in last, last


# -- every refusal, worded in Japanese ----------------------------------------------------------------

#: A sample value for each param a refusal's text places (as the engines give them: cards as
#: codes, names, numbers, lists; an option or a game as its English label, which the web
#: translates). A param not here fails the test: give it a sample.
SAMPLES: dict[str, object] = {
    "player": "太郎",
    "name": "太郎",
    "other": "花子",
    "players": ["太郎", "花子"],
    "winner": "花子",
    "holder": "次郎",
    "giver": "桜",
    "turn": "花子",
    "to": "桜",
    "last": "次郎",
    "dealer": "健",
    "side": "太郎",
    "sides": "太郎, 花子",
    "room": "花子",
    "scores": {"太郎": 40, "花子": 12},
    "card": "QH",
    "cards": ["QH", "KH"],
    "tricks": 5,
    "proof": "7C",
    "king": "KS",
    "queen": "QS",
    "runt": "3D",
    "group": "2C 3D",
    "groups": ["2C+3D", "5H"],
    "legal": ["2C 3D 9S", "5H 9S", "another capture"],
    "choices": ["2C 3D 9S", "5H 9S"],
    "totals": [82, 102],
    "expected": ["a whole number", "text"],
    "suit": "H",
    "option": "Points to win",
    "game": "Tute Cabrón",
    "known": "shown in a cante",
    "duty": "Follow suit only (the seed text)",
    "sum": "7 × 2 = 14",
    "move": "QH",
    "kind": "castle",
    "sizes": "1, 2, 3, 4",
    **dict.fromkeys(
        "value total target low high count size least most deal trick n said before bonus points top deals hand "
        "worth listed packs round rounds pack taken counters quota line threshold left held".split(),
        7,
    ),
}
#: What a program sends or must send, kept as it is written (DESIGN.md's JSON API names fields
#: and values in Latin letters): a field, the values a field takes, the names a program may use.
TOKENS: dict[str, object] = {
    "field": "move.card",
    "char": "U+200B",  # a character by its code point (companion/names.py)
    "unicode_name": " ZERO WIDTH SPACE",  # its English name: the English message only
    "allowed": ["layout", "play", "tally"],
}
#: Codes whose ``known`` lists what a program may send (a game's moves, options, presets, the games).
KNOWN_TOKENS = {"unknown_move", "unknown_option", "unknown_preset", "unknown_game"}
#: A value quoted as a program wrote it: 'ZZ', "play"; and a card as a code (10D, QH): a card.
QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|\b(?:10|[2-9AJQK])[SHDC]\b")


def _every_refusal() -> list[tuple[str, str, str | None, set[str]]]:
    """(where, code, English text, rule) of every refusal each module makes."""
    from tests.test_refusals import MODULES, PLACE, refusals

    out = []
    for path in MODULES:
        for r in refusals(path):
            if not r["code"] or not r["text"]:
                continue  # a Reason passed on
            for text in r["text"]:
                for rule in r["rules"] or [None]:
                    out.append((f"{path}:{r['line']}", r["code"][0], text, rule, set(PLACE.findall(text)) - {"rule"}))
    return out


def test_every_refusal_reads_in_japanese(ja_app):
    from companion.errors import Reason
    from companion.i18n import say

    found = _every_refusal()
    assert len({code for _, code, *_ in found}) > 200
    wrong = {}
    with ja_app.test_request_context(headers=JAPANESE):
        for where, code, text, rule, places in found:
            missing = places - SAMPLES.keys() - TOKENS.keys()
            assert not missing, f"{where} {code}: give {sorted(missing)} a sample"
            params = {k: TOKENS.get(k, SAMPLES.get(k)) for k in places}
            if code in KNOWN_TOKENS:
                params["known"] = "layout, play, tally"
            japanese = say(Reason(code, text, rule=rule, **params))
            shown = QUOTED.sub(" ", japanese)
            for kept in ("move.card", "layout, play, tally"):
                shown = shown.replace(kept, " ")
            leaked = [w for w in WORD.findall(shown) if w not in NOT_ENGLISH]
            if leaked or not re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", japanese):
                wrong[f"{where} {code}"] = japanese
    assert not wrong, wrong


@pytest.fixture(scope="module")
def ja_app(tmp_path_factory):
    from tests.conftest import make_app

    return make_app(tmp_path_factory.mktemp("ja-refusals"))


# -- one word per concept: the glossary ----------------------------------------------------------------

GLOSSARY = ROOT / "docs" / "GLOSSARY.md"


def glossary_rows() -> list[dict[str, str]]:
    """The glossary's table: concept, 日本語, English, the words not used, the seed passage."""
    rows = []
    for line in GLOSSARY.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        if len(cells) == 5 and cells[0] not in ("concept", "---"):
            rows.append(dict(zip(("concept", "ja", "en", "rejected", "seed"), cells)))
    return rows


def rejected_terms() -> dict[str, str]:
    """Each word the glossary does not use, and the concept it would name."""
    return {t.strip(): row["concept"] for row in glossary_rows() for t in row["rejected"].split(",") if t.strip()}


def test_the_glossary_names_each_concept_once_with_its_source():
    rows = glossary_rows()
    assert len(rows) >= 30
    concepts = [r["concept"] for r in rows]
    assert len(concepts) == len(set(concepts))
    for must in (
        "dealer",
        "round",
        "deal",
        "trick",
        "trump",
        "capture",
        "sweep",
        "revoke",
        "split partners",
        "double win",
    ):
        assert any(r["concept"].startswith(must) for r in rows), must
    for row in rows:
        assert row["ja"] and row["en"] and row["seed"], row
        assert re.search(r"\[S00[0-4]\]|no seed word", row["seed"]), row  # a seed's passage, or says there is none


def test_the_japanese_catalog_uses_no_word_the_glossary_rejects(japanese):
    rejected = rejected_terms()
    assert "親" in rejected and "リバース" in rejected
    found = []
    for message in japanese:
        if not message.id:
            continue
        for text in message.string if isinstance(message.string, tuple) else (message.string,):
            found += [f"{term} ({rejected[term]}): {message.id!r} → {text}" for term in rejected if term in text]
    assert not found, "\n".join(found)


def test_the_japanese_catalog_counts_and_refuses_one_way(japanese):
    """One counter for loss marks (「負け印6個」, never 「6つ」 beside it), and one tense for a tap
    that was not recorded (「記録されませんでした」: it was refused or lost, past), while
    「まだ記録されていません」 says a tap is still waiting."""
    strings = {m.id if isinstance(m.id, str) else m.id[0]: m.string for m in japanese if m.id}
    texts = {k: v if isinstance(v, str) else " ".join(v) for k, v in strings.items()}
    assert [t for t in texts.values() if re.search(r"負け印[^。]*?(\d|%\(\w+\)s)つ", t)] == []
    assert [t for t in texts.values() if re.search(r"負け印[^。]*?(\d|%\(\w+\)s)個", t)] != []
    not_recorded = {k: t for k, t in texts.items() if k.startswith("Not recorded:")}
    assert len(not_recorded) >= 5
    assert {k: t for k, t in not_recorded.items() if not t.startswith("記録されませんでした：")} == {}
    assert texts[next(k for k in texts if k.startswith("Not recorded yet:"))].startswith("まだ記録されていません：")


#: What a program reads as it is written, inside a Japanese message: a placeholder, a tag, an
#: entity, an address, a quoted value or field, a JSON example.
AS_WRITTEN = re.compile(r"""%\(\w+\)[sdr]|%%|<[^>]*>|&\w+;|https?://[^\s)）]+|'[^']*'|"[^"]*"|\{[^}]*\}""")


def test_the_japanese_catalog_writes_full_width_punctuation(japanese):
    """Japanese sentences take full-width 「：」「（」「）」「？」 (the re-read of issue 44: a
    half-width 「)」 lets 「)。」 wrap alone on a narrow screen), with no space after 「：」 or 「？」
    (「しましたか？1または11」, never 「しましたか? 1」): half-width only in what a program reads
    (``AS_WRITTEN``)."""
    found = []
    for message in japanese:
        if message.id:
            for text in message.string if isinstance(message.string, tuple) else (message.string,):
                prose = AS_WRITTEN.sub("X", text)
                if re.search(r"[:()?]|[：？] ", prose):
                    found.append(text)
    assert not found, found


def test_the_japanese_punctuation_check_finds_half_width():
    for wrong in ("切り札: ハート", "(時計回り)", "宣言しましたか? 1", "1番と3番(北、南)"):
        assert re.search(r"[:()?]|[：？] ", AS_WRITTEN.sub("X", wrong)), wrong
    for right in (
        "%(name)sは%(card)rを出せません（%(rule)s）。",
        '例：{"Ann":[20, 40]}',
        "'cards'（陣営 → 取ったカード）",
    ):
        assert not re.search(r"[:()?]|[：？] ", AS_WRITTEN.sub("X", right)), right


@pytest.fixture(scope="module")
def japanese():
    from babel.messages.pofile import read_po

    with (ROOT / "companion" / "translations" / "ja" / "LC_MESSAGES" / "messages.po").open("rb") as f:
        return read_po(f, locale="ja")


def _texts(japanese) -> dict[str, str]:
    """Each message's Japanese by its (singular) id, plural forms joined."""
    out = {}
    for m in japanese:
        if m.id:
            out[m.id if isinstance(m.id, str) else m.id[0]] = (
                m.string if isinstance(m.string, str) else " ".join(m.string)
            )
    return out


def test_a_side_is_a_jinei_everywhere(japanese):
    """A side (a player or a team, GLOSSARY.md) is 陣営 wherever the English says side, and in
    Tantony's play-on line (with 3 players or split partners there are no teams): never 側 or
    チーム; the other side (who confirms results) is 相手陣営."""
    texts = _texts(japanese)
    sides = {k: t for k, t in texts.items() if re.search(r"\bsides?\b", re.sub(r"%\(\w+\)[sr]", "", k))}
    sides |= {k: t for k, t in texts.items() if "no team is alone" in k}
    assert len(sides) >= 15
    assert {k: t for k, t in sides.items() if re.search("側|チーム", t)} == {}
    other = {k: t for k, t in texts.items() if "the other side" in k}
    assert len(other) >= 4 and {k: t for k, t in other.items() if "相手陣営" not in t} == {}


def test_a_player_is_numbered_one_way(japanese):
    """「1番」 on the form, in its refusal and across a table's seats (「1番・3番 対 2番・4番」)."""
    texts = _texts(japanese)
    assert texts["Player %(n)s"] == "%(n)s番"
    assert texts["Player %(n)s has no name: choose a dealer among the players."].startswith("%(n)s番に")
    seated = [t for k, t in texts.items() if "players 1 and 3" in k or "seats 1+3" in k]
    assert len(seated) == 3 and all("1番・3番" in t and "2番・4番" in t for t in seated), seated


def test_the_preset_summaries_write_ranks_one_way(japanese):
    """The one-tap starts sit side by side on the form: a rank is a letter in every summary
    (「Jで逆回り」, 「Aは1か10」), never a word in one and a letter in the next."""
    texts = _texts(japanese)
    hints = {s.hint: texts[s.hint] for game in games.GAMES for s in games.get(game).STARTS.values()}
    assert len(hints) >= 15
    assert {k: t for k, t in hints.items() if re.search("エース|ジャック|クイーン|キング", t)} == {}


def test_the_reviewed_lines_read_whole(japanese):
    """Each line the native re-read found clipped, tautological or said twice, as Japanese says it."""
    texts = _texts(japanese)
    assert texts["Nothing to undo: no move is in effect."].count("ありません") == 1
    assert not texts["Played %(card)s, swept %(cards)s."].endswith("タブラネット。")  # no clipped noun ending
    bust = texts["bust: over %(target)s"]
    assert not ("超過" in bust and "超え" in bust)
    runt = texts[next(k for k in texts if k.startswith("As the 13th trick: %(scorer)s scores the runt"))]
    assert runt.split("、")[0].count("得点") <= 2, runt
    for too in (
        "%(players)s took no trick and lose too (%(option)s).",
        "%(players)s took no trick and loses too (%(option)s).",
    ):
        assert "も負け" in texts[too], texts[too]
    assert texts["%(name)s can't go?"].startswith("%(name)sは出せませんか")
    assert texts["Can't go?"].startswith("出せませんか")
    assert texts["%(name)s sings %(n)s in %(suit)s"].endswith("宣言しました")  # a sentence, with its verb


# -- said once: where a page joins what two messages say -------------------------------------------------

ENGLISH = {"Accept-Language": "en"}


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip()


@pytest.mark.parametrize("language", [JAPANESE, ENGLISH], ids=["ja", "en"])
def test_a_tute_deal_end_names_its_loser_once(ja_app, language):
    """The heading says who lost the deal; the line under it says why (「太郎の合計が最高の80点です」),
    not 「太郎がディールの負けです。」 again before the reason (which may itself say 「それ以外の全員が負けです」)."""
    from companion import web

    sample = web.get("tute").SAMPLE["finished"]
    table = Table(ja_app, "tute", sample["options"], sample["moves"])
    html = table.referee.get(f"/games/{table.id}", headers=language).get_data(as_text=True)
    end = html[html.index('<section class="deal-end"') :]
    end = re.sub(r"<table>.*?</table>", "", end[: end.index("</section>")], flags=re.S)
    said = _text(end)
    heading, why = _text(end[: end.index("</h2>")]), _text(end[end.index("</h2>") :])
    if language is JAPANESE:
        assert "太郎の負け" in heading and "負け" not in why, said
    else:
        assert "太郎 loses the deal" in heading and "the deal" not in why, said


def test_nothing_to_undo_is_said_once(ja_app):
    """Undo with no move in effect is refused in one sentence, not twice:
    「取り消す手はありません。有効な手がありません。」."""
    table = Table(ja_app, "hundred", {"dealer": "次郎"}, players=["太郎", "花子", "次郎"])
    answer = table.referee.post(
        f"/games/{table.id}/undo", data={"version": "0"}, headers=JAPANESE | {"HX-Request": "true", "HX-Target": "live"}
    )
    assert answer.status_code == 422
    said = _text(answer.get_data(as_text=True))
    assert "取り消せる手はありません。" in said and said.count("ありません") == 1, said


def test_no_page_puts_a_space_after_a_fraction_slash(ja_pages):
    """A total out of the target reads 「0/100」, not 「0/ 100」."""
    found = {name: joins for name, html in ja_pages.items() if (joins := spaced_joins(html, re.compile(r"\d/\s+\d")))}
    assert 'class="of">/100<' in ja_pages["hundred start"] and not found, found


#: Half-width 「:」「(」「)」「?」 touching Japanese text on a page (a template's join of a
#: message and what follows it, or a rules page's own words).
HALF_WIDTH = re.compile(rf"[{JA}。、][:()?]|[:()?][{JA}]")


def test_no_page_puts_half_width_punctuation_in_japanese(ja_pages):
    found = {name: joins for name, html in ja_pages.items() if (joins := spaced_joins(html, HALF_WIDTH))}
    assert not found, found


# -- partners named as a Japanese table writes a pair ----------------------------------------------------


def test_a_side_of_partners_is_named_in_each_language(ja_app):
    from companion.i18n import side_name

    with ja_app.test_request_context(headers=JAPANESE):
        assert side_name(["健太郎", "翔太"]) == side_name("健太郎 & 翔太") == "健太郎・翔太"
        assert side_name(["健太郎"]) == "健太郎"
    with ja_app.test_request_context(headers=ENGLISH):
        assert side_name(["Ann", "Cat"]) == side_name("Ann & Cat") == "Ann & Cat"


def test_partners_read_joined_with_a_nakaguro_on_every_page(ja_app, ja_pages):
    """「太郎・次郎」, never 「太郎 & 次郎」: on Tantony's scoreboard, deal end and chart, and on
    Tablanette's tally form for partners (its labels, its chips' names, its notes)."""
    tantony_end = ja_pages["tantony deal end"]
    assert "太郎・次郎" in tantony_end and "&amp; " not in re.sub(r'href="[^"]*"|hx-get="[^"]*"', "", tantony_end)
    tally = Table(ja_app, "tablanette", {"partnership": True}, players=FOUR)
    for path in ("", "/tally"):
        page = re.sub(r'href="[^"]*"|hx-get="[^"]*"', "", tally.page(path))
        assert "太郎・次郎" in page and "花子・桜" in page and "&amp; " not in page, path
    english = tally.referee.get(f"/games/{tally.id}/tally", headers=ENGLISH).get_data(as_text=True)
    assert "太郎 &amp; 次郎" in english
