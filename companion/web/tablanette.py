"""What the web knows of Tablanette (the engine is companion/games/tablanette.py): how its
refusals cite their rules, its dispute lab, the position "Rules question?" opens, its
tally screen's form, and a sample game for the tests and the bench. Its templates are
templates/play/tablanette/ and templates/rules/_lab_tablanette.html, _text_tablanette.html."""

from __future__ import annotations

import typing
from functools import partial
from typing import Annotated, Literal

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from pydantic import Field as Declared
from wtforms import Field, SelectChoice, SubmitField
from wtforms.validators import Length, NumberRange, Optional, ValidationError

from companion.board.tablanette import LAB_OPTIONS
from companion.errors import N_, MoveError, Reason
from companion.games import side_label
from companion.i18n import side_name
from companion.schemas import BySide, CardCode, CardList, Count, Move
from companion.web.query import BIG, Query, toggled
from companion.web.tally import (
    Cards,
    Numbers,
    Pick,
    TallyForm,
    WholeNumber,
    all_but_last,
    card_choice,
    each,
    seat_choice,
    whole,
)

#: The legal captures the lab lists at most: a free-capture table of 20 cards has
#: thousands (a 5 MB page, a second to build); any other is checked by tapping it as a claim.
LAB_SHOWN = 50
#: A game as the page posts it: the players, two moves, and how the second is told.
SAMPLE = {
    "players": ["Ann", "Ben"],
    "moves": [{"type": "layout", "cards": ["2S", "3H", "5D", "9C"]}, {"type": "play", "card": "7C"}],
    "said": "Ben played 7♣ and took 2♠ 5♦.",
    #: The shortest way to a finished game: these options, then these moves (tallies).
    "finished": {
        "options": {"target": 1},
        "moves": [
            {
                "type": "tally",
                "cards": {"Ann": 30, "Ben": 22},
                "counters": {
                    "Ann": ["10D", "2C", "AS", "AH", "KS", "QH", "JD", "10S"],
                    "Ben": ["AD", "AC", "10H", "10C", "JS", "JH", "JC", "QS", "QD", "QC", "KH", "KD", "KC"],
                },
            }
        ],
    },
}


# -- its moves, as the API and the card picker send them (DESIGN.md, Moves) ---------------


class TablanetteLayout(Move):
    """The 4 face-up cards of a deal; ``buried``: the layout jacks put under the stock."""

    type: Literal["layout"]
    cards: CardList
    buried: CardList | None = None


class TablanettePlay(Move):
    """A card played; ``capture``: the table cards it takes (``[]`` lays it down)."""

    type: Literal["play"]
    card: CardCode
    capture: CardList | None = None
    ruled: bool | None = None  # the table ruled it against the rules (RULES.md 5.2)


class TablanetteTally(Move):
    """A whole deal from its end: cards taken, counting cards and sweep bonuses per side."""

    type: Literal["tally"]
    cards: BySide[Count]
    counters: BySide[CardList]
    sweeps: BySide[Annotated[list[Count], Declared(max_length=52)]] | None = None


MOVES = (TablanetteLayout, TablanettePlay, TablanetteTally)
#: Each move's fields as a refusal names them ("layout.cards": that move's only).
FIELD_LABELS = {
    "layout.cards": N_("Face-up cards"),
    "buried": N_("Jacks put under the stock"),
    "card": N_("Card played"),
    "capture": N_("Cards captured"),
    "tally.cards": N_("Cards taken"),
    "counters": N_("Counting cards"),
    "sweeps": N_("Sweeps"),
    "ruled": N_("Ruled by the table"),
}

# -- the dispute lab: reads its position through the Query and asks the engine -----------


