"""The schema, written once (issue 33): one list of migrations that SQLite and PostgreSQL
run alike, each plain SQL in the SQL both read, with what differs said by the
:class:`~companion.store.dialect.Dialect` (an auto-numbered key, a row-order column, a
trigger), and Python where data is rewritten (the engines replay old games).

``migrate(conn, dialect)`` applies those not yet recorded in ``companion_migrations``,
inside the caller's write transaction (the backend takes the database's write lock
first, so servers and workers starting together take turns). A database made by a newer
version (a migration this one does not know) is refused. SQLite databases made before
issue 33 recorded their migrations in sqlite-utils' ``_sqlite_migrations``: that record is
taken over once. Why no migration library: the data steps need the engines and the
store's own helpers on the store's connection, which speaks one SQL on both databases;
yoyo-migrations would hand them each driver's own placeholders, and Alembic brings
SQLAlchemy, a second way to speak SQL beside the store's.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable

from companion import games, names
from companion.store.dialect import Dialect
from companion.store.roster import _keep_figures, _seat_players
from companion.store.rows import (
    _add_deals,
    _dump_state,
    _dumps,
    _load_state,
    _now,
    _said,
    _snapshot_text,
    _summary,
    _time_played,
    _trimmed,
)

#: Where a database records the migrations applied to it: name, when.
TABLE = "companion_migrations"

Step = Callable[..., None]
#: Every migration, in order: ``(name, step(conn, dialect))``.
MIGRATIONS: list[tuple[str, Step]] = []


class NewerDatabase(ValueError):
    """The database was made by a newer version of companion: this one can't read it."""


def migration(step: Step) -> Step:
    MIGRATIONS.append((step.__name__, step))
    return step


def known() -> list[str]:
    return [name for name, _ in MIGRATIONS]


def run(conn, statements: list[str]) -> None:
    for statement in statements:
        conn.execute(statement)


@migration
def m001_games_and_moves(conn, dialect: Dialect) -> None:
    """Games and their move logs. The compound primary key is the (game_id, seq) index, and
    it makes a doubled seq impossible even if the version check were bypassed."""
    run(
        conn,
        [
            "CREATE TABLE games (id TEXT PRIMARY KEY, game TEXT NOT NULL, players TEXT NOT NULL, "
            "options TEXT NOT NULL, created TEXT NOT NULL, updated TEXT NOT NULL, version INTEGER NOT NULL DEFAULT 0, "
            f"state TEXT NOT NULL, key_hash TEXT NOT NULL, finished INTEGER DEFAULT 0, status TEXT DEFAULT ''"
            f"{dialect.order_column})",
            "CREATE TABLE moves (game_id TEXT REFERENCES games (id), seq INTEGER, move TEXT NOT NULL, "
            "time TEXT NOT NULL, undone INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (game_id, seq))",
        ],
    )
    if dialect.notifies:  # other servers' phones are told each move (live.py's hub listens)
        run(
            conn,
            dialect.trigger(
                "games_notify", "INSERT OR UPDATE OF version", "games", "PERFORM pg_notify('companion_games', NEW.id);"
            ),
        )


@migration
def m002_games_by_updated(conn, dialect: Dialect) -> None:
    conn.execute("CREATE INDEX idx_games_updated ON games (updated)")  # list_games: newest first


@migration
def m003_referees_links_archive(conn, dialect: Dialect) -> None:
    """Several referee phones per game, each with its own key, and one-use links.

    A game's keys move from ``games.key_hash`` to ``referees`` (one row a phone; a
    hand-over or "revoke" marks rows ``revoked``, never deletes them). ``links`` holds the
    hash of each "add a referee" / "hand over" token, its expiry and when it was used.
    """
    run(
        conn,
        [
            "CREATE TABLE referees (id TEXT PRIMARY KEY, game_id TEXT NOT NULL REFERENCES games (id), "
            f"key_hash TEXT NOT NULL, created TEXT NOT NULL, revoked TEXT{dialect.order_column})",
            "CREATE INDEX idx_referees_game_id ON referees (game_id)",
            "CREATE TABLE links (token_hash TEXT PRIMARY KEY, game_id TEXT NOT NULL REFERENCES games (id), "
            "kind TEXT NOT NULL, created TEXT NOT NULL, expires TEXT NOT NULL, used TEXT)",
            "CREATE INDEX idx_links_game_id ON links (game_id)",
        ],
    )
    for game_id, key_hash, created in conn.execute("SELECT id, key_hash, created FROM games").fetchall():
        conn.execute(
            "INSERT INTO referees (id, game_id, key_hash, created) VALUES (?, ?, ?, ?)",
            (secrets.token_urlsafe(6), game_id, key_hash, created),
        )
    run(
        conn,
        [
            "ALTER TABLE games DROP COLUMN key_hash",
            "ALTER TABLE games ADD COLUMN archived INTEGER NOT NULL DEFAULT 0",
        ],
    )


