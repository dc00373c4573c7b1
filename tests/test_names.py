"""One person, one name (issues 30 and 44): names stored NFC and stripped, invisible
characters refused with the character named, look-alike names one player on the roster, and
never two seats of one game, without two names of one script taken for one; m015, m016 and
m017 carry an older database over without merging anyone."""

import json
import sqlite3
import unicodedata
from contextlib import closing, contextmanager

import psycopg
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion import names, stats
from companion.errors import OptionError
from companion.store import NameTaken, SqliteStore, migrations, open_store
from tests.conftest import form_values


@pytest.mark.parametrize(
    "typed, char",
    [
        ("Zed\u200b", "U+200B ZERO WIDTH SPACE"),
        ("\ufeffZed", "U+FEFF ZERO WIDTH NO-BREAK SPACE"),
        ("Z\x00ed", "U+0000"),
        ("\u202eZed", "U+202E RIGHT-TO-LEFT OVERRIDE"),
        ("Ze\u2028d", "U+2028 LINE SEPARATOR"),
        ("Ze\td", "U+0009"),
        ("Zed\ue000", "U+E000"),
        # Default-ignorable code points (issue 30's audit), drawn as nothing (a variation
        # selector is dropped instead: test_a_variation_selector_is_dropped):
        ("Ze\u034fd", "U+034F COMBINING GRAPHEME JOINER"),
        ("Zed\u17b4", "U+17B4 KHMER VOWEL INHERENT AQ"),
        ("Zed\u17b5", "U+17B5 KHMER VOWEL INHERENT AA"),
        ("Zed\u180b", "U+180B MONGOLIAN FREE VARIATION SELECTOR ONE"),
        ("Zed\u115f", "U+115F HANGUL CHOSEONG FILLER"),
        ("Zed\u1160", "U+1160 HANGUL JUNGSEONG FILLER"),
        ("Zed\u3164", "U+3164 HANGUL FILLER"),
        ("Zed\uffa0", "U+FFA0 HALFWIDTH HANGUL FILLER"),
    ],
)
def test_an_invisible_character_is_refused_by_name(typed, char):
    with pytest.raises(OptionError) as refused:
        names.clean(typed)
    assert refused.value.code == "name_invisible" and str(refused.value).endswith(
        f"({char}): type the name again without it"
    )
    assert refused.value.params["name"] == "Zed"  # the name without it, as the person typed it


def test_a_lone_combining_accent_is_refused():
    with pytest.raises(OptionError) as refused:
        names.clean("\u0301")
    assert refused.value.code == "name_lone_accent"
    with pytest.raises(OptionError):
        names.clean(" \u0301Zed")


@pytest.mark.parametrize(
    "typed, code, char",
    [
        ("\u3164", "name_unseen", "U+3164 HANGUL FILLER"),
        ("\u2800", "name_no_letter", "U+2800 BRAILLE PATTERN BLANK"),
        ("\u2800\u2800", "name_no_letter", "U+2800 BRAILLE PATTERN BLANK"),
        ("A" + "\u0301" * 23, "name_stacked_accents", "U+0301 COMBINING ACUTE ACCENT"),
        ("Ann" + "\u0300\u0301\u0302", "name_stacked_accents", "U+0302 COMBINING CIRCUMFLEX ACCENT"),
    ],
)
def test_a_name_that_shows_nothing_or_runs_over_the_lines_is_refused(typed, code, char):
    """A blank-looking name and a stack of accents (issue 30's audit), each with the character named."""
    with pytest.raises(OptionError) as refused:
        names.clean(typed)
    assert refused.value.code == code and char in str(refused.value)


def test_two_accents_on_a_letter_and_other_scripts_marks_are_names():
    for name in ("Nguyễn Thị Ánh", "ệ", "ที่", "क्षिति", "が", "José", "Zoë", "健太郎", "ひなた", "ユウキ"):
        assert names.clean(name) == unicodedata.normalize("NFC", name)


def test_names_are_stored_composed_and_stripped():
    assert names.clean("  Zoe\u0301 ") == "Zoé"  # e + combining acute, composed
    assert names.clean("山田\u3000太郎") == "山田\u3000太郎"  # a Japanese name's full-width space stays inside
    assert names.clean("A" * 24) == "A" * 24
    with pytest.raises(OptionError) as long:
        names.clean("A" * 25)
    assert long.value.code == "name_too_long"
    with pytest.raises(OptionError) as empty:
        names.clean("   ")
    assert empty.value.code == "name_empty"


