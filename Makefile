# Every target sets itself up: a fresh clone needs only python3 (and apt for Chromium).
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
HOST   ?= 127.0.0.1
PORT   ?= 5000
SUDO   := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: run test bench chromium clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $(STAMP)

# Browser tests drive Debian's Chromium; never `playwright install` (it downloads a browser).
chromium:
	@command -v chromium >/dev/null 2>&1 || { \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium >/dev/null; }

run: $(STAMP)
	$(VENV)/bin/flask --app companion run --host $(HOST) --port $(PORT)

test: $(STAMP) chromium
	$(PY) -m pytest

bench: $(STAMP)
	$(PY) bench/capture_options.py
	$(PY) bench/server.py
	$(PY) bench/page_weight.py

clean:
	rm -rf $(VENV) .hypothesis