@migration
def m004_status_as_data(conn, dialect: Dialect) -> None:
    """A game's status in the list was an English sentence ("Won by Ann"); it becomes
    data the pages word at render time (so it can be said in any language)."""
    for game_id, game, state in conn.execute("SELECT id, game, state FROM games").fetchall():
        rules = games.get(game)
        finished, status = _summary(rules.view(rules.load(_load_state(state))))
        conn.execute("UPDATE games SET finished = ?, status = ? WHERE id = ?", (finished, status, game_id))


@migration
def m005_who_entered_each_move(conn, dialect: Dialect) -> None:
    """The audit trail for disputes: which referee phone entered each move, and which
    phone undid it and when. Phones are ``referees`` rows (their ids, never their keys).

    Nullable columns, so older moves keep NULL ("not recorded") and the ALTERs are cheap
    whatever the log's length; ``imported`` tells a transcript's moves (no phone entered
    them) from those older ones. No foreign key: ``delete`` removes moves before referees.
    """
    run(
        conn,
        [
            "ALTER TABLE moves ADD COLUMN referee TEXT",
            "ALTER TABLE moves ADD COLUMN imported INTEGER NOT NULL DEFAULT 0",
            "ALTER TABLE moves ADD COLUMN undone_by TEXT",
            "ALTER TABLE moves ADD COLUMN undone_time TEXT",
        ],
    )


def _replay_every_game(conn, only: str | None = None) -> None:
    """Rebuild each game's state (of the game ``only``, if given) by replaying its moves in
    effect, as undo does, so what the engines keep in it is as they now write it (before
    m014, a state holds every finished deal)."""
    sql = "SELECT id, game, players, options FROM games"
    rows = conn.execute(sql + " WHERE game = ?", (only,)) if only else conn.execute(sql)
    for game_id, game, players, options in rows.fetchall():
        rules = games.get(game)
        state = rules.start(json.loads(players), json.loads(options))
        try:
            for (move,) in conn.execute(
                "SELECT move FROM moves WHERE game_id = ? AND undone = 0 ORDER BY seq", (game_id,)
            ).fetchall():
                state = rules.apply(state, json.loads(move))
        except ValueError:  # a log the engine no longer accepts: its state stays (the pages show old words as they are)
            continue
        finished, status = _summary(rules.view(state))
        conn.execute(
            "UPDATE games SET state = ?, finished = ?, status = ? WHERE id = ?",
            (_dump_state(rules.dump(state)), finished, status, game_id),
        )


@migration
def m006_explanations_as_data(conn, dialect: Dialect) -> None:
    """The engines' explanations kept in a game's state (why a deal was lost, how a sweep
    scored, a revoke, a warning) were English sentences; they become data (a code and its
    params) the pages word in the reader's language. Each game's state is rebuilt by
    replaying its moves in effect, as undo does."""
    _replay_every_game(conn)


@migration
def m007_tallied_hands_say_how(conn, dialect: Dialect) -> None:
    """A tallied hand of 100/99/98 said who lost it twice ("Ann loses the hand. Ann lost the
    hand (tallied)."); its explanation now says how it is known. Its games are replayed as in m006."""
    _replay_every_game(conn, "hundred")


def _player_by_name_m008(conn, name: str, now: str) -> int:
    """The roster's player of this name (ASCII case aside), added if new: how m008 to m014
    matched names (m015 matches by :func:`names.key`)."""
    row = conn.execute("SELECT id FROM players WHERE lower(name) = lower(?)", (name,)).fetchone()
    if row is None:
        return conn.execute(
            "INSERT INTO players (name, created, last_played) VALUES (?, ?, ?) RETURNING id", (name, now, now)
        ).fetchone()[0]
    conn.execute("UPDATE players SET last_played = ? WHERE id = ?", (now, row[0]))
    return row[0]