def lab(rules, opts, q: Query) -> dict:
    table, claim = q.cards("table"), q.cards("claim")
    chosen = q.cards("card")
    played: str | None = chosen[0] if chosen else None
    if played in table:
        q.problems.append(
            Reason("played_and_on_table", "%(card)s can't be both on the table and the card played.", card=played)
        )
        played = None
    claim = [c for c in claim if c in table]
    last = q.flag("last")
    pack = [str(c) for c in rules.PACK]
    out: dict[str, typing.Any] = {
        "table": table,
        "card": played,
        "claim": claim,
        "captures": None,
        "verdict": None,
        "section": "Tablanette 1.4",
        "grid": q.one_grid(
            {
                "table": (
                    _l("Table cards"),
                    {
                        c: q.url(
                            table=toggled(table, c),
                            claim=[x for x in claim if x != c],
                            card=None if c == played else played,
                        )
                        for c in pack
                    },
                    table,
                ),
                "card": (
                    _l("Card played"),
                    {c: q.url(card=None if c == played else c, table=[x for x in table if x != c]) for c in pack},
                    [played] if played else [],
                ),
            }
        ),
        "claim_links": {c: q.url(claim=toggled(claim, c)) for c in table},
        "last_link": q.url(last=None if last else "1"),
    }
    out["deal"] = _tablanette_deal(rules, opts, q)
    out |= _tablanette_layout(rules, opts, q)
    out |= _tablanette_winner(rules, opts, q)
    out["last"] = last
    if played and not (q.problems or q.errors):
        out |= _tablanette_captures(rules, opts, played, table, claim, last)
    return out


def _tablanette_captures(rules, opts, played: str, table: list[str], claim: list[str], last: bool) -> dict:
    """The legal captures of ``played``: every one, or the first ``LAB_SHOWN`` the search
    finds (``complete`` says which), each as ``capture_options`` gives it, in its order,
    with what the deal's last card leaves; and the verdict on a claimed one."""
    legal, complete = rules.some_captures(played, table, opts, LAB_SHOWN)
    out = {"captures": [rules.judge_capture(played, table, c, opts) for c in legal], "complete": complete}
    out["verdict"] = None
    if last:
        out["leftovers"] = [rules.leftovers(played, table, c) for c in out["captures"]]
    if claim:
        judged = rules.judge_capture(played, table, claim, opts)
        out["verdict"] = (
            {"legal": True, "capture": judged}
            if judged
            else {"legal": False, "reason": rules.explain_refusal(played, table, claim, opts)}
        )
    return out


def _tablanette_layout(rules, opts, q: Query) -> dict:
    layout = q.cards("layout")
    out: dict[str, typing.Any] = {"layout": ", ".join(layout)}
    if layout:
        try:
            rules.apply(rules.start(["A", "B"], {"jack_is_12": opts.jack_is_12}), {"type": "layout", "cards": layout})
            out["layout_answer"] = {"ok": True}
        except MoveError as e:
            out["layout_answer"] = {"ok": False, "reason": e.reason}
    return out


def _tablanette_winner(rules, opts, q: Query) -> dict:
    """Who wins at these scores (RULES.md 1.6)."""
    a, b = q.number("score_a", 0, BIG), q.number("score_b", 0, BIG)
    target = q.number("target", 1, BIG, 251)
    sweeper = q.choice("sweeper", ("A", "B"))
    out = {
        "score_a": q.shown("score_a"),
        "score_b": q.shown("score_b"),
        "target": q.shown("target") or "251",
        "sweeper": sweeper or "",
    }
    if a is not None and b is not None and target is not None:
        out["result"] = rules.verdict({"A": a, "B": b}, target, opts.on_tie, sweeper, opts.win_at) or "play on"
    return out


def _tablanette_deal(rules, opts, q: Query) -> dict:
    """A two-player deal scored from A's cards taken and counting cards (B has the rest)."""
    args = {k: q.shown(k) for k in ("a_cards", "a_counters", "a_sweeps", "b_sweeps")}
    a_cards = q.number("a_cards", 0, len(rules.PACK))
    sweeps = {side: q.numbers(f"{side.lower()}_sweeps", 0, BIG) for side in ("A", "B")}
    if a_cards is None:
        return {"args": args, "points": None}
    counters = [str(c) for c in rules.PACK if rules.card_points([str(c)], opts.point_scale)]
    mine = q.cards("a_counters")
    move = {
        "type": "tally",
        "cards": {"A": a_cards, "B": len(rules.PACK) - a_cards},
        "counters": {"A": mine, "B": [c for c in counters if c not in mine]},
        "sweeps": {k: v for k, v in sweeps.items() if v},
    }
    # Scored under the lab's rules (the bonus a sweep can score, the point scale, a tie for
    # most cards), to no target.
    options = {name: getattr(opts, name) for name in LAB_OPTIONS} | {"target": 10**6}
    try:
        state = rules.apply(rules.start(["A", "B"], options), move)
    except MoveError as e:
        return {"args": args, "points": None, "error": e.reason}
    record = rules.view(state)["history"][-1]
    return {"args": args, "points": record["points"], "record": record}


