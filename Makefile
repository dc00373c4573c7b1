# Every target sets itself up: a fresh clone needs only python3 (and apt for Chromium).
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
# What serving needs, and what the tests, lint and bench add (the dev extra): each pinned in
# a lock file kept in the repo (`make lock` refreshes them from pyproject.toml).
LOCK     := requirements.lock
DEV_LOCK := requirements-dev.lock
SERVE    := $(VENV)/.serve
DEV      := $(VENV)/.dev
HOST   ?= 0.0.0.0
PORT   ?= 5000
SUDO   := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: run dev test lint screens bench fuzz chromium postgresql clean messages lock unicode-tables pyodide \
        mutants mutants-changed

$(PY):
	$(PYTHON) -m venv $(VENV)

# `make run` installs only what serving needs; the project itself from the checkout.
$(SERVE): $(LOCK) pyproject.toml | $(PY)
	$(PY) -m pip install -q --disable-pip-version-check -r $(LOCK)
	$(PY) -m pip install -q --disable-pip-version-check --no-deps -e .
	touch $@

# `make test`, `make lint`, `make bench`: the dev extra on top, pinned too.
$(DEV): $(DEV_LOCK) $(SERVE)
	$(PY) -m pip install -q --disable-pip-version-check -r $(DEV_LOCK)
	touch $@

# The lock files again from pyproject.toml (after changing a dependency there): the newest
# versions that fit it, for Python 3.11, each file's hashes with it (pip then installs only
# those files); commit both. `make lint` fails while they no longer match pyproject.toml.
COMPILE := $(VENV)/bin/uv pip compile -q --generate-hashes --python-version 3.11 pyproject.toml
lock: $(DEV)
	$(COMPILE) --upgrade -o $(LOCK)
	$(COMPILE) --upgrade --extra dev -o $(DEV_LOCK)

# The Unicode data names.py reads (companion/unicode_tables.py: scripts, default-ignorable
# characters, Arabic's and Hebrew's vowel marks, UTS #39's confusables), written from ICU's
# compiled copy of Unicode's files when Unicode is updated; commit it. ICU goes into a
# throwaway venv for that, never into the app's (its wheel alone weighed 49 MB).
unicode-tables:
	@tmp=$$(mktemp -d) && $(PYTHON) -m venv $$tmp && $$tmp/bin/pip install -q --disable-pip-version-check pyicu-wheels \
	  && $$tmp/bin/python tools/unicode_tables.py > $$tmp/tables.py && cat $$tmp/tables.py > companion/unicode_tables.py; \
	  status=$$?; rm -rf $$tmp; exit $$status