#: The figures m008 gave each seat, as they were then (the app's ``games.FIGURES`` may have
#: more since: a figure added later comes with a migration of its own).
M008_FIGURES = ("deals", "points", "sweeps", "best_sweep", "cantes", "marks", "double")


@migration
def m008_players_and_seats(conn, dialect: Dialect) -> None:
    """The roster: each name typed once is a ``players`` row, offered again in the new-game
    form; ``seats`` links a game's seats to its players (renaming a player keeps their
    games) and keeps each side's figures for the statistics (``rules.figures``: deals,
    points, sweeps, cantes, marks, ...; ``won`` once the game is over), so the statistics
    are a SQL sum over seats, never a replay. Existing games are linked in the order they
    were created. The schema is written out, as every migration's is: a migration is
    history, and builds the same tables whenever it runs (issue 44)."""
    run(
        conn,
        [
            f"CREATE TABLE players (id {dialect.serial_key}, name TEXT NOT NULL, created TEXT NOT NULL, "
            "last_played TEXT NOT NULL)",
            "CREATE UNIQUE INDEX players_by_name ON players (lower(name))",
            "CREATE TABLE seats (game_id TEXT REFERENCES games (id), seat INTEGER, "
            "player_id INTEGER NOT NULL REFERENCES players (id), side TEXT NOT NULL, won INTEGER, "
            'draw INTEGER NOT NULL DEFAULT 0, "deals" INTEGER NOT NULL DEFAULT 0, "points" INTEGER NOT NULL DEFAULT 0, '
            '"sweeps" INTEGER NOT NULL DEFAULT 0, "best_sweep" INTEGER NOT NULL DEFAULT 0, '
            '"cantes" INTEGER NOT NULL DEFAULT 0, "marks" INTEGER NOT NULL DEFAULT 0, '
            '"double" INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (game_id, seat))',
            "CREATE INDEX idx_seats_player_id ON seats (player_id)",
        ],
    )
    rows = conn.execute("SELECT id, game, state, created FROM games ORDER BY created, rowid").fetchall()
    for game_id, game, state, created in rows:
        rules = games.get(game)
        view = rules.view(rules.load(_load_state(state)))
        _seat_players(conn, game_id, view, created, find=_player_by_name_m008)
        history = view["history"]
        _keep_figures(conn, rules, game_id, view, len(history), history=history, columns=M008_FIGURES)


#: The sums m009 kept in ``totals``, each of a seat's columns ({s}: the seat), as they were
#: then (the statistics' ``TOTALS`` may have more since, each with a migration of its own).
M009_TOTALS = {
    "played": "1",
    "finished": "CASE WHEN {s}.won IS NULL THEN 0 ELSE 1 END",
    "won": "coalesce({s}.won, 0)",
    "drawn": "{s}.draw",
    "deals": "{s}.deals",
    "points": "{s}.points",
    "sweeps": "{s}.sweeps",
    "cantes": "{s}.cantes",
    "marks": "{s}.marks",
    "doubles": '{s}."double"',
}


def _totals_bodies(sums: dict[str, str]) -> tuple[str, str]:
    """What a seat written adds to its player's ``totals`` row (``sums``: its columns, and
    what each adds), and what a seat removed takes away (the biggest sweep searched again
    only when the seat held it)."""
    family = "(SELECT game FROM games WHERE id = {s}.game_id)"
    add = (
        f"INSERT INTO totals (game, player_id, {', '.join(sums)}, best_sweep) VALUES ({family.format(s='NEW')}, "
        f"NEW.player_id, {', '.join(v.format(s='NEW') for v in sums.values())}, NEW.best_sweep) "
        f"ON CONFLICT (game, player_id) DO UPDATE SET {', '.join(f'{k} = totals.{k} + excluded.{k}' for k in sums)}, "
        "best_sweep = CASE WHEN excluded.best_sweep > totals.best_sweep THEN excluded.best_sweep "
        "ELSE totals.best_sweep END;"
    )
    best = (
        "(SELECT coalesce(max(s.best_sweep), 0) FROM seats s JOIN games g ON g.id = s.game_id "
        "WHERE s.player_id = OLD.player_id AND g.game = totals.game)"
    )
    mine = f"game = {family.format(s='OLD')} AND player_id = OLD.player_id"
    less = ", ".join(f"{k} = {k} - ({v.format(s='OLD')})" for k, v in sums.items())
    remove = (
        f"UPDATE totals SET {less}, "
        f"best_sweep = CASE WHEN OLD.best_sweep < best_sweep OR OLD.best_sweep = 0 THEN best_sweep ELSE {best} END "
        f"WHERE {mine}; DELETE FROM totals WHERE {mine} AND played = 0;"
    )
    return add, remove


