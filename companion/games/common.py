"""What every game module does the same way: the head of its state and of its view,
copying, dumping and loading its state, and checking the list of players. Pure, like
the games.

A state is a dataclass whose fields are plain JSON data, one ``options`` dataclass, and
``history``: the records of finished deals. A record is never changed once the move
that wrote it returns, so states share them: a move then costs the same at move 1,000
as at move 10 (DESIGN.md quality bar), instead of copying every finished deal again.
"""

from __future__ import annotations

import copy
import functools
import typing
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import Field, dataclass, field, fields, is_dataclass
from types import MappingProxyType, ModuleType
from typing import Any, ClassVar, Generic, Protocol, TypeGuard, TypeVar

from companion.errors import N_, IllegalMove, InvalidMove, MoveError, OptionError, Reason

#: State fields shared between a state and its successors (never changed in place).
SHARED = ("history",)

#: A move as the web and the API send it: an open JSON mapping with a ``type``, whose
#: other keys the game's handler checks one by one.
Move = dict[str, Any]
#: A JSON mapping the engine writes: a view, a result, a history record, a trick.
Record = dict[str, Any]


class GameState(Protocol):
    """What the shared helpers read of every game's ``State`` dataclass."""

    __dataclass_fields__: ClassVar[dict[str, Field[Any]]]
    players: list[str]
    dealer: int
    history: list[Record]
    result: Record | None
    rulings: list[Record]

    @property
    def options(self) -> object: ...


S = TypeVar("S", bound=GameState)
#: A game's ``Options`` dataclass.
OptionsT = TypeVar("OptionsT")


@dataclass
class BaseState(Generic[OptionsT]):
    """The fields every game's ``State`` dataclass starts with, in this order (a game
    declares its own after them, ``history`` and ``result`` among them)."""

    options: OptionsT
    players: list[str]
    dealer: int  # seat


@dataclass(frozen=True)
class Start:
    """A one-tap start on the new-game form: a common way to play, as option values.
    ``more``: another program's rules or another reading of a seed, listed behind "more
    ways to play" so the usual starts and the Start button stay on the first screens."""

    label: str
    hint: str
    options: dict[str, Any] = field(default_factory=dict)
    more: bool = False


def is_int(x: object) -> TypeGuard[int]:
    """A whole number, and not a bool (``True == 1`` must not pass as an option)."""
    return isinstance(x, int) and not isinstance(x, bool)


def check_players(players: object, low: int, high: int, title: str) -> list[str]:
    """The names, stripped: a list of ``low`` to ``high`` distinct non-empty names."""
    if not isinstance(players, (list, tuple)) or not all(isinstance(p, str) for p in players):
        raise OptionError("players_not_names", "Players must be a list of names", option="players")
    names = [p.strip() for p in players]
    if not low <= len(names) <= high:
        raise player_count(title, low, high)
    if any(not p for p in names) or len(set(names)) != len(names):
        raise OptionError("player_names", "Every player needs a name, and no two the same", option="players")
    return names


def player_count(title: str, low: int, high: int) -> OptionError:
    """``title`` is for ``low`` to ``high`` players (the API's schema says so too)."""
    if high > low + 1:
        return OptionError(
            "player_count",
            "%(game)s is for %(low)s to %(high)s players",
            option="players",
            game=title,
            low=low,
            high=high,
        )
    return OptionError(
        "player_count_pair",
        "%(game)s is for %(low)s or %(high)s players",
        option="players",
        game=title,
        low=low,
        high=high,
    )


def clone(data: Any) -> Any:
    """A deep copy of plain JSON data (lists, dicts, scalars), several times faster than
    ``copy.deepcopy``, which a move would otherwise spend most of its time in. It recurses
    in a nested function: `make mutants` wraps each module-level function, and a wrapper
    on every value of a state made the engine tests five times slower there."""

    def deep(value: Any) -> Any:
        kind = type(value)
        if kind is list:
            return [deep(x) for x in value]
        if kind is dict:
            return {k: deep(v) for k, v in value.items()}
        return value

    return deep(data)


