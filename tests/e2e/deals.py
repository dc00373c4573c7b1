"""One whole deal of each game, dealt from a seeded shuffle, as the taps a referee makes on
the game page: worked out with the engine first (no web), then tapped in a browser.

``script(game, seed)`` gives the players and the steps; ``perform(page, step)`` taps one
step in and waits for the answer (every wait is Playwright's auto-waiting ``expect``, see
helpers.answered). A step is what one move takes on the page: a card (and the option the
rules ask for, when they ask), Tablanette's four layout cards, Tute's cante, Tantony's gift,
100's "can't go" with the hand shown. Used by the browser tests and by bench/phones.py.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from playwright.sync_api import expect

from companion.cards import PACK_52
from companion.errors import AmbiguousMove
from companion.games import hundred as H
from companion.games import tablanette as TB
from companion.games import tantony as TT
from companion.games import tute as TU
from tests.e2e.helpers import answered

PLAYERS = {
    "tablanette": ["Ann", "Ben"],
    "tute": ["Ann", "Ben", "Cat", "Dan"],
    "tantony": ["Nan", "Eve", "Sam", "Wes"],
    "hundred": ["Ann", "Ben", "Cat"],
}


@dataclass
class Step:
    """One move as the page enters it. ``kind``: card, layout, declare, give, cant_go.
    ``option``: the index of the option the rules ask for after the card (None: no
    question), ``total`` the number typed on 100's pad, ``confirm`` a bust confirmed."""

    kind: str
    cards: list[str] = field(default_factory=list)
    value: str | None = None
    option: int | None = None
    options: int = 0
    total: int | None = None
    move: dict = field(default_factory=dict)

    @property
    def taps(self) -> int:
        """Taps the step takes: one a card, plus the answer to a question."""
        if self.kind == "cant_go":
            return 2 + len(self.cards)  # "Can't go?", each card shown, "Check"
        return len(self.cards) + (self.option is not None) + (self.kind in ("declare", "give"))

    @property
    def card_count(self) -> int:
        return len(self.cards) if self.kind in ("card", "layout") else 0


def _asked(rules, state, move) -> list | None:
    """The options the rules ask to choose among for ``move``, or None when it applies."""
    try:
        rules.apply(state, move)
    except AmbiguousMove as e:
        return list(e.options)
    return None


def tablanette(seed: int) -> tuple[list[str], list[Step]]:
    rng = random.Random(seed)
    deck = [str(c) for c in TB.PACK]
    rng.shuffle(deck)
    layout = [c for c in deck if not c.startswith("J")][:4]
    s = TB.start(PLAYERS["tablanette"])
    s = TB.apply(s, {"type": "layout", "cards": layout})
    steps = [Step("layout", cards=layout, move={"type": "layout", "cards": layout})]
    for code in (c for c in deck if c not in layout):
        move = {"type": "play", "card": code}
        options = _asked(TB, s, move)
        step = Step("card", cards=[code], move=move)
        if options:
            step.option = rng.randrange(len(options))
            step.options = len(options)
            step.value = ",".join(options[step.option])
            move = {**move, "capture": list(options[step.option])}
            step.move = move
        s = TB.apply(s, move)
        steps.append(step)
    return PLAYERS["tablanette"], steps


def tute(seed: int, count: int = 4) -> tuple[list[str], list[Step]]:
    rng = random.Random(seed)
    players = (PLAYERS["tute"] + ["Eve"])[:count]
    deck = [str(c) for c in TU.pack(count)]
    rng.shuffle(deck)
    size = TU.HAND_SIZE[count]
    hands = {(1 + i) % count: deck[i * size : (i + 1) * size] for i in range(count)}
    s = TU.start(players)
    trump = {"type": "trump", "card": hands[0][-1]}
    steps = [Step("card", cards=[trump["card"]], move=trump)]
    s = TU.apply(s, trump)
    while s.deal == 1:
        seat = TU.to_act(s)
        held = [x for x in TU.declarable(s) if {f"K{x}", f"Q{x}"} <= set(hands[seat])]
        if held:
            move = {"type": "declare", "suit": held[0]}
            steps.append(Step("declare", value=held[0], move=move))
            s = TU.apply(s, move)
            continue
        code = rng.choice(sorted(TU.legal_plays(hands[seat], [c for _, c in s.trick], s.trump)))
        hands[seat].remove(code)
        move = {"type": "play", "card": code}
        steps.append(Step("card", cards=[code], move=move))
        s = TU.apply(s, move)
    return players, steps