@migration
def m009_totals_for_standings(conn, dialect: Dialect) -> None:
    """Standings at 10,000 games: each player's sums per game family are kept in ``totals``
    by triggers on ``seats``, so whatever writes seats (a deal's end, an undo, a merge, a
    deleted game, an import) keeps them right, and the standings read a row per player and
    family instead of summing every seat. Games by ``created``: the new-game form's
    latest tables. Its sums are its own (:data:`M009_TOTALS`), as m008's figures are."""
    sums = ", ".join(f"{k} INTEGER NOT NULL DEFAULT 0" for k in M009_TOTALS)
    summed = ", ".join(f"sum({v.format(s='s')})" for v in M009_TOTALS.values())
    add, remove = _totals_bodies(M009_TOTALS)
    run(
        conn,
        [
            "CREATE INDEX IF NOT EXISTS idx_games_created ON games (created)",
            f"CREATE TABLE totals (game TEXT NOT NULL, player_id INTEGER NOT NULL, {sums}, "
            "best_sweep INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (game, player_id))",
            *dialect.trigger("seats_add_totals", "INSERT", "seats", add),
            *dialect.trigger("seats_remove_totals", "DELETE", "seats", remove),
            *dialect.trigger("seats_change_totals", "UPDATE", "seats", f"{remove} {add}"),
            f"INSERT INTO totals (game, player_id, {', '.join(M009_TOTALS)}, best_sweep) SELECT g.game, s.player_id, "
            f"{summed}, max(s.best_sweep) "
            "FROM seats s JOIN games g ON g.id = s.game_id GROUP BY g.game, s.player_id",
        ],
    )


@migration
def m010_entries_applied_once(conn, dialect: Dialect) -> None:
    """A phone that lost its connection sends its waiting entries again when it is back,
    each with the id it gave it when tapped (``entry``): a move whose answer was lost on the
    way back is then recognised, not applied twice. Unique per game; NULL for moves
    entered without one (the API, a transcript, older moves)."""
    run(
        conn,
        ["ALTER TABLE moves ADD COLUMN entry TEXT", "CREATE UNIQUE INDEX moves_by_entry ON moves (game_id, entry)"],
    )


@migration
def m011_deals_confirmed_by_the_other_side(conn, dialect: Dialect) -> None:
    """Opponent confirmation, as Bridgemate does: a game whose referee asked the other side
    to confirm keeps how many of its finished deals that side confirmed (``confirmed``;
    NULL: not asked). The statistics count only those deals, and the game's result once
    every deal is confirmed."""
    conn.execute("ALTER TABLE games ADD COLUMN confirmed INTEGER")


@migration
def m012_snapshots_for_undo(conn, dialect: Dialect) -> None:
    """Undo in constant time (issue 17): every ``SNAPSHOT_EVERY`` moves a move keeps the
    game's state after it (``snapshot``), so undo replays at most that many moves from the
    latest snapshot in effect instead of the whole game. The partial index finds that
    snapshot without reading the moves between. Older games have none until their next
    moves: their undo replays from the start, as before."""
    run(
        conn,
        [
            "ALTER TABLE moves ADD COLUMN snapshot TEXT",
            "CREATE INDEX moves_snapshots ON moves (game_id, seq) WHERE snapshot IS NOT NULL",
        ],
    )


@migration
def m013_moves_say_themselves(conn, dialect: Dialect) -> None:
    """The move log without replaying the game (issue 17): each move keeps its words as the
    engine said them when it was entered (``said``: its narration, as data the pages word in
    the reader's language). Existing games are replayed once here to fill it, as the log
    page replayed them on every visit; a move the engine no longer accepts keeps NULL (the
    log shows the move as stored)."""
    conn.execute("ALTER TABLE moves ADD COLUMN said TEXT")
    for game_id, game, players, options in conn.execute("SELECT id, game, players, options FROM games").fetchall():
        rules = games.get(game)
        state = rules.start(json.loads(players), json.loads(options))
        rows = conn.execute("SELECT seq, move, undone FROM moves WHERE game_id = ? ORDER BY seq", (game_id,))
        for seq, move, undone in rows.fetchall():
            try:
                after = rules.apply(state, json.loads(move))
            except ValueError:
                continue
            conn.execute(
                "UPDATE moves SET said = ? WHERE game_id = ? AND seq = ?",
                (_said(rules, after, json.loads(move)), game_id, seq),
            )
            if not undone:
                state = after