@pytest.mark.parametrize("a, b", [("Zed", "ZED"), ("Ｚｅｄ", "zed"), ("Zoe\u0301", "ZOÉ"), ("Straße", "STRASSE")])
def test_two_seats_with_one_name_are_refused(a, b):
    assert names.key(a) == names.key(b)
    with pytest.raises(OptionError) as alike:
        names.check_seats(["Ann", a, b])
    assert alike.value.code == "names_alike" and alike.value.params["seat"] == 2


@pytest.mark.parametrize(
    "a, b",
    [
        ("\u0410nn", "Ann"),  # Cyrillic capital A
        ("B\u03bfb", "Bob"),  # Greek small omicron
        ("J\u043e\u0435", "Joe"),  # Cyrillic o and ie
        ("\u0392en", "Ben"),  # Greek capital beta
        ("\u039ded", "Ned"),  # Greek capital nu (its small form looks like v)
        ("\u0406van", "ivan"),  # Cyrillic capital I, and case folded
        ("Ian", "ian"),  # case folded (UTS #39's skeleton alone would make I an l)
        ("Ｋｉｍ", "KIM"),
    ],
)
def test_names_that_look_the_same_are_one_person(a, b):
    """Issue 30's audit: a name and its look-alike in another script share a key (the letters
    of another script as the ones they imitate, UTS #39's confusables; case folded), so one
    table refuses them as it refuses Zed and ZED."""
    assert names.key(a) == names.key(b)
    with pytest.raises(OptionError) as alike:
        names.check_seats([a, b])
    assert alike.value.code == "names_alike"


@pytest.mark.parametrize(
    "a, b",
    [("An\u034fn", "Ann"), ("Ann\u17b4", "Ann"), ("Ann\u180b", "Ann"), ("Ann\u115f", "Ann")],
)
def test_a_name_with_a_default_ignorable_is_refused_at_the_table(a, b):
    with pytest.raises(OptionError) as refused:
        names.check_seats([a, b])
    assert refused.value.code == "name_invisible" and refused.value.params["seat"] == 0


def test_a_variation_selector_is_dropped():
    """A phone's emoji keyboard types ❤️ as U+2764 U+FE0F: the selector, unseen, only chooses
    how the heart is drawn. Refused, the person could not find what to take out; dropped,
    "Ann" with one is Ann, at the table and on the roster."""
    assert names.clean("ゆき❤\ufe0f") == "ゆき❤" and names.clean("Zed\ufe00") == "Zed"
    assert names.clean("Zed\U000e0100") == "Zed"  # the supplement's selectors too
    for a in ("Ann\ufe0f", "Ann\ufe00"):
        with pytest.raises(OptionError) as refused:
            names.check_seats([a, "Ann"])
        assert refused.value.code == "names_alike"


def test_names_that_look_different_stay_apart():
    """Japanese names, accents and kana against kanji keep their own keys."""
    table = ["健太郎", "健太", "さくら", "サクラ", "ひなた", "美奈子", "José", "Jose", "Zoë", "Zoe", "Ann", "Anna"]
    assert names.check_seats(table) == table
    assert len({names.key(n) for n in table}) == len(table)


def test_the_store_refuses_look_alike_seats_and_matches_the_roster_by_key(tmp_path):
    store = SqliteStore(tmp_path / "names.db")
    with pytest.raises(OptionError):
        store.create("tablanette", ["Zed", "ZED"])
    with pytest.raises(OptionError):
        store.create("tablanette", ["Zed\u200b", "Ann"])
    store.create("tablanette", ["Zed ", "Ann"], {"dealer": " Zed"})
    store.create("tablanette", ["ＺＥＤ", "ann"])
    assert [(p["name"], p["games"]) for p in store.roster()] == [("Zed", 2), ("Ann", 2)]
    # A look-alike joins the player it looks like; renaming someone to one is "taken".
    store.create("tablanette", ["Ben", "\u0410nn"])
    roster = {p["name"]: p for p in store.roster()}
    assert roster["Ann"]["games"] == 3 and "\u0410nn" not in roster
    with pytest.raises(NameTaken) as taken:
        store.rename_player(roster["Ben"]["id"], "\u0410NN")
    assert taken.value.other == roster["Ann"]["id"]
    with pytest.raises(OptionError):
        store.rename_player(roster["Ben"]["id"], "Ann\u034f")
    with pytest.raises(NameTaken):  # the selector dropped, it is Ann's name
        store.rename_player(roster["Ben"]["id"], "Ann\ufe0f")
    assert store.player(roster["Ben"]["id"])["name"] == "Ben"


