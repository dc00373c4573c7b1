"""What the web knows of 100 / 99 / 98 (the engine is companion/games/hundred.py): how its
refusals cite their rules, its dispute lab, the position "Rules question?" opens, its
tally screen's form, and a sample game for the tests and the bench. Its templates are
templates/play/hundred/ and templates/rules/_lab_hundred.html, _text_hundred.html."""

from __future__ import annotations

from typing import Literal

from flask_babel import lazy_gettext as _l
from wtforms import Field, SelectChoice

from companion.errors import N_
from companion.schemas import CardCode, CardList, Count, Move, Name, Word
from companion.web.query import BIG, Query
from companion.web.tally import Pick, TallyForm

#: A game as the page posts it: the players, two moves, and how the second is told.
SAMPLE = {
    "players": ["Ann", "Ben", "Cat"],
    "moves": [{"type": "play", "card": "8H"}, {"type": "play", "card": "9H"}],
    "said": "Cat played 9♥: 8 → 17.",
    #: The shortest way to a finished game: these options, then these moves (tallies).
    "finished": {
        "options": {"tokens": 1},
        "moves": [{"type": "tally", "loser": "Ann"}, {"type": "tally", "loser": "Ben"}],
    },
}


# -- its moves, as the API and the card picker send them (DESIGN.md, Moves) ---------------


class HundredPlay(Move):
    """A card played; ``total``: the total announced, when the card gives a choice;
    ``hand``: the rest of the hand, shown with a play over the target (it verifies the loss)."""

    type: Literal["play"]
    card: CardCode
    total: Count | Word | None = None
    hand: CardList | None = None


class HundredLose(Move):
    """``player`` (by default the one to act) can't go; ``hand``: the cards shown."""

    type: Literal["lose"]
    hand: CardList | None = None


class HundredTally(Move):
    """A whole hand from its end: who lost."""

    type: Literal["tally"]
    loser: Name


MOVES = (HundredPlay, HundredLose, HundredTally)
#: Each move's fields as a refusal names them ("play.card": that move's only).
FIELD_LABELS = {"card": N_("Card played"), "total": N_("Total"), "hand": N_("Hand shown"), "loser": N_("Lost the hand")}

# -- the dispute lab: reads its position through the Query and asks the engine -----------


def lab(rules, opts, q: Query) -> dict:
    chosen = q.cards("card")
    played = chosen[0] if chosen else None
    # No total is 0; a wrong one is none (the lab answers nothing that needs it).
    total = q.number("total", 0 if opts.floor_at_zero else -BIG, BIG, None if "total" in q.args else 0, required=True)
    out = {
        "card": played,
        "total": total,
        "target": rules.target(opts),
        "section": "100/99/98 4.3",
        "card_links": {str(c): q.url(card=str(c)) for c in rules.PACK_52},
        "made": None,
    }
    hand = q.cards("hand")
    out["hand"] = " ".join(hand)
    if hand and total is not None:
        # "loses", or "can go" and why not (a Reason: the safe card, the total it makes)
        out["why"] = rules.lose_refusal(hand, total, opts)
        out["lose"] = "loses" if out["why"] is None else "can go"
    players = q.number("players", rules.MIN_PLAYERS, rules.MAX_PLAYERS, 3, required=True)
    seat = q.number("seat", 1, players, 1, required=True)
    direction = -1 if q.choice("direction", ("clockwise", "anticlockwise")) == "anticlockwise" else 1
    out |= {"players": players, "seat": seat, "direction": direction, "next": None}
    if played and total is not None:
        made, reverse = rules.effect(played, total, opts)
        out["made"] = [{"total": t, "safe": t <= out["target"]} for t in made]
        out["reverse"] = reverse
        out["skip"] = rules.rule_of(played, opts).turn == "skip"
        nxt, turned = rules.turn_after(played, seat - 1, players, direction, opts)
        out["next"] = {"seat": nxt + 1, "direction": turned}
    return out


# -- the tally screen ------------------------------------------------------------------------


class Tally(TallyForm):
    """RULES.md 4.4: who lost the hand, one tap that records it."""

    RECORDED_BY_TAP = True

    @staticmethod
    def context(rules, state, view) -> dict:
        return {"players": [p for p in view["players"] if p not in view["eliminated"]]}

    @classmethod
    def fields(cls, ctx: dict) -> dict[str, Field]:
        live = ctx["players"]
        return {
            "loser": Pick(
                _l("Lost the hand"),
                choices=[SelectChoice(p) for p in live],
                invalid_choice_message=_l("Choose one of the players still in: %(names)s.", names=", ".join(live)),
            )
        }

    def taps(self) -> list:
        return [(self.loser, self._record)]

    def model(self) -> dict:
        loser = self.loser.data
        return {
            "players": self.ctx["players"],
            "problems": [],
            "move": {"type": "tally", "loser": loser} if loser is not None else None,
        }