@migration
def m014_finished_deals_stored_once(conn, dialect: Dialect) -> None:
    """A move that does not grow (issue 17): a finished deal's record is written once, in
    ``deals`` (``n`` counts from 1), and the game row keeps how many there are (``deals``)
    and, in its state, the last one only (what the engines read of it), so a move reads
    and writes the same few bytes at move 1,000 as at move 10. Snapshots keep the same
    trimmed state with the count it ends at: ``{"deals": n, "state": ...}``."""
    run(
        conn,
        [
            "CREATE TABLE deals (game_id TEXT NOT NULL REFERENCES games (id), n INTEGER NOT NULL, "
            "record TEXT NOT NULL, PRIMARY KEY (game_id, n))",
            "ALTER TABLE games ADD COLUMN deals INTEGER NOT NULL DEFAULT 0",
        ],
    )
    for game_id, state in conn.execute("SELECT id, state FROM games").fetchall():
        data = _load_state(state)
        history = data.get("history") or []
        _add_deals(conn, game_id, history, 1)
        conn.execute("UPDATE games SET state = ?, deals = ? WHERE id = ?", (_trimmed(data), len(history), game_id))
    rows = conn.execute("SELECT game_id, seq, snapshot FROM moves WHERE snapshot IS NOT NULL").fetchall()
    for game_id, seq, snapshot in rows:
        data = _load_state(snapshot)
        conn.execute(
            "UPDATE moves SET snapshot = ? WHERE game_id = ? AND seq = ?",
            (_snapshot_text(data, len(data.get("history") or [])), game_id, seq),
        )


def _numbered(name: str, taken: set[str]) -> str:
    """The name with the first number after it ("ZED (2)") whose key is not ``taken``."""
    n = 2
    while names.key(f"{name} ({n})") in taken:
        n += 1
    return f"{name} ({n})"


def _upgrade_renamed(conn, player_id: int, before: str, after: str, now: str) -> None:
    """A rename made by an upgrade (no game, no referee: the player's page says so)."""
    conn.execute(
        "INSERT INTO roster_changes (player_id, kind, time, before, after) VALUES (?, 'rename', ?, ?, ?)",
        (player_id, now, before, after),
    )


def _key_every_player(conn, now: str) -> set[str]:
    """Each player's ``name_key`` as :func:`names.key` gives it now (no unique index on it
    meanwhile). A player whose key an earlier one (by id) has is told apart by a number
    after their name ("ZED (2)"), recorded as a rename by the upgrade: nobody is merged
    without a referee, and both keep their games. Returns the keys taken."""
    taken: set[str] = set()
    for player_id, name in conn.execute("SELECT id, name FROM players ORDER BY id").fetchall():
        if names.key(name) in taken:
            new = _numbered(name, taken)
            conn.execute("UPDATE players SET name = ? WHERE id = ?", (new, player_id))
            _upgrade_renamed(conn, player_id, name, new, now)
            name = new
        taken.add(names.key(name))
        conn.execute("UPDATE players SET name_key = ? WHERE id = ?", (names.key(name), player_id))
    return taken