def test_the_api_and_the_form_say_which_name_and_which_character(client):
    refused = client.post("/api/games", json={"game": "tablanette", "players": ["Zed", "zed"]})
    assert refused.status_code == 422 and refused.get_json()["code"] == "names_alike"
    refused = client.post("/api/games", json={"game": "tablanette", "players": ["Ann", "Zed\u202e"]})
    assert refused.status_code == 422 and "U+202E RIGHT-TO-LEFT OVERRIDE" in refused.get_json()["error"]
    form = form_values(client.get("/games/new").get_data(as_text=True))
    page = client.post("/games/new", data=form | {"player0": "Zed", "player1": "ZED"})
    assert page.status_code == 422
    body = page.get_data(as_text=True)
    # Beside the second seat's field, the one to change.
    second = body.split('id="player1"')[1].split('class="field')[0]
    assert "ZED and Zed are the same name" in second
    page = client.post("/games/new", data=form | {"player0": "Ann", "player1": "Z\u200bed"})
    assert page.status_code == 422 and "U+200B ZERO WIDTH SPACE" in page.get_data(as_text=True)
    assert client.application.extensions["store"].roster() == []


def an_older_database(path) -> None:
    """A database as m014 left it, with what older versions let through: "Ｚed" and "Zed"
    two players (ASCII case alone told names apart), a game seating "Bob" twice (Bob and
    BOB were one player), and a name with a zero-width space."""
    store = SqliteStore(path)
    store.create("tablanette", ["Zed", "Ann"])
    store.create("tablanette", ["Bob", "Cy"])
    wide, _ = store.create("tablanette", ["Ｚed", "Ann"])
    store.create("tablanette", ["Amyx", "Bo"])
    store.close()
    with closing(sqlite3.connect(path, isolation_level=None)) as db:
        db.execute("DROP INDEX players_by_key")
        db.execute("DROP INDEX seats_one_per_player")
        db.execute("DROP TABLE roster_changes")
        db.execute("ALTER TABLE players DROP COLUMN name_key")
        db.execute("DELETE FROM companion_migrations WHERE name = 'm015_one_person_one_name'")
        db.execute("CREATE UNIQUE INDEX players_by_name ON players (name COLLATE NOCASE)")
        zed = db.execute("INSERT INTO players (name, created, last_played) VALUES ('Ｚed', '', '')").lastrowid
        db.execute("UPDATE seats SET player_id = ? WHERE game_id = ? AND seat = 0", (zed, wide["id"]))
        bob, cy = (db.execute("SELECT id FROM players WHERE name = ?", (n,)).fetchone()[0] for n in ("Bob", "Cy"))
        game_id = db.execute("SELECT game_id FROM seats WHERE player_id = ?", (cy,)).fetchone()[0]
        db.execute("UPDATE seats SET player_id = ? WHERE game_id = ? AND seat = 1", (bob, game_id))
        db.execute("DELETE FROM players WHERE id = ?", (cy,))
        db.execute("UPDATE players SET name = 'Amy​x' WHERE name = 'Amyx'")


def test_m015_tells_look_alikes_apart_without_merging_anyone(tmp_path):
    path = tmp_path / "old.db"
    an_older_database(path)
    store = SqliteStore(path)
    roster = {p["name"]: p for p in store.roster()}
    # "Ｚed" was its own player; now that its key is Zed's, it is numbered, not merged.
    assert {"Zed", "Ｚed (2)", "Bob", "Bob (2)", "Amy\u200bx"} <= set(roster)
    assert roster["Zed"]["games"] == 1 and roster["Ｚed (2)"]["games"] == 1
    # The game that seated Bob twice: its second seat is a player of its own.
    assert roster["Bob"]["games"] == 1 and roster["Bob (2)"]["games"] == 1
    assert [
        (c["kind"], c["before"], c["after"], c["game_id"]) for c in store.roster_changes(roster["Bob (2)"]["id"])
    ] == [("rename", "Bob", "Bob (2)", None)]
    # A name that would now be refused keeps working in its game, and matches itself.
    assert stats.record(store, roster["Amy\u200bx"]["id"])["tablanette"]["played"] == 1
    # From now on one person is one name.
    with pytest.raises(sqlite3.IntegrityError):
        store.query("INSERT INTO players (name, name_key, created, last_played) VALUES ('ZED', 'zed', '', '')")
    row, _ = store.create("tablanette", ["zed", "Ann"])
    assert json.loads(store.query("SELECT players FROM games WHERE id = ?", (row["id"],))[0][0]) == ["zed", "Ann"]
    assert {p["name"]: p["games"] for p in store.roster()}["Zed"] == 2