@functools.cache
def option_types(options_class: type) -> Mapping[str, Any]:
    """A game's ``Options`` field types, resolved once: ``typing.get_type_hints`` parses
    every annotation again at each call (the forms, the lab and the API schema ask often)."""
    return MappingProxyType(typing.get_type_hints(options_class))


def options_dict(options: object) -> dict[str, Any]:
    """An options dataclass as a dict (its values are scalars, so no deep copy)."""
    return dict(vars(options))


def dealer_seat(options: Mapping[str, Any] | None, players: list[str]) -> int:
    """The first dealer's seat: option ``dealer`` (a player's name), by default the first listed."""
    dealer = (options or {}).get("dealer", players[0])
    if dealer not in players:
        raise OptionError(
            "dealer_not_playing",
            "The dealer must be one of the players, not %(dealer)r",
            option="dealer",
            dealer=dealer,
        )
    return players.index(dealer)


def seat_players(
    players: object,
    options: dict[str, Any] | None,
    resolve: Callable[[dict[str, Any] | None, int], OptionsT],
    low: int,
    high: int,
    title: str,
) -> tuple[list[str], OptionsT, int]:
    """What every game's ``start`` checks first, in this order: the players (``low`` to
    ``high`` names, :func:`check_players`), the options resolved for that many players
    (``resolve``: the game's ``resolve_options``), then the first dealer's seat
    (:func:`dealer_seat`). Returns ``(names, options, dealer's seat)``."""
    names = check_players(players, low, high, title)
    return names, resolve(options, len(names)), dealer_seat(options, names)


def read_options(
    options: object, players: int | None, rules: ModuleType, title: str
) -> tuple[dict[str, Any], int | None]:
    """The checks every game's ``resolve_options`` starts with; returns ``(given, count)``.

    ``options`` must be a mapping (``dealer`` is left to ``start``); its ``players``, if
    any, agrees with the list and the game's range; every name is one of ``rules.Options``;
    a bool option is a bool and a choice is one of ``rules.CHOICES`` (compared with its
    type too: ``2.0 == 2`` and ``True == 1`` are not choices).
    """
    if not isinstance(options, (dict, type(None))):
        raise OptionError("options_not_mapping", "Options must be a mapping of option names to values")
    given = dict(options or {})
    given.pop("dealer", None)  # a player's name: checked by start()
    count = given.pop("players", players)
    low, high = rules.MIN_PLAYERS, rules.MAX_PLAYERS
    if count is not None and (not is_int(count) or not low <= count <= high):
        raise player_count(title, low, high)
    if players is not None and count != players:
        raise OptionError(
            "player_count_mismatch",
            "Option players is %(count)s but %(listed)s players are listed",
            option="players",
            count=count,
            listed=players,
        )
    names = [f.name for f in fields(rules.Options)]
    unknown = sorted(set(given) - set(names))
    if unknown:
        raise OptionError(
            "unknown_option",
            "Unknown option %(option)r; %(game)s options are: %(known)s",
            option=unknown[0],
            game=title,
            known=", ".join(names),
        )
    defaults = {f.name: f.default for f in fields(rules.Options)}
    for name, value in given.items():
        allowed = rules.CHOICES.get(name)
        if isinstance(defaults[name], bool) and not allowed and not isinstance(value, bool):
            raise OptionError("not_bool", "%(option)s must be true or false, not %(value)r", option=name, value=value)
        if allowed and not any(type(value) is type(a) and value == a for a in allowed):
            words = ", ".join("none" if a is None else str(a) for a in allowed)
            raise OptionError(
                "not_a_choice",
                "%(option)s must be one of: %(allowed)s (not %(value)r)",
                option=name,
                allowed=words,
                value=value,
            )
    return given, count