@migration
def m015_one_person_one_name(conn, dialect: Dialect) -> None:
    """One person, one name (issue 30): the roster matches names by :func:`names.key` (NFKC,
    case folded then; as they look since m016: ``name_key``, unique) instead of by ASCII
    case alone, a game seats a player once, and renames and merges are recorded
    (``roster_changes``: who did it, from the game whose referee right allowed it, when,
    from what to what; a merge keeps in ``detail`` what undoing it needs), so a merge can
    be undone. Two players whose names are now one key, or one player seated twice in a
    game, are told apart by a number after the later name ("ZED (2)"), recorded as a
    rename by the upgrade, so nobody is credited twice in a game and nothing is merged
    without a referee. Names typed before that would now be refused (an invisible
    character) keep working."""
    run(
        conn,
        [
            "ALTER TABLE players ADD COLUMN name_key TEXT",
            f"CREATE TABLE roster_changes (id {dialect.serial_key}, player_id INTEGER NOT NULL, kind TEXT NOT NULL, "
            "time TEXT NOT NULL, game_id TEXT, referee TEXT, before TEXT NOT NULL, after TEXT NOT NULL, "
            "other_id INTEGER, detail TEXT, undone TEXT)",
            "CREATE INDEX roster_changes_by_player ON roster_changes (player_id)",
            "DROP INDEX players_by_name",
        ],
    )
    now = _now()
    taken = _key_every_player(conn, now)
    twice = conn.execute(
        "SELECT s.game_id, s.seat, s.player_id, p.name, p.created, p.last_played FROM seats s "
        "JOIN players p ON p.id = s.player_id WHERE EXISTS (SELECT 1 FROM seats t WHERE t.game_id = s.game_id "
        "AND t.player_id = s.player_id AND t.seat < s.seat) ORDER BY s.game_id, s.seat"
    ).fetchall()
    for game_id, seat, _player_id, name, created, last_played in twice:
        new = _numbered(name, taken)
        taken.add(names.key(new))
        new_id = conn.execute(
            "INSERT INTO players (name, name_key, created, last_played) VALUES (?, ?, ?, ?) RETURNING id",
            (new, names.key(new), created, last_played),
        ).fetchone()[0]
        conn.execute("UPDATE seats SET player_id = ? WHERE game_id = ? AND seat = ?", (new_id, game_id, seat))
        _upgrade_renamed(conn, new_id, name, new, now)
    run(
        conn,
        [
            "CREATE UNIQUE INDEX players_by_key ON players (name_key)",
            "CREATE UNIQUE INDEX seats_one_per_player ON seats (game_id, player_id)",
        ],
    )


@migration
def m016_names_compared_as_they_look(conn, dialect: Dialect) -> None:
    """Names that look the same are one person (issue 30's audit): :func:`names.key` became
    UTS #39's confusable skeleton of the name with case folded, so a Cyrillic ``А`` in
    "Аnn" no longer makes a second Ann. Every ``name_key`` is computed again; two players
    whose names now share a key both stay, the later numbered ("Аnn (2)") as m015 did,
    so no one is merged without a referee. Names typed before that would now be refused
    (a variation selector, a braille blank) keep working in their games."""
    conn.execute("DROP INDEX players_by_key")
    _key_every_player(conn, _now())
    conn.execute("CREATE UNIQUE INDEX players_by_key ON players (name_key)")


@migration
def m017_names_of_one_script_kept_apart(conn, dialect: Dialect) -> None:
    """One person, one name, without merging two people (issue 44): :func:`names.key` maps
    only characters of another script than the name's own to the letters they imitate, so
    "Amie" is no longer "Arnie" (UTS #39's skeleton made ``m`` ``rn``), and it drops
    Arabic's and Hebrew's vowel marks and the joiners. Every ``name_key`` is computed again,
    as m016 did: two players whose names now share a key both stay, the later numbered
    ("مُحَمَّد (2)"), so no one is merged without a referee."""
    conn.execute("DROP INDEX players_by_key")
    _key_every_player(conn, _now())
    conn.execute("CREATE UNIQUE INDEX players_by_key ON players (name_key)")


@migration
def m018_hundred_variants_keep_their_rules(conn, dialect: Dialect) -> None:
    """A 100/99/98 variant brings its rule set (issue 44: ``hundred.PRESETS``, what the form's
    starts set), so ``{"variant": "99quentin"}`` ends a hand landing exactly on 99. A game
    stored before with the variant alone (made through the API or an import) was played with
    the options' defaults of the time: they are written into its options, so it replays as
    it was played. The values are this migration's own, as they were then."""
    then = {"exact_target": "play_on", "floor_at_zero": True, "unforced_bust": "loss"}
    presets = {
        "99quentin": ("exact_target",),
        "99tgames": ("floor_at_zero", "unforced_bust"),
        "99chicago": ("floor_at_zero", "unforced_bust"),
        "99jokerrules": ("floor_at_zero", "unforced_bust"),
        "99gonzo": ("floor_at_zero", "unforced_bust"),
    }
    for game_id, options in conn.execute("SELECT id, options FROM games WHERE game = 'hundred'").fetchall():
        given = json.loads(options)
        if not isinstance(given, dict) or not isinstance(given.get("variant"), str):
            continue
        missing = {name: then[name] for name in presets.get(given["variant"], ()) if name not in given}
        if missing:
            conn.execute("UPDATE games SET options = ? WHERE id = ?", (_dumps(given | missing), game_id))