def test_m015_to_m017_are_in_the_migrations():
    assert migrations.known()[14:17] == [
        "m015_one_person_one_name",
        "m016_names_compared_as_they_look",
        "m017_names_of_one_script_kept_apart",
    ]


def nfkc_casefold(name: str) -> str:
    """:func:`names.key` as m015 left it (before m016)."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())


def test_m016_tells_apart_the_look_alikes_it_finds_without_merging_anyone(tmp_path):
    """A database as m015 left it: "\u0410nn" (a Cyrillic A) was a player of her own beside
    Ann, once at Ann's table, and "Dee" with a variation selector was let through. m016 keys
    every name as it looks: the later look-alike is numbered, recorded as a rename by the
    upgrade, and both keep their games; the refused name keeps working."""
    path = tmp_path / "m015.db"
    store = SqliteStore(path)
    store.create("tablanette", ["Ann", "Ben"])
    together, _ = store.create("tablanette", ["Ann", "Cy"])
    store.create("tablanette", ["Cy", "Dee"])
    store.close()
    with closing(sqlite3.connect(path, isolation_level=None)) as db:
        for before, after in (("Cy", "\u0410nn"), ("Dee", "Dee\ufe0f")):
            db.execute(
                "UPDATE players SET name = ?, name_key = ? WHERE name = ?", (after, nfkc_casefold(after), before)
            )
        db.execute(
            "DELETE FROM companion_migrations WHERE name IN "
            "('m016_names_compared_as_they_look', 'm017_names_of_one_script_kept_apart')"
        )
    store = SqliteStore(path)
    roster = {p["name"]: p for p in store.roster()}
    alike = roster["\u0410nn (2)"]
    assert roster["Ann"]["games"] == 2 and alike["games"] == 2 and roster["Dee\ufe0f"]["games"] == 1
    assert [(c["kind"], c["before"], c["after"], c["game_id"]) for c in store.roster_changes(alike["id"])] == [
        ("rename", "\u0410nn", "\u0410nn (2)", None)
    ]
    seated = store.query("SELECT player_id FROM seats WHERE game_id = ? ORDER BY seat", (together["id"],))
    assert [r[0] for r in seated] == [roster["Ann"]["id"], alike["id"]]
    # From now on the look-alike is Ann: a new game's "\u0410NN" joins her, and a key is one player's.
    store.create("tablanette", ["\u0410NN", "Eve"])
    assert {p["name"]: p["games"] for p in store.roster()}["Ann"] == 3
    with pytest.raises(sqlite3.IntegrityError):
        store.query("INSERT INTO players (name, name_key, created, last_played) VALUES ('x', 'ann', '', '')")


# -- issue 44: one script's names kept apart, joiners and vowel marks ------------------------


@pytest.mark.parametrize("a, b", [("Amie", "Arnie"), ("Mami", "Marni"), ("Kim", "Kirn"), ("Sam", "Sarn"), ("Al", "AI")])
def test_two_names_of_one_script_are_two_people(a, b):
    """Issue 44: UTS #39's skeleton made ``m`` ``rn`` (and ``I`` ``l``), so Amie and Arnie
    could not sit at one table. Ordinary letters of one script are never mapped."""
    assert names.key(a) != names.key(b)
    assert names.check_seats([a, b]) == [a, b]


@pytest.mark.parametrize(
    "a, b",
    [
        ("J0hn", "John"),  # the digit zero inside a Latin name
        ("\u0408\u043e\u0435 Doe", "Joe Doe"),  # Cyrillic je, o and ie: most of the name is Latin
        ("\u0418\u0432a\u043d", "\u0418\u0432\u0430\u043d"),  # a Latin a in a Cyrillic name
        ("\u30e6\u4e00\u30ad", "\u30e6\u30fc\u30ad"),  # the kanji one for katakana's long vowel mark
        ("Zo\u0451", "Zo\u00eb"),  # Cyrillic yo: Cyrillic ie and a diaeresis
    ],
)
def test_a_character_of_another_script_is_the_letter_it_imitates(a, b):
    assert names.key(a) == names.key(b)
    with pytest.raises(OptionError) as alike:
        names.check_seats([a, b])
    assert alike.value.code == "names_alike"


ALPHABETS = {
    "Latin": "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZéèüöñçßø",
    "Cyrillic": "абвгдеёжзийклмнопрстуфхцчшщъыьэюяАБВГДЕЁЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯіїєґІЇЄҐјљњђћџ",
    "Greek": "αβγδεζηθικλμνξοπρστυφχψωςΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩάέήίόύώ",
    "Hebrew": "אבגדהוזחטיכךלמםנןסעפףצץקרשת",
    "Arabic": "ابتثجحخدذرزسشصضطظعغفقكلمنهويءآأؤإئةى",
    "Hiragana": "ぁあいうえおかがきぎくけこさしすせそただちっつてとなにぬねのはばぱひふへほ"
    "まみむめもゃやゅゆょよらりるれろわをん",
    "Katakana": "ァアイウエオカガキクケコサシスセソタチッツテトナニヌネノハバパヒフヘホ"
    "マミムメモャヤュユョヨラリルレロワヲンー",
}


@pytest.mark.parametrize("script", sorted(ALPHABETS))
def test_no_two_short_spellings_in_one_script_share_a_key_unless_case_makes_them_one(script):
    """Every spelling of one or two ordinary letters of a script (``rn`` and ``m``, ``cl``
    and ``d``, ``vv`` and ``w`` among them): keys equal only where folding case is."""
    letters = ALPHABETS[script]
    folded_by_key: dict[str, set[str]] = {}
    for text in [*letters, *(a + b for a in letters for b in letters)]:
        folded_by_key.setdefault(names.key(text), set()).add(names._folded(text))
    assert {k: f for k, f in folded_by_key.items() if len(f) > 1} == {}


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(sorted(ALPHABETS)).flatmap(
        lambda s: st.tuples(*[st.text(ALPHABETS[s], min_size=1, max_size=8)] * 2)
    )
)
def test_two_spellings_in_one_script_are_one_person_only_when_they_differ_by_case(pair):
    """Issue 44's rule, over the ordinary letters of seven scripts: the key never merges two
    spellings of one script that folding case and width does not."""
    a, b = pair
    assert (names.key(a) == names.key(b)) == (names._folded(a) == names._folded(b))


def test_persian_and_indic_joiners_and_emoji_sequences_are_names():
    """Issue 44: a Persian name with a zero-width non-joiner (علی‌رضا), an Indic half form, and
    an emoji built with zero-width joiners (👩‍💻, a skin tone, a flag) are names people type;
    the joiners are unseen by the key. Elsewhere a joiner is still an invisible character."""
    for name in (
        "\u0639\u0644\u06cc\u200c\u0631\u0636\u0627",
        "\u0915\u094d\u200d\u0937",
        "Ann \U0001f469\u200d\U0001f4bb",
        "Ann \U0001f469\U0001f3fd\u200d\U0001f4bb",
        "Bo \U0001f3f3\u200d\U0001f308",
    ):
        assert names.clean(name) == name
    assert names.key("\u0639\u0644\u06cc\u200c\u0631\u0636\u0627") == names.key("\u0639\u0644\u06cc\u0631\u0636\u0627")
    with pytest.raises(OptionError) as alike:
        names.check_seats(["\u0639\u0644\u06cc\u200c\u0631\u0636\u0627", "\u0639\u0644\u06cc\u0631\u0636\u0627"])
    assert alike.value.code == "names_alike"
    for typed in ("Z\u200ced", "Zed\u200d", "\u200dZed", "\u2764\u200dZed", "An\u200dn"):
        with pytest.raises(OptionError) as refused:
            names.clean(typed)
        assert refused.value.code == "name_invisible" and refused.value.params["name"] == "Zed".replace(
            "Zed", typed.replace("\u200c", "").replace("\u200d", "")
        )


@pytest.mark.parametrize(
    "pointed, plain",
    [
        ("\u0645\u064f\u062d\u064e\u0645\u064e\u0651\u062f", "\u0645\u062d\u0645\u062f"),  # Muhammad with harakat
        ("\u0645\u062d\u0640\u0645\u062f", "\u0645\u062d\u0645\u062f"),  # with a tatweel
        ("\u05de\u05b9\u05e9\u05c1\u05b6\u05d4", "\u05de\u05e9\u05d4"),  # Moshe with niqqud
        (
            "\u05d9\u05b4\u05e9\u05c1\u05b7\u05bc\u05d9",
            "\u05d9\u05e9\u05d9",
        ),  # Yishai: dagesh, shin dot, patah on one letter
    ],
)
def test_arabic_and_hebrew_names_with_and_without_vowel_marks_are_one_person(pointed, plain):
    assert names.clean(pointed) == unicodedata.normalize("NFC", pointed)
    assert names.key(pointed) == names.key(plain)
    with pytest.raises(OptionError) as alike:
        names.check_seats([plain, pointed])
    assert alike.value.code == "names_alike"


def test_a_hamza_is_a_letter_of_its_own_and_four_points_are_too_many():
    assert names.key("\u0623\u062d\u0645\u062f") != names.key("\u0627\u062d\u0645\u062f")  # أحمد, احمد
    with pytest.raises(OptionError) as stacked:
        names.clean("\u05e9\u05c1\u05bc\u05b7\u05bd")
    assert stacked.value.code == "name_stacked_accents" and stacked.value.params["n"] == 3


def test_the_roster_keeps_amie_and_arnie_apart_and_one_muhammad(database):
    store = open_store(database)
    try:
        store.create("tablanette", ["Amie", "Sam"])
        store.create("tablanette", ["Arnie", "Sarn"])
        store.create("tablanette", ["\u0645\u064f\u062d\u064e\u0645\u064e\u0651\u062f", "\u0410mie"])
        store.create("tablanette", ["\u0645\u062d\u0645\u062f", "Kim"])
        assert {p["name"]: p["games"] for p in store.roster()} == {
            "Amie": 2,
            "Sam": 1,
            "Arnie": 1,
            "Sarn": 1,
            "\u0645\u064f\u062d\u064e\u0645\u064e\u0651\u062f": 2,
            "Kim": 1,
        }
    finally:
        store.close()


@contextmanager
def raw(database):
    """An SQL connection of the test's own to ``database``: ``run(sql, params)`` with ``?``."""
    if database.startswith("sqlite:///"):
        with closing(sqlite3.connect(database.removeprefix("sqlite:///"), isolation_level=None)) as db:
            yield lambda sql, params=(): db.execute(sql, params).fetchall()
    else:
        with psycopg.connect(database, autocommit=True) as db:

            def run(sql, params=()):
                cursor = db.execute(sql.replace("?", "%s"), params)
                return cursor.fetchall() if cursor.description else []

            yield run