def copy_state(state: S) -> S:
    """A copy ``apply`` may change freely; the finished-deal records are shared."""
    new = copy.copy(state)
    for f in fields(state):
        value = getattr(state, f.name)
        if f.name in SHARED:
            setattr(new, f.name, list(value))
        elif isinstance(value, (list, dict)):
            setattr(new, f.name, clone(value))
    return new


def dump_state(state: GameState) -> Record:
    """The state as plain JSON data (the options dataclass as a dict)."""
    out = {}
    for f in fields(state):
        value = getattr(state, f.name)
        if is_dataclass(value):  # the options: scalars (dataclasses.asdict would deep-copy each)
            value = options_dict(value)
        elif f.name in SHARED:
            value = list(value)
        elif isinstance(value, (list, dict)):
            value = clone(value)
        out[f.name] = value
    return out


def load_state(state_class: Callable[..., S], options_class: Callable[..., object], data: Record, title: str) -> S:
    """Rebuild a state from :func:`dump_state`'s output (``ValueError`` if it isn't one)."""
    try:
        d: dict[str, Any] = {k: (list(v) if k in SHARED else clone(v)) for k, v in data.items()}
        return state_class(**{**d, "options": options_class(**d["options"])})
    except (TypeError, KeyError, AttributeError) as e:
        raise ValueError(f"Not a {title} state: {e}") from None


def persistence(
    state_class: Callable[..., S], options_class: Callable[..., object], title: str
) -> tuple[Callable[[S], Record], Callable[[Record], S]]:
    """A game's ``dump`` and ``load`` (DESIGN.md: states serialise), as its module writes
    them: ``dump, load = persistence(State, Options, TITLE)``. ``title`` names the game in
    the ``ValueError`` for data that is not one of its states."""

    def dump(state: S) -> Record:
        """The state as plain JSON data; ``load(dump(s)) == s``."""
        return dump_state(state)

    def load(data: Record) -> S:
        """Rebuild a state from :func:`dump`'s output."""
        return load_state(state_class, options_class, data, title)

    return dump, load


def view_head(
    state: GameState, game: str, sides: list[list[str]], deal: int, seat: int | None, expects: list[str]
) -> Record:
    """The keys every game's ``view`` starts with (``contract.VIEW_KEYS`` but ``seen``,
    which each game works out itself): the game's ``NAME``, the players and ``sides``, the
    dealer, the ``deal`` number, the player at ``seat`` to act, the move types it
    ``expects``, the finished deals, the result and the options. Fresh copies: a view
    shares nothing with the state."""
    names = state.players
    return {
        "game": game,
        "players": list(names),
        "sides": sides,
        "dealer": names[state.dealer],
        "deal": deal,
        "to_act": None if seat is None else names[seat],
        "expects": expects,
        "history": list(state.history),
        "result": clone(state.result),
        "options": options_dict(state.options),
        "rulings": [clone(r) for r in state.rulings if r["deal"] == deal],
        "ruled": len(state.rulings),
    }


def ruled(move: Move) -> bool:
    """Whether the table ruled ``move`` (RULES.md 5.2): it carries ``"ruled": true``."""
    return move.get("ruled") is True


def rule_on(
    state: GameState,
    deal: int,
    seat: int,
    move: Move,
    refusal: Reason,
    rulable: frozenset[str],
    options: list[Any] | None = None,
) -> None:
    """The table's ruling (RULES.md 5.2): ``move``, which the rules refuse for ``refusal``,
    stands when it is ``ruled`` and the refusal is one of the game's ``rulable`` (a rule of
    play a table may set aside, not a fact such as a card already played): it is recorded in
    the game's ``rulings`` (its deal, player, move and the rule it departs from). Otherwise
    the refusal stands: ``IllegalMove`` (with the legal ``options``, when the game names them)."""
    if not (ruled(move) and refusal.code in rulable):
        raise IllegalMove(refusal, options=options)
    entry = {k: v for k, v in move.items() if k != "ruled"}
    state.rulings.append({"deal": deal, "player": state.players[seat], "move": entry, "refusal": refusal.as_data()})


