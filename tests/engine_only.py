"""A pytest plugin for `make mutants` (issue 47): the engine tests alone, quickest first.

mutmut runs the engine test files against each mutant of the engines; a test in those files
that drives the web app (it asks for the ``app``, ``client`` or ``database`` fixture) needs
the templates, the catalogs and a store, and checks pages rather than rules, so it is left
out here (``make test`` runs it). mutmut stops at a mutant's first failing test (``-x``), so
the vectors and examples run before the Hypothesis properties, which play whole games: a
mutant a vector catches costs a fraction of a second. Loaded with ``-p tests.engine_only``
(pyproject.toml's ``[tool.mutmut]``).
"""

WEB_FIXTURES = frozenset({"app", "client", "csrf_app", "csrf_client", "database", "postgres_server", "pg_url"})


def pytest_collection_modifyitems(config, items):
    web = [item for item in items if WEB_FIXTURES & set(getattr(item, "fixturenames", ()))]
    if web:
        config.hook.pytest_deselected(items=web)
    kept = [item for item in items if item not in web]
    kept.sort(key=lambda item: bool(getattr(getattr(item, "obj", None), "is_hypothesis_test", False)))
    items[:] = kept


def pytest_configure(config):
    """Under mutmut, each call of an engine function goes through its trampoline, which
    reads the mutant under test from ``os.environ`` each time: a third of a mutant's test
    time on the engines' hottest helpers. The mutant is set before pytest starts and kept
    for the whole session, so it is read once here (when mutmut is not running, or no
    longer has that function, nothing changes)."""
    try:
        from mutmut.mutation import trampoline
    except ImportError:
        return
    read = getattr(trampoline, "get_mutant_under_test", None)
    if read is None or getattr(read, "once", False):
        return
    mutant = read()

    def once():
        return mutant

    once.once = True
    config.add_cleanup(lambda: setattr(trampoline, "get_mutant_under_test", read))
    trampoline.get_mutant_under_test = once