# -- the tally screen ------------------------------------------------------------------------


class Tally(TallyForm):
    """RULES.md 1.5: the cards each side took (the last side's are the rest of the pack),
    which side took each counting card, and each side's sweeps, typed as bonuses or built
    from the card played and the cards it swept."""

    record = SubmitField(_l("Record this deal"))
    sb_clear = SubmitField("Clear")

    @staticmethod
    def context(rules, state, view) -> dict:
        # The options in force, from the engine's view (not the state's internals).
        options = rules.resolve_options(view["options"], len(view["players"]))
        scale = options.point_scale
        return {
            "rules": rules,
            "options": options,
            "sides": [side_label(s) for s in view["sides"]],  # the move's keys
            "shown": [side_name(s) for s in view["sides"]],  # what the form says
            "pack": [str(c) for c in rules.PACK],
            "counters": [c for c in map(str, rules.PACK) if rules.card_points([c], scale)],
        }

    @classmethod
    def fields(cls, ctx: dict) -> dict[str, Field]:
        sides, pack, counters = ctx["shown"], ctx["pack"], ctx["counters"]
        bonus = each(partial(ctx["rules"].sweep_bonus_refusal, options=ctx["options"]))
        taken = NumberRange(
            0, len(pack), message=_l("Cards taken must be whole numbers of 0 or more, %(n)s at most.", n=len(pack))
        )
        out: dict[str, Field] = {
            "cycle": card_choice(_l("Counting card"), counters, _l("Tap one of the counting cards.")),
            "sb": card_choice(_l("Sweep card"), pack, _l("Tap a card of the pack.")),
            "sb_card": card_choice(_l("Card played"), pack, _l("The card played is a card of the pack.")),
            "sb_taken": Cards(_l("Cards swept"), [Length(max=len(pack) - 1)], choices=[SelectChoice(c) for c in pack]),
            "sb_add": seat_choice(_l("Add this sweep to"), sides),
            "add_sweep": seat_choice(_l("Add the bonus to"), sides),
            **all_but_last("cards", sides, taken),
        }
        for i, side in enumerate(sides):
            out[f"sweeps_{i}"] = Numbers(
                _l("Sweeps of %(name)s", name=side),
                [Length(max=cls.most_sweeps(ctx)), bonus],
                message=_l("Sweep bonuses are whole numbers above 0."),
            )
            out[f"bonus_{i}"] = WholeNumber(_l("Sweep bonus for %(name)s", name=side), [Optional(), bonus])
            out[f"remove_sweep_{i}"] = Pick(
                _l("Remove a sweep of %(name)s", name=side),
                coerce=whole,
                choices=[],
                invalid_choice_message=_l("%(name)s has no such sweep.", name=side),
                invalid_value_message=_l("%(name)s has no such sweep.", name=side),
            )
        for card in counters:
            out[f"owner_{card}"] = seat_choice(card, sides, default=0)
        return out

    @staticmethod
    def most_sweeps(ctx: dict) -> int:
        return len(ctx["pack"]) // 2  # a sweep takes at least one card with the card played

    def __init__(self, ctx: dict, **kwargs):
        super().__init__(ctx, **kwargs)
        for i in range(len(ctx["sides"])):  # only a sweep on screen can be removed
            sweeps = self[f"sweeps_{i}"].data
            self[f"remove_sweep_{i}"].choices = [SelectChoice(k, str(b)) for k, b in enumerate(sweeps)]

    def validate_sb_taken(self, field):
        if self.sb_card.data in (field.data or []):
            raise ValidationError(_l("The card played can't be among the cards it swept."))

    def taps(self) -> list:
        out = [
            (self.record, self._record),
            (self.cycle, self._cycle),
            (self.sb, self._build),
            (self.sb_clear, self._clear),
            (self.sb_add, self._add_built),
            (self.add_sweep, self._add_typed),
        ]
        return out + [(self[f"remove_sweep_{i}"], partial(self._remove, i)) for i in range(len(self.ctx["sides"]))]

    def _cycle(self, card: str) -> None:
        owner = self[f"owner_{card}"]
        owner.data = (owner.data + 1) % len(self.ctx["sides"])

    def _build(self, card: str) -> None:
        """The sweep builder: the first card tapped is the one played, then each tap adds
        or takes back a swept card; the played card again starts over."""
        played, swept = self.sb_card, self.sb_taken
        if played.data is None:
            played.data = card
        elif card == played.data:
            self._clear(True)
        elif card in swept.data:
            swept.data = [c for c in swept.data if c != card]
        else:
            swept.data = swept.data + [card]

    def _clear(self, on) -> None:
        if on:
            self.sb_card.data, self.sb_taken.data = None, []

    def _add(self, side: int, bonus: int) -> str | None:
        sweeps = self[f"sweeps_{side}"]
        if len(sweeps.data) >= self.most_sweeps(self.ctx):
            return _(
                "%(name)s can't have more than %(n)s sweeps in a deal.",
                name=self.ctx["shown"][side],
                n=self.most_sweeps(self.ctx),
            )
        sweeps.data = sweeps.data + [bonus]
        return None

    def _add_built(self, side: int) -> str | Reason | None:
        if self.sb_card.data is None or not self.sb_taken.data:
            return _("Tap the card played, then the cards it swept.")
        try:
            bonus = self.ctx["rules"].sweep_of(self.sb_card.data, self.sb_taken.data, self.ctx["options"]).bonus
        except MoveError as e:
            return e.reason
        refusal = self._add(side, bonus)
        if refusal is None:
            self._clear(True)
        return refusal

    def _add_typed(self, side: int) -> str | None:
        typed = self[f"bonus_{side}"]
        if typed.data is None:
            return _("Type the bonus of %(name)s's sweep first.", name=self.ctx["shown"][side])
        refusal = self._add(side, typed.data)
        if refusal is None:
            typed.data, typed.raw_data = None, []  # used: the box is empty again
        return refusal

    def _remove(self, side: int, k: int) -> None:
        sweeps = self[f"sweeps_{side}"]
        sweeps.data = sweeps.data[:k] + sweeps.data[k + 1 :]

    def model(self) -> dict:
        sides, counters = self.ctx["sides"], self.ctx["counters"]
        owner = {c: self[f"owner_{c}"].data for c in counters}
        sweeps = [self[f"sweeps_{i}"].data for i in range(len(sides))]
        taken = [self[f"cards_{i}"].data for i in range(len(sides) - 1)]
        last = len(self.ctx["pack"]) - sum(taken) if None not in taken else None
        move, problems, notes = None, [], []
        if last is None:
            problems.append(_("Enter the cards each side took."))
        else:
            if len(sides) > 1 and len({owner[c] for c in counters}) == 1:  # as it opens, or all tapped over
                notes.append(
                    _(
                        "Every counting card is with %(name)s: tap each one another side took.",
                        name=self.ctx["shown"][owner[counters[0]]],
                    )
                )
            move = {
                "type": "tally",
                "cards": dict(zip(sides, taken + [last])),
                "counters": {s: [c for c in counters if owner[c] == i] for i, s in enumerate(sides)},
                "sweeps": {s: sweeps[i] for i, s in enumerate(sides) if sweeps[i]},
            }
        return {
            "sides": self.ctx["shown"],
            "counters": counters,
            "owner": owner,
            "sweeps": sweeps,
            "taken": taken,
            "last": last,
            "pack_size": len(self.ctx["pack"]),
            "played": self.sb_card.data,
            "swept": self.sb_taken.data,
            "move": move,
            "problems": problems,
            "notes": notes,
        }
