# The two commands of the README: `make play` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: play test setup lint typecheck bench clean tui lock

$(STAMP): pyproject.toml requirements.lock
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.lock
	$(PY) -m pip install --quiet --no-deps -e .
	touch $(STAMP)

setup: $(STAMP)

## Start the web game on the embedded default (SQLite in ./data); prints the address.
## LAN=1: friends on your local network can join (invite links use your LAN address).
play: $(STAMP)
	$(VENV)/bin/slapjack serve $(if $(LAN),--lan)

## Play in the terminal.
tui: $(STAMP)
	$(VENV)/bin/slapjack tui

## Set up and run the whole test suite (lint, types, tests).
test: $(STAMP)
	bash scripts/test-prereqs.sh
	$(PY) -m ruff check src tests bench
	$(PY) -m mypy --strict src/slapjack/core
	$(PY) -m pytest -q

lint: $(STAMP)
	$(PY) -m ruff check src tests bench
	$(PY) -m ruff format --check src tests bench

typecheck: $(STAMP)
	$(PY) -m mypy --strict src/slapjack/core

bench: $(STAMP)
	$(PY) bench/engine.py

## Regenerate the lock file from pyproject.toml (needs uv).
lock:
	uv pip compile pyproject.toml --extra dev --python-version 3.11 -o requirements.lock

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
