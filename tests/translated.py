"""Every reason the app makes while a test runs has its Japanese words and all it places (a
pytest plugin: tests/conftest.py loads it).

The tables it referees are in Japan: a refusal, a choice, an outcome or a line of the log
that has only English words shows them to a Japanese table as they are. Each ``Reason``
the app's own code (a file in ``companion/``) makes while a test runs is kept, and the
test fails if the Japanese catalog (``companion/translations/ja``) has no words for its
text, or its text places a param it lacks, or one that is None. The catalog is read from
its source, ``messages.po``, so nothing needs compiling. Reasons a test, a toy game or a
docstring's example makes are not the app's, and one read back from a game's data was
checked when it was made. A changed English text fails here until the catalog has it
(`make messages`).
"""

from __future__ import annotations

import os
import re
import sys
from functools import cache

import pytest
from babel.messages.pofile import read_po

from companion.errors import Reason
from tests import ROOT

CATALOG = ROOT / "companion" / "translations" / "ja" / "LC_MESSAGES" / "messages.po"
PLACE = re.compile(r"%\((\w+)\)([sdr])")
PASSED = ("companion.errors", "mutmut.")
APP = str(ROOT / "companion") + os.sep  # the app's own code: not a test's, nor a toy game's


@cache
def japanese() -> frozenset[str]:
    """The English texts the Japanese catalog words."""
    with CATALOG.open("rb") as f:
        catalog = read_po(f)
    return frozenset(m.id for m in catalog if isinstance(m.id, str) and m.id and m.string and not m.fuzzy)


made: list[Reason] = []
_init = Reason.__init__


def _kept(self: Reason, code: str, text: str, /, **kwargs: object) -> None:
    _init(self, code, text, **kwargs)
    frame = sys._getframe(1)
    # Who made it: past a refusal made from its parts (errors.py), and past mutmut's trampolines,
    # which stand between a caller and the function it calls under `make mutants`.
    while frame is not None and frame.f_globals.get("__name__", "").startswith(PASSED):
        if frame.f_code.co_name == "from_json":
            return  # read back from a game's data: checked when its engine made it
        frame = frame.f_back
    if frame is not None and frame.f_code.co_filename.startswith(APP):  # not a docstring's example
        made.append(self)


Reason.__init__ = _kept  # type: ignore[method-assign]


def faults(reason: Reason) -> list[str]:
    """What a reader of ``reason`` would miss: its Japanese words, a param its text places, or
    a value in place of "None" (a value shown as the player gave it, ``%(name)r``, may be)."""
    out = [] if reason.text in japanese() else [f"no Japanese words for {reason.text!r} (`make messages`)"]
    words = reason.words()
    for name, kind in PLACE.findall(reason.text):
        if name not in words:
            out.append(f"{reason.code}: no {name!r} for {reason.text!r}")
        elif words[name] is None and kind != "r":
            out.append(f"{reason.code}: {name!r} is None in {reason.text!r}")
    return out


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    made.clear()
    result = yield
    found = sorted({fault for r in made for fault in faults(r)})
    made.clear()
    if found:
        raise AssertionError("; ".join(found))
    return result