# The catalogs: compiled from the .po files kept in the repo (make run and make test do it).
CATALOGS := companion/translations
MO       := $(patsubst %.po,%.mo,$(wildcard $(CATALOGS)/*/LC_MESSAGES/messages.po))
# Besides gettext's own names, what the engines word their refusals and explanations with
# (a code, then the English text that is the message id) and N_ for labels kept as data.
KEYWORDS := -k N_ -k Reason:2 -k Refusal:2 -k MoveError:2 -k IllegalMove:2 -k InvalidMove:2 \
            -k AmbiguousMove:2 -k OptionError:2 -k SchemaError:2 -k NothingToUndo:2 -k _l -k lazy_gettext

%.mo: %.po $(SERVE)
	$(VENV)/bin/pybabel -q compile -i $< -o $@

# After changing words in the code or templates: extract them and update each catalog
# (then translate what is new; tests/test_i18n.py fails on anything untranslated or fuzzy).
messages: $(DEV)
	$(VENV)/bin/pybabel -q extract -F babel.cfg --no-location --sort-output $(KEYWORDS) \
	  -w 120 -o $(CATALOGS)/messages.pot .
	$(VENV)/bin/pybabel -q update -i $(CATALOGS)/messages.pot -d $(CATALOGS) --no-fuzzy-matching --ignore-obsolete -w 120

# Pyodide for the phones (issue 45): the npm package pinned in pyodide.lock, its tarball checked
# against the integrity pinned there (a mismatch is refused), only what a browser fetches
# kept in vendor/pyodide/ (git-ignored), the standard library trimmed, each file compressed
# once. VERSION is written last: the stamp. Without npm the app runs without it (a warning).
PYODIDE := vendor/pyodide/VERSION
$(PYODIDE): pyodide.lock tools/vendor_pyodide.py | $(SERVE)
	$(PY) tools/vendor_pyodide.py
pyodide: $(PYODIDE)

# Browser tests drive Debian's Chromium; never `playwright install` (it downloads a browser).
# Chromium (the bench's phones), its headless shell (the tests' browser: the same engine, far
# less CPU), and a Japanese font so the browser tests measure (and screenshots show) Japanese
# text as a phone draws it rather than as missing-glyph boxes.
chromium:
	@{ command -v chromium && command -v chromium-headless-shell && fc-list :lang=ja | grep -q .; } >/dev/null 2>&1 || { \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
	  $(SUDO) apt-get install -y -qq chromium chromium-headless-shell fonts-ipafont-gothic >/dev/null; }

# PostgreSQL's server programs, for the tests and the benchmark to start a throwaway server
# (the store's PostgreSQL backend, issue 19); the Debian package's own cluster is not used.
postgresql:
	@ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null 2>&1 || { \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq postgresql >/dev/null; }

# Serve the table: every interface by default (HOST=127.0.0.1 keeps it private), gunicorn
# with threads; the first lines printed are the address to open on the phones and its QR code.
run: $(SERVE) $(MO) $(PYODIDE)
	@$(PY) -m companion.serve --host $(HOST) --port $(PORT)

# Flask's debug server with the reloader, for working on the code (this machine only).
dev: $(SERVE) $(MO) $(PYODIDE)
	$(VENV)/bin/flask --app companion run --debug --host 127.0.0.1 --port $(PORT)

# Tests write only to temporary folders: no bytecode caches in the checkout either. Three
# workers on two cores: a third of the suite waits (on Chromium, on servers it boots), and
# with one worker a core the suite took 5 min 41 s here, with three 4 min 36 s (four took as
# long as three, now). Idle workers take tests queued for the others (worksteal): the suite's
# long tests then less often leave one worker running alone at the end (6 min 1 s, from 6 min 24 s).
test: $(DEV) chromium postgresql $(MO) $(PYODIDE)
	PYTHONDONTWRITEBYTECODE=1 $(PY) -m pytest -n 3 --dist worksteal

# The lock files against pyproject.toml (tools/check_locks.py: offline, no index asked), lint,
# format, types (ruff, mypy: strict on the engines) and the layers (import-linter:
# pyproject.toml's contracts), leaving no cache in the checkout.
lint: $(DEV)
	$(PY) tools/check_locks.py
	$(VENV)/bin/ruff check --no-cache .
	$(VENV)/bin/ruff format --no-cache --check .
	$(VENV)/bin/mypy --cache-dir=/dev/null
	$(VENV)/bin/lint-imports --no-cache

# The browser tests again, keeping their screenshots in tests/e2e/screens/ (git-ignored) to look at.
screens: $(DEV) chromium $(MO) $(PYODIDE)
	COMPANION_SCREENS=tests/e2e/screens PYTHONDONTWRITEBYTECODE=1 $(PY) -m pytest tests/e2e

bench: $(DEV) chromium postgresql $(MO) $(PYODIDE)
	$(PY) bench/capture_options.py
	$(PY) bench/server.py
	$(PY) bench/watch.py
	$(PY) bench/page_weight.py
	$(PY) bench/taps.py
	$(PY) bench/stats.py
	$(PY) bench/phones.py
	$(PY) bench/painted.py
	$(PY) bench/phone_start.py
	PYTHONDONTWRITEBYTECODE=1 $(PY) -m pytest -q -m full tests/e2e

# The large runs of what `make test` runs bounded: the form crawl (tests/test_crawl.py: every hostile value in
# every field of every form, and random values from the seed it prints; COMPANION_FUZZ_SEED=<seed> replays a
# run), schemathesis against the API's OpenAPI document (tests/test_openapi.py, 1000 cases an operation),
# and the slowest random tests with three times the examples (tests/conftest.py, examples(): whole random
# games, forms, routes and lab questions). The large crawl takes minutes: the suite's two-minute limit on a
# test (pyproject.toml) is half an hour here.
FUZZED := tests/test_crawl.py tests/test_openapi.py tests/test_tablanette_properties.py tests/test_tute_properties.py \
          tests/test_tally_forms.py tests/test_fuzz_routes.py tests/test_lab_query.py
fuzz: $(DEV) $(MO)
	COMPANION_FUZZ=1 PYTHONDONTWRITEBYTECODE=1 $(PY) -m pytest $(FUZZED) -s --timeout 1800

# Mutation testing of the engine layer (issue 47: companion/games/*.py, cards.py, errors.py):
# mutmut changes the engines one small change at a time and runs the engine tests on each
# (pyproject.toml's [tool.mutmut]: no browser, no PostgreSQL, no web app); a change every
# test passes on is a rule no test holds. Then each module's score: at least 90% killed
# (survivors that change nothing are listed in docs/MUTANTS.md). mutmut works in mutants/
# (git-ignored) and keeps its results there: a second run tests only the functions changed
# since (rm -rf mutants for a fresh one). The whole run takes hours on two cores: a change to
# an engine runs `make mutants-changed` instead, the mutants of the engine functions changed
# against `git merge-base HEAD $(MUTANTS_BASE)` (tools/mutants_changed.py).
MUTANTS_CHILDREN ?= 2
MUTANTS_BASE     ?= main
mutants: $(DEV)
	PYTHONDONTWRITEBYTECODE=1 $(VENV)/bin/mutmut run --max-children $(MUTANTS_CHILDREN)
	$(PY) tools/mutants_report.py --min 90

mutants-changed: $(DEV)
	PYTHONDONTWRITEBYTECODE=1 $(PY) tools/mutants_changed.py --base $(MUTANTS_BASE) --max-children $(MUTANTS_CHILDREN)

clean:
	rm -rf $(VENV) .hypothesis vendor mutants