def ruling_words(state: GameState, move: Move) -> list[Reason]:
    """What the log says of a ruled move besides the move itself (``narrate``'s last
    sentence): that the table ruled it, against which rule. Nothing for another move."""
    if (
        not ruled(move)
        or not state.rulings
        or state.rulings[-1]["move"] != {k: v for k, v in move.items() if k != "ruled"}
    ):
        return []
    return [_against(RULED_BY_TABLE, state.rulings[-1]["refusal"]["rule"])]


#: The words of a ruling (RULES.md 5.2): the log's, and the question its confirm asks. The
#: rule is the refusal's (every refusal a game lets its table rule cites one), linked as any.
RULED_BY_TABLE = ("ruled_by_table", N_("Ruled by the table, against %(rule)s."))
RULE_IT = ("rule_it", N_("Play on as the table rules, against %(rule)s?"))


def _against(words: tuple[str, str], rule: str) -> Reason:
    return Reason.from_json({"code": words[0], "text": words[1], "rule": rule})


def narrated(words: Callable[[S, Move], list[Reason]]) -> Callable[[S, Move], list[Reason]]:
    """A game's ``narrate`` (``words``), saying after a ruled move that the table ruled it."""

    @functools.wraps(words)
    def narrate(state: S, move: Move) -> list[Reason]:
        return words(state, move) + ruling_words(state, move)

    return narrate


#: What a ruling's confirm says where the rules name no penalty (RULES.md 5.2 R3).
NO_PENALTY = Reason("no_penalty", "The rules name no penalty: the move stands as played.")


def ruling_question(apply: Callable[[S, Move], S], state: S, move: Move, penalty: Reason) -> list[Reason] | None:
    """What to ask before a ruled move (a game's ``confirm_needed``, RULES.md 5.2): that
    the table sets aside the rule that refuses it, and the ``penalty`` the rules name for
    it. None for a move not ruled, or one the rules do not refuse (nothing to rule)."""
    if not ruled(move):
        return None
    try:
        apply(state, {k: v for k, v in move.items() if k != "ruled"})
    except IllegalMove as e:
        return [_against(RULE_IT, e.rule or ""), penalty]
    except MoveError:
        return None  # not a move the rules judge: apply says why
    return None


def deal_rulings(state: GameState, deal: int) -> Record:
    """What a finished deal's record says of its rulings (RULES.md 5.2): ``{"rulings": [...]}``,
    or nothing when the table ruled nothing in it."""
    found = [clone(r) for r in state.rulings if r["deal"] == deal]
    return {"rulings": found} if found else {}


#: What the statistics count for each side of a game (``figures``): deals played and
#: points, Tablanette's sweeps and the biggest, Tute's cante points and loss marks, 100's
#: hands lost (``marks``), Tantony's double wins; 0 where a game has no such thing.
FIGURES = ("deals", "points", "sweeps", "best_sweep", "cantes", "marks", "double")


#: How the engines' records join partners into a side's label (a key, as stored): the words
#: layer names a side in each language (companion.i18n.side_name: 「健太郎・翔太」).
SIDE_JOIN = " & "


def side_label(side: list[str]) -> str:
    """How a view's records name a side: the player, or partners joined ("Ann & Cat")."""
    return SIDE_JOIN.join(side)


