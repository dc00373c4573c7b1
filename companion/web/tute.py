"""What the web knows of Tute Cabrón (the engine is companion/games/tute.py): how its
refusals cite their rules, its dispute lab, the position "Rules question?" opens, its
tally screen's form, and a sample game for the tests and the bench. Its templates are
templates/play/tute/ and templates/rules/_lab_tute.html, _text_tute.html."""

from __future__ import annotations

import re
import typing
from functools import partial
from typing import Annotated, Literal

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from pydantic import Field as Declared
from wtforms import Field, SelectChoice, SelectMultipleField, SubmitField
from wtforms.validators import Length, NumberRange

from companion.errors import N_, MoveError, OptionError, Reason
from companion.schemas import BySide, CardCode, Count, Move, Name, Word
from companion.web.query import BIG, Query, quoted, toggled
from companion.web.tally import Pick, TallyForm, all_but_last, seat_choice, whole

#: A game as the page posts it: the players, two moves, and how the second is told.
SAMPLE = {
    "players": ["Ann", "Ben", "Cat", "Dan"],
    "moves": [{"type": "trump", "card": "5D"}, {"type": "play", "card": "7S"}],
    "said": "Ben played 7♠.",
    #: The shortest way to a finished game: these options, then these moves (tallies).
    "finished": {
        "options": {"loss_limit": 1},
        "moves": [
            {
                "type": "tally",
                "card_points": {"Ann": 70, "Ben": 30, "Cat": 20, "Dan": 0},
                "last_trick": "Ann",
                "tricks": {"Ann": 5, "Ben": 3, "Cat": 2, "Dan": 0},
            }
        ],
    },
}


# -- its moves, as the API and the card picker send them (DESIGN.md, Moves) ---------------


class TuteTrump(Move):
    """The dealer's turned card (4-5 players, first move of each deal)."""

    type: Literal["trump"]
    card: CardCode


class TutePlay(Move):
    type: Literal["play"]
    card: CardCode
    ruled: bool | None = None  # the table ruled it against the rules (RULES.md 5.2)


class TuteDeclare(Move):
    """A cante, by the player who just won a trick: its suit (S/H/D/C, or its name)."""

    type: Literal["declare"]
    suit: Word


class TuteTally(Move):
    """A whole deal from its end: card points, the last trick, cantes (and tricks) per player."""

    type: Literal["tally"]
    card_points: BySide[Count]
    last_trick: Name
    marriages: BySide[Annotated[list[Count], Declared(max_length=4)]] | None = None
    tricks: BySide[Count] | None = None


class TuteClaim(Move):
    """``player`` shows that every trick not begun yet is theirs (RULES.md 5.3); the engine
    refuses a claim that names nobody."""

    type: Literal["claim"]


MOVES = (TuteTrump, TutePlay, TuteDeclare, TuteTally, TuteClaim)
#: Each move's fields as a refusal names them ("trump.card": that move's only).
FIELD_LABELS = {
    "trump.card": N_("Trump card"),
    "play.card": N_("Card played"),
    "suit": N_("Suit"),
    "card_points": N_("Card points"),
    "last_trick": N_("Last trick"),
    "marriages": N_("Cantes"),
    "tricks": N_("Tricks taken"),
    "ruled": N_("Ruled by the table"),
}

# -- the dispute lab: reads its position through the Query and asks the engine -----------


TUTE_SEATS = tuple(f"P{i}" for i in range(1, 6))


def lab(rules, opts, q: Query) -> dict:
    players = q.number("players", rules.MIN_PLAYERS, rules.MAX_PLAYERS, 4, required=True)
    word = q.choice("trump", ("S", "H", "D", "C", "none"), "none")
    trump = None if word == "none" else word
    pack = [str(c) for c in rules.pack(players)]
    out = _tute_position(q, players, pack) | {"trump": trump}
    out |= _tute_game_end(rules, opts, q, players)
    trick, hand = out["trick"], out["hand"]
    if any(c not in pack for c in trick + hand):
        q.problems.append(
            Reason(
                "not_in_pack",
                "With %(players)s players the pack has no %(cards)s (%(rule)s).",
                rule="Tute 2.2",
                players=players,
                cards=[c for c in trick + hand if c not in pack],
            )
        )
        return out
    out |= _tute_cantes(rules, q, hand, trick, trump, players)
    if trick:
        w = rules.trick_winner(trick, trump)
        out["winner"] = {
            "index": w,
            "card": trick[w],
            "points": rules.card_points(trick),
            "marriages": rules.marriages(trick, trump, players, first_sets_trump=trump is None),
        }
    if hand and trick:
        out["plays"] = [{"card": c, "why": rules.why_illegal(hand, trick, trump, c, opts)} for c in hand]
    out["outcome"] = _tute_outcome(rules, opts, q, out["totals"], out["last"])
    return out


