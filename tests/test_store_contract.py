"""The store's interface, written down (companion/store/interface.py, issue 33), is what
both backends implement: every method with the same parameters, every attribute, checked
here for each as the engines are against theirs (tests/test_contract.py). A runtime
``isinstance`` against a Protocol checks only that names exist, so the parameters are
compared here."""

from __future__ import annotations

import inspect

import pytest

from companion.store import SqliteStore, Store
from companion.store.postgres import PostgresStore

MEMBERS = {
    name: value for name, value in vars(Store).items() if not name.startswith(("__", "_abc", "_is_"))
} | dict.fromkeys(Store.__annotations__)


def parameters(function) -> list[tuple[str, object]]:
    return [(p.name, p.default) for p in inspect.signature(function).parameters.values()]


@pytest.mark.parametrize("backend", [SqliteStore, PostgresStore], ids=["sqlite", "postgresql"])
@pytest.mark.parametrize("member", sorted(MEMBERS))
def test_each_backend_implements_the_store_interface(backend, member):
    written = MEMBERS[member]
    declared = {name for cls in backend.__mro__ for name in getattr(cls, "__annotations__", {})}
    assert hasattr(backend, member) or member in declared, f"{backend.__name__} lacks {member}"
    if written is None:  # an attribute
        return
    found = inspect.getattr_static(backend, member)
    if isinstance(written, property):
        assert isinstance(found, property), member
    elif callable(written):
        assert parameters(getattr(backend, member)) == parameters(written), member


def test_the_interface_is_what_the_views_use():
    """Every method the views, the command line, exports, statistics and the live hub call
    on the store is in the interface (a method added to a backend and called from a view
    must be written down too)."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent / "companion"
    called = set()
    for path in [*root.glob("*.py"), *root.glob("views/*.py")]:
        text = path.read_text(encoding="utf-8")
        called |= set(re.findall(r"store\(\)\.(\w+)", text))
        called |= set(re.findall(r"\bstore\.(\w+)\(", text))
    assert called and called <= set(MEMBERS), sorted(called - set(MEMBERS))
