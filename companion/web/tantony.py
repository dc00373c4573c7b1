"""What the web knows of Tantony (the engine is companion/games/tantony.py): how its
refusals cite their rules, its dispute lab, the position "Rules question?" opens, its
tally screen's form, and a sample game for the tests and the bench. Its templates are
templates/play/tantony/ and templates/rules/_lab_tantony.html, _text_tantony.html."""

from __future__ import annotations

import typing
from typing import Literal

from flask_babel import lazy_gettext as _l
from wtforms import Field, SubmitField

from companion.errors import N_, OptionError, Reason
from companion.schemas import BySide, CardCode, CardList, Move, Name
from companion.web.query import BIG, Query, toggled
from companion.web.tally import TallyForm, card_choice, seat_choice

#: A game as the page posts it: the players, two moves, and how the second is told.
SAMPLE = {
    "players": ["Nan", "Eve", "Sam", "Wes"],
    "moves": [{"type": "play", "card": "9D"}, {"type": "play", "card": "3D"}],
    "said": "Sam played 3♦.",
    #: The shortest way to a finished game: these options, then these moves (tallies).
    "finished": {
        "options": {"deals": 1},
        "moves": [
            {
                "type": "tally",
                "scoring": {
                    "Nan": ["2S", "3S", "4S"],
                    "Eve": ["2H", "3H", "4H"],
                    "Sam": ["2D", "3D", "4D"],
                    "Wes": ["2C", "3C", "4C", "5C"],
                },
            }
        ],
    },
}


# -- its moves, as the API and the card picker send them (DESIGN.md, Moves) ---------------


class TantonyPlay(Move):
    type: Literal["play"]
    card: CardCode
    ruled: bool | None = None  # the table ruled it against the rules (RULES.md 5.2)


class TantonyGive(Move):
    """Who receives the trick just won (tricks 1-12)."""

    type: Literal["give"]
    to: Name


class TantonyTally(Move):
    """A whole deal from its end: each player's scoring cards (runts)."""

    type: Literal["tally"]
    scoring: BySide[CardList | None]


MOVES = (TantonyPlay, TantonyGive, TantonyTally)
#: Each move's fields as a refusal names them.
FIELD_LABELS = {
    "card": N_("Card played"),
    "to": N_("Given to"),
    "scoring": N_("Scoring cards"),
    "ruled": N_("Ruled by the table"),
}

# -- the dispute lab: reads its position through the Query and asks the engine -----------


TANTONY_SEATS = ("N", "E", "S", "W", "P1", "P2", "P3")


def lab(rules, opts, q: Query) -> dict:
    trick = q.cards("trick")
    players = q.number("players", rules.MIN_PLAYERS, rules.MAX_PLAYERS, 4, required=True)
    pack = [str(c) for c in rules.pack(players)]
    seats = list(rules.COMPASS[:players]) if players == 4 else ["P1", "P2", "P3"]
    out = {
        "trick": trick,
        "players": players,
        "pack": pack,
        "section": "Tantony 3.3",
        "seats": seats,
        "quota": rules.trick_quota(players),
        "trick_links": {c: q.url(trick=toggled(trick, c)) for c in pack},
        "player_counts": {n: q.url(players=str(n), trick=None) for n in (3, 4)},
        "winner": None,
        "gift": None,
    }
    out |= _tantony_gift(rules, q, seats, players)
    out |= _tantony_sudden_death(rules, opts, q)
    out |= _tantony_deal_points(rules, opts, q, seats)
    if any(c not in pack for c in trick):
        q.problems.append(Reason("no_7_to_10", "3-player Tantony has no 7s to 10s (%(rule)s).", rule="Tantony 3.10"))
        return out
    if trick:
        w = rules.trick_winner(trick)
        low = rules.runt(trick)
        out["winner"] = {
            "index": w,
            "card": trick[w],
            "runt": low,
            "value": rules.card_value(low, opts, players),
            "hog": all(c[-1] != trick[0][-1] for c in trick[1:]),
        }
        if players == 4 and len(trick) == 4:
            out["exchange"] = rules.exchange(trick)
            out["kept"] = rules.kept(trick)
    return out