def _tute_position(q: Query, players: int, pack: list[str]) -> dict:
    """The trick and the player's hand, with the grid that taps them and the links that
    change the trumps and the number of players."""
    trick, hand = q.cards("trick"), q.cards("hand")
    hand = [c for c in hand if c not in trick]
    seats = TUTE_SEATS[:players]
    return {
        "trick": trick,
        "hand": hand,
        "players": players,
        "pack": pack,
        "section": "Tute 2.4",
        "grid": q.one_grid(
            {
                "trick": (
                    _l("Trick so far"),
                    {c: q.url(trick=toggled(trick, c), hand=[x for x in hand if x != c]) for c in pack},
                    trick,
                ),
                "hand": (
                    _l("Player's hand"),
                    {c: q.url(hand=toggled(hand, c), trick=[x for x in trick if x != c]) for c in pack},
                    hand,
                ),
            }
        ),
        "suits": {s: q.url(trump=s) for s in ("S", "H", "D", "C", "none")},
        "player_counts": {n: q.url(players=str(n)) for n in (3, 4, 5)},
        "winner": None,
        "plays": None,
        "outcome": None,
        "last": q.choice("last", TUTE_SEATS, "P1"),
        "totals": {p: q.shown(p) for p in seats},
    }


def _tute_game_end(rules, opts, q: Query, players: int) -> dict:
    """Whether the game ends: loss marks before the deal, and who lost it (RULES.md 2.7)."""
    seats = TUTE_SEATS[:players]
    marks = {p: q.number(f"m_{p}", 0, BIG) for p in seats}
    lost = [p for p in q.args.getlist("lost") if p in seats]
    for p in q.args.getlist("lost"):
        if p not in TUTE_SEATS:
            q.wrong(
                "lost",
                _(
                    "%(label)s (%(name)s) must be among %(allowed)s, not %(raw)s.",
                    label=q.label("lost"),
                    name="lost",
                    allowed=", ".join(TUTE_SEATS),
                    raw=quoted(p),
                ),
            )
    out: dict[str, typing.Any] = {"marks": {p: q.shown(f"m_{p}") for p in seats}, "lost": lost, "game_end": None}
    if all(m is not None for m in marks.values()):
        after = {p: m + (p in lost) for p, m in marks.items() if m is not None}  # all are
        out["marks_after"] = after
        out["game_end"] = rules.game_end(after, opts.loss_limit) or {"losers": [], "winners": []}
    return out


def _tute_cantes(rules, q: Query, hand: list[str], trick: list[str], trump: str | None, players: int) -> dict:
    """Which cantes the player may sing between tricks (RULES.md 2.5)."""
    # The boxes ticked (one value each), or a link's list ("S20,D40"): both read the same.
    given = q.args.getlist("sung")
    words = [w for v in given for w in re.split(r"[\s,]+", v.upper()) if w]
    if not all(re.fullmatch(r"[SHDC](20|40)", w) for w in words):
        q.wrong(
            "sung",
            _(
                "%(label)s (%(name)s) must be like S20 or D40, not %(raw)s.",
                label=q.label("sung"),
                name="sung",
                raw=quoted(",".join(given)),
            ),
        )
        words = []
    sung = [(w[0], int(w[1:])) for w in words]
    out = {"sung": set(words), "sang_now": q.flag("sang_now")}
    if hand and len(trick) in (0, players):  # a cante is sung between tricks
        out["cantes"] = [
            {"suit": x, "why": rules.cante_check(hand, x, trump, sung, out["sang_now"], players)}
            for x in "SHDC"
            if f"K{x}" in hand or f"Q{x}" in hand
        ]
    return out