def test_m017_keys_every_name_again_without_merging_anyone(database):
    """A database as m016 left it (keys of UTS #39's skeleton: "Amie" keyed ``arnie``, the
    vowel marks kept): m017 keys every name as :func:`names.key` does now. Amie is found by
    her name again, Arnie is someone else, and the pointed Muhammad who was his own player
    is numbered beside the plain one, not merged: both keep their games."""
    store = open_store(database)
    store.create("tablanette", ["Amie", "\u0645\u062d\u0645\u062f"])
    later, _ = store.create("tablanette", ["Cy", "Kim"])
    store.close()
    pointed = "\u0645\u064f\u062d\u064e\u0645\u064e\u0651\u062f"
    with raw(database) as run:
        run("UPDATE players SET name = ? WHERE name = 'Cy'", (pointed,))
        for name, key in (("Amie", "arnie"), (pointed, names._folded(pointed))):
            run("UPDATE players SET name_key = ? WHERE name = ?", (key, name))
        run("DELETE FROM companion_migrations WHERE name = 'm017_names_of_one_script_kept_apart'")
    store = open_store(database)
    try:
        roster = {p["name"]: p for p in store.roster()}
        numbered = roster[f"{pointed} (2)"]
        assert roster["\u0645\u062d\u0645\u062f"]["games"] == 1 and numbered["games"] == 1
        assert [(c["kind"], c["before"], c["after"]) for c in store.roster_changes(numbered["id"])] == [
            ("rename", pointed, f"{pointed} (2)")
        ]
        seated = store.query("SELECT player_id FROM seats WHERE game_id = ? ORDER BY seat", (later["id"],))
        assert seated[0][0] == numbered["id"]
        store.create("tablanette", ["AMIE", "Arnie"])
        roster = {p["name"]: p["games"] for p in store.roster()}
        assert roster["Amie"] == 2 and roster["Arnie"] == 1
    finally:
        store.close()