def figures(
    view: Record,
    per_deal: Callable[[Record, str], dict[str, int]] | None = None,
    per_game: Callable[[str], dict[str, int]] | None = None,
) -> dict[str, dict[str, int]]:
    """Each side's ``FIGURES`` from a view: its finished deals counted and their ``points``
    added, with what ``per_deal`` says of each record (added; ``best_`` ones the highest,
    and a ``points`` of its own replaces the record's) and ``per_game`` of each side's label.

    >>> figures({"sides": [["Ann"], ["Ben"]], "history": [{"points": {"Ann": 3, "Ben": 1}}] * 2})["Ann"]
    {'deals': 2, 'points': 6, 'sweeps': 0, 'best_sweep': 0, 'cantes': 0, 'marks': 0, 'double': 0}
    """
    out = {}
    for side in view["sides"]:
        label = side_label(side)
        total = dict.fromkeys(FIGURES, 0)
        for record in view["history"]:
            said = {"points": int((record.get("points") or {}).get(label, 0))} | (
                per_deal(record, label) if per_deal else {}
            )
            total["deals"] += 1
            for key, value in said.items():
                total[key] = max(total[key], value) if key.startswith("best_") else total[key] + value
        total |= per_game(label) if per_game else {}
        out[label] = total
    return out


def apply_move(
    state: S,
    move: object,
    handlers: Mapping[str, Callable[[S, Move], None]],
    expects: Callable[[S], list[str]],
    to_act: Callable[[S], int | None],
    wrong_time: Callable[[S, str], Reason],
    title: str,
    free: tuple[str, ...] = ("tally",),
) -> S:
    """What every game's ``apply`` does around its move handlers (DESIGN.md engine contract):
    the move is a mapping of a known type, expected now, by the player to act if it names
    one (moves in ``free`` name someone else, or nobody); the handler changes a copy."""
    if not isinstance(move, dict):
        raise InvalidMove("not_a_move", "A move must be a mapping with a 'type'")
    kind: Any = move.get("type")  # any JSON value: once it names a handler, a str
    handler = handlers.get(kind) if isinstance(kind, str) else None
    if handler is None:
        raise InvalidMove(
            "unknown_move",
            "Unknown move type %(kind)r; %(game)s moves are: %(known)s",
            kind=kind,
            game=title,
            known=", ".join(handlers),
        )
    if state.result is not None:
        raise IllegalMove("game_over", "The game is over.")
    if kind not in expects(state):
        raise IllegalMove(wrong_time(state, kind))
    who = move.get("player")
    if who is not None and kind not in free:
        if who not in state.players:
            raise InvalidMove("not_playing", "%(player)r is not playing in this game", player=who)
        seat = to_act(state)
        if state.players.index(who) != seat:
            assert seat is not None  # the game is not over (checked above): every game has someone to act
            raise IllegalMove(
                "not_your_turn", "It is %(turn)s's turn, not %(player)s's.", turn=state.players[seat], player=who
            )
    new = copy_state(state)
    handler(new, move)
    return new


class Stopped(Exception):
    """A corrected log no longer replays (RULES.md 5.1): ``entry``, the number of the first
    entry the engine refuses after the correction, the ``move`` it holds, and the engine's
    ``refusal`` (an ``AmbiguousMove`` when the entry must now choose)."""

    def __init__(self, entry: int, move: Move, refusal: MoveError) -> None:
        super().__init__(f"Entry {entry} no longer fits: {refusal}")
        self.entry, self.move, self.refusal = entry, move, refusal


def replay(
    apply: Callable[[S, Move], S], state: S, entries: Iterable[tuple[int, Move]], corrections: Mapping[int, Move]
) -> Iterator[tuple[int, Move, S]]:
    """A log replayed with entries corrected in place (RULES.md 5.1): from ``state``, each
    of ``entries`` (its number and move, in the log's order), the move of ``corrections``
    under its number in place of its own. Yields each entry's number, the move it now
    holds and the state after it; ``Stopped`` at the first the game's ``apply`` refuses,
    so a caller that writes as it goes writes nothing unless the whole log replays."""
    for number, move in entries:
        move = corrections.get(number, move)
        try:
            state = apply(state, move)
        except MoveError as e:
            raise Stopped(number, move, e) from None
        yield number, move, state