def _tute_outcome(rules, opts, q: Query, totals: dict, last: str) -> dict | None:
    """Who loses the deal at these totals (RULES.md 2.6)."""
    points = {p: q.number(p, 0, BIG) for p in totals}
    if any(v is None for v in points.values()):
        return None
    try:
        return rules.deal_outcome(points, last if last in totals else "P1", opts)
    except (MoveError, OptionError) as e:
        q.problems.append(e.reason)
        return None


# -- the tally screen ------------------------------------------------------------------------


# -- Tute: card points, the last trick, cantes ----------------------------------------------

#: RULES.md 2.5: a cante is 20, or 40 in trumps; a player sings at most one 40 and three 20s.
CANTES = (20, 40)
MOST_CANTES = 4


class Tally(TallyForm):
    """RULES.md 2.6: each player's card points (the last player's are the rest of the
    pack's), who took the last trick, and each player's cantes."""

    record = SubmitField(_l("Record this deal"))

    @staticmethod
    def context(rules, state, view) -> dict:
        names = view["players"]
        return {"names": names, "pack_points": rules.card_points([str(c) for c in rules.pack(len(names))])}

    @classmethod
    def fields(cls, ctx: dict) -> dict[str, Field]:
        names, most = ctx["names"], ctx["pack_points"]  # 120 (Tute 2.2)
        points = NumberRange(0, most, message=_l("Card points are whole numbers from 0 to %(n)s.", n=most))
        player = {
            "choices": [SelectChoice(p) for p in names],
            "invalid_choice_message": _l("Choose one of %(names)s.", names=", ".join(names)),
        }
        out: dict[str, Field] = {
            "last_trick": Pick(_l("Last trick"), **player),
            "set_last_trick": Pick(_l("Took the last trick"), **player),
            "cante_20": seat_choice(_l("Cante of 20 for"), names),
            "cante_40": seat_choice(_l("Cante of 40 for"), names),
            "remove_cante": seat_choice(_l("Remove the last cante of"), names),
            **all_but_last("points", names, points),
        }
        for i, name in enumerate(names):
            out[f"cantes_{i}"] = SelectMultipleField(
                _l("Cantes of %(name)s", name=name),
                [Length(max=MOST_CANTES, message=_l("At most %(n)s cantes a player.", n=MOST_CANTES))],
                coerce=whole,
                choices=[SelectChoice(v, str(v)) for v in CANTES],
                default=list,
                invalid_choice_message=_l("A cante is 20 or 40."),
                invalid_value_message=_l("A cante is 20 or 40."),
            )
        return out

    def taps(self) -> list:
        return [
            (self.record, self._record),
            (self.set_last_trick, self._last),
            (self.cante_20, partial(self._cante, 20)),
            (self.cante_40, partial(self._cante, 40)),
            (self.remove_cante, self._uncante),
        ]

    def _last(self, name: str) -> None:
        self.last_trick.data = name

    def _cante(self, value: int, seat: int) -> Reason | None:
        cantes = self[f"cantes_{seat}"]
        if len(cantes.data) >= MOST_CANTES:
            return Reason(
                "most_cantes", "At most %(most)s cantes a player (%(rule)s).", rule="Tute 2.5", most=MOST_CANTES
            )
        cantes.data = cantes.data + [value]
        return None

    def _uncante(self, seat: int) -> None:
        cantes = self[f"cantes_{seat}"]
        cantes.data = cantes.data[:-1]

    def model(self) -> dict:
        names, pack_points = self.ctx["names"], self.ctx["pack_points"]
        points = [self[f"points_{i}"].data for i in range(len(names) - 1)]
        cantes = [self[f"cantes_{i}"].data for i in range(len(names))]
        last = self.last_trick.data
        rest = pack_points - sum(points) if None not in points else None
        move, problems = None, []
        if rest is None:
            problems.append(
                _("Enter each player's card points (the last player's are the rest of %(n)s).", n=pack_points)
            )
        elif last is None:
            problems.append(_("Who took the last trick?"))
        else:
            move = {
                "type": "tally",
                "card_points": dict(zip(names, points + [rest])),
                "last_trick": last,
                "marriages": {p: cantes[i] for i, p in enumerate(names) if cantes[i]},
            }
        return {
            "names": names,
            "points": points,
            "rest": rest,
            "pack_points": pack_points,
            "cantes": cantes,
            "last": last,
            "move": move,
            "problems": problems,
        }