@migration
def m019_corrections(conn, dialect: Dialect) -> None:
    """Corrections in place (issue 46, RULES.md 5.1): a referee replaces an earlier move of
    the log, and the moves after it are replayed on top. The move's row holds the move now
    in effect; each correction keeps what it replaced and with what, when and by which
    phone (``referee``, as a move's), numbered by the game's ``version`` it made (one
    correction may replace several moves: a later one that no longer fitted)."""
    conn.execute(
        "CREATE TABLE corrections (game_id TEXT NOT NULL REFERENCES games (id), version INTEGER NOT NULL, "
        "seq INTEGER NOT NULL, time TEXT NOT NULL, referee TEXT, before TEXT NOT NULL, before_said TEXT, "
        "after TEXT NOT NULL, after_said TEXT, PRIMARY KEY (game_id, version, seq))"
    )


@migration
def m020_time_played(conn, dialect: Dialect) -> None:
    """Statistics by period, with the time played (issue 46): each game keeps its time played
    (``seconds_played``: from its first entry to its last, a pause over 30 minutes left out),
    added to by each move as it is written, and worked out here from the moves stored. The
    statistics of a period read the games started in it by one index that holds all they
    need of a game (its family and time played beside its id), never the game's row."""
    run(
        conn,
        [
            "ALTER TABLE games ADD COLUMN seconds_played INTEGER NOT NULL DEFAULT 0",
            "CREATE INDEX idx_games_period ON games (created, id, game, seconds_played)",
        ],
    )
    times: dict[str, list[str]] = {}
    for game_id, time in conn.execute("SELECT game_id, time FROM moves ORDER BY game_id, seq").fetchall():
        times.setdefault(game_id, []).append(time)
    for game_id, kept in times.items():
        if played := _time_played(kept):
            conn.execute("UPDATE games SET seconds_played = ? WHERE id = ?", (played, game_id))


# -- the runner ----------------------------------------------------------------------


def recorded(conn, dialect: Dialect) -> list[str]:
    """The migrations recorded as applied, in order (sqlite-utils' older record taken as
    it is, before it is taken over)."""
    tables = set(dialect.tables(conn))
    done: set[str] = set()
    if TABLE in tables:
        done |= {r[0] for r in conn.execute(f"SELECT name FROM {TABLE}")}
    if "_sqlite_migrations" in tables:
        done |= {r[0] for r in conn.execute("SELECT name FROM _sqlite_migrations WHERE migration_set = 'companion'")}
    return [name for name in known() if name in done] + sorted(done - set(known()))


def migrate(conn, dialect: Dialect, stop_before: str | None = None) -> list[str]:
    """Apply the migrations not yet recorded, in order, inside the caller's write
    transaction (up to the one named ``stop_before``: an older version's database, for the
    tests); return their names. ``NewerDatabase`` if it records one this version does not
    know."""
    done = recorded(conn, dialect)
    if unknown := [name for name in done if name not in known()]:
        raise NewerDatabase(f"This database was made by a newer version of companion (its migration {unknown[0]})")
    conn.execute(f"CREATE TABLE IF NOT EXISTS {TABLE} (name TEXT PRIMARY KEY, applied_at TEXT)")
    if "_sqlite_migrations" in dialect.tables(conn):  # issue 33: sqlite-utils' record, taken over
        conn.execute("DELETE FROM " + TABLE)
        for name in done:
            conn.execute(f"INSERT INTO {TABLE} (name, applied_at) VALUES (?, ?)", (name, _now()))
        conn.execute("DROP TABLE _sqlite_migrations")
    last = known().index(stop_before) if stop_before else len(MIGRATIONS)
    pending = [(name, step) for name, step in MIGRATIONS[:last] if name not in done]
    for name, step in pending:
        step(conn, dialect)
        conn.execute(f"INSERT INTO {TABLE} (name, applied_at) VALUES (?, ?)", (name, _now()))
    return [name for name, _ in pending]