def tantony(seed: int) -> tuple[list[str], list[Step]]:
    rng = random.Random(seed)
    players = PLAYERS["tantony"]
    deck = [str(c) for c in TT.pack(4)]
    rng.shuffle(deck)
    hands = {i: deck[i * 13 : (i + 1) * 13] for i in range(4)}
    s = TT.start(players, {"dealer": "Wes"})
    steps = []
    while s.deal == 1:
        v = TT.view(s)
        if "give" in v["expects"]:
            move = {"type": "give", "to": rng.choice(v["room"])}
            steps.append(Step("give", value=move["to"], move=move))
        else:
            seat = TT.to_act(s)
            code = rng.choice(sorted(TT.legal_plays(hands[seat], [c for _, c in s.trick])))
            hands[seat].remove(code)
            move = {"type": "play", "card": code}
            steps.append(Step("card", cards=[code], move=move))
        s = TT.apply(s, move)
    return players, steps


def hundred(seed: int) -> tuple[list[str], list[Step]]:
    """A hand of 100 played from real hands: each player plays a card that keeps the total
    at 100 or under (the total announced chosen at random), and the first who can't shows
    the hand."""
    rng = random.Random(seed)
    players = PLAYERS["hundred"]
    deck = [str(c) for c in PACK_52]
    rng.shuffle(deck)
    size = H.hand_size()
    hands = {i: [deck.pop() for _ in range(size)] for i in range(3)}
    s = H.start(players, {"dealer": "Cat"})
    steps = []
    while not s.history:
        seat = H.to_act(s)
        safe = [c for c in sorted(hands[seat]) if H.safe_totals(c, s.total, s.options)]
        if not safe:
            move = {"type": "lose", "hand": sorted(hands[seat])}
            steps.append(Step("cant_go", cards=sorted(hands[seat]), move=move))
            s = H.apply(s, move)
            break
        code = rng.choice(safe)
        move = {"type": "play", "card": code}
        step = Step("card", cards=[code], move=move)
        options = _asked(H, s, move)
        if options:
            total = rng.choice(sorted(H.safe_totals(code, s.total, s.options)))
            step.options = len(options)
            step.total = total
            step.option = options.index(total)
            move = {**move, "total": total}
            step.move = move
        s = H.apply(s, move)
        steps.append(step)
        hands[seat].remove(code)
        if deck:
            hands[seat].append(deck.pop())
    return players, steps


SCRIPTS = {"tablanette": tablanette, "tute": tute, "tantony": tantony, "hundred": hundred}


def script(game: str, seed: int = 1, **table) -> tuple[list[str], list[Step]]:
    """The players and steps of one deal of ``game`` (Tute: ``count`` players, 4 unless said)."""
    return SCRIPTS[game](seed, **table)


def perform(page, step: Step) -> None:
    """Tap ``step`` in on the game page and wait for each answer."""
    if step.kind == "layout":
        *first, last = step.cards
        for code in first:
            page.click(f".layout-form label:has(input[value='{code}'])")
        answered(page, lambda: page.click(f".layout-form label:has(input[value='{last}'])"))
    elif step.kind == "declare":
        answered(page, lambda: page.click(f"#live form:has(input[name=suit][value={step.value}]) button"))
    elif step.kind == "give":
        answered(page, lambda: page.click(f"#live form:has(input[name=to][value={step.value}]) button"))
    elif step.kind == "cant_go":
        answered(page, lambda: page.click(".reveal"))
        for code in step.cards:
            page.click(f".reveal-form label:has(input[value='{code}'])")
        answered(page, lambda: page.click(".reveal-form button[type=submit]"))
    else:
        answered(page, lambda: page.click(f"#pick-{step.cards[0]}"))
        if step.option is not None:
            answer(page, step)
    expect(page.locator("#live .error")).to_have_count(0)


def answer(page, step: Step) -> None:
    """Answer the question a card asked: the option the script chose."""
    sheet = page.locator("#live .choice.sheet")
    if step.total is not None and sheet.locator("#announced").count():  # 100's number pad
        page.fill("#announced", str(step.total))
        answered(page, lambda: sheet.locator(".pad button[type=submit]").click())
    elif step.total is not None:
        answered(page, lambda: sheet.locator(f"form:has(input[name=total][value='{step.total}']) button").click())
    elif sheet.locator(".take-form").count() and not step.value:  # laid down after all
        answered(page, lambda: sheet.locator("form:not(.take-form):has(input[name='capture[]']) button").click())
    elif sheet.locator(".take-form").count():  # many captures: the cards taken, tapped
        for code in step.value.split(","):
            sheet.locator(f".take-form label:has(input[value='{code}'])").click()
        answered(page, lambda: sheet.locator(".take-form button[type=submit]").click())
    else:
        answered(page, lambda: sheet.locator(".option").nth(step.option).click())