def _tantony_gift(rules, q: Query, seats: list[str], players: int) -> dict:
    """May the trick be given to ``to`` (RULES.md 3.4)? ``gift`` is the engine's Reason why not, or None."""
    held = {s: q.number(f"held_{s}", 0, 13) for s in seats}
    to = q.choice("to", TANTONY_SEATS)
    out: dict[str, typing.Any] = {"held": {s: q.shown(f"held_{s}") for s in seats}, "to": to}
    if to in seats and all(v is not None for v in held.values()):
        out["gift"] = rules.gift_refusal(held, to, players)
        out["gift_asked"] = True
    return out


def _tantony_sudden_death(rules, opts, q: Query) -> dict:
    """Sudden death after a deal (RULES.md 3.8), the line after the last deal as the
    option ``sudden_death_last_deal`` reads seed 003."""
    ns, ew, after = q.number("ns", 0, BIG), q.number("ew", 0, BIG), q.number("after", 1, 12)
    out: dict[str, typing.Any] = {"ns": q.shown("ns"), "ew": q.shown("ew"), "after": q.shown("after"), "verdict": None}
    if ns is not None and ew is not None and after is not None:
        deals, last = opts.deals or 4, opts.sudden_death_last_deal
        out["verdict"] = rules.verdict({"N & S": ns, "E & W": ew}, after, deals, True, last) or "play on"
        out["line"] = rules.sudden_death_line(after, deals, True, last)
        out["deals"] = deals
    return out


def _tantony_deal_points(rules, opts, q: Query, seats: list[str]) -> dict:
    """Each side's deal points from each player's own runts (RULES.md 3.6, 3.9) under the
    option ``partnership_mode``, as the engine resolves it for this many players."""
    own = {s: q.number(f"pts_{s}", 0, 999) for s in seats}
    out: dict[str, typing.Any] = {"pts": {s: q.shown(f"pts_{s}") for s in seats}, "deal_points": None}
    if any(v is None for v in own.values()):
        return out
    try:
        mode = rules.resolve_options({"partnership_mode": opts.partnership_mode}, len(seats)).partnership_mode
    except OptionError as e:
        q.problems.append(e.reason)
        return out
    out["deal_points"] = rules.deal_points(typing.cast("dict[str, int]", own), mode)
    out["mode"] = mode
    return out


# -- the tally screen ------------------------------------------------------------------------


class Tally(TallyForm):
    """RULES.md 3.6: each player's scoring cards (the runts). A tap gives a card to the
    first player, the next tap to the next player, and after the last to nobody."""

    record = SubmitField(_l("Record this deal"))

    @staticmethod
    def context(rules, state, view) -> dict:
        names = view["players"]
        return {"names": names, "pack": rules.pack_codes(len(names))}

    @classmethod
    def fields(cls, ctx: dict) -> dict[str, Field]:
        out: dict[str, Field] = {"cycle": card_choice(_l("Scoring card"), ctx["pack"], _l("Tap a card of this pack."))}
        for card in ctx["pack"]:
            out[f"runt_{card}"] = seat_choice(card, ctx["names"])
        return out

    def taps(self) -> list:
        return [(self.record, self._record), (self.cycle, self._cycle)]

    def _cycle(self, card: str) -> None:
        owner, players = self[f"runt_{card}"], len(self.ctx["names"])
        owner.data = 0 if owner.data is None else (owner.data + 1 if owner.data + 1 < players else None)

    def model(self) -> dict:
        names, pack = self.ctx["names"], self.ctx["pack"]
        owner = {c: self[f"runt_{c}"].data for c in pack}
        scoring = {p: [c for c in pack if owner[c] == i] for i, p in enumerate(names)}
        return {
            "names": names,
            "pack": pack,
            "owner": owner,
            "move": {"type": "tally", "scoring": scoring},
            "problems": [],
        }
