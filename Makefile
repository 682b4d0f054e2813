# Two commands for a newcomer: `make run` and `make test`. Both create .venv on first use.
PY      ?= python3
VENV    := .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed

.PHONY: help run console test lint bench clean

help:  ## list the targets
	@grep -E '^[a-z]+:.*## ' $(MAKEFILE_LIST) | awk 'BEGIN{FS=":.*## "}{printf "  %-8s %s\n", $$1, $$2}'

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)  ## start the configured front-ends (console when no token is set)
	$(BIN)/python -m bot run

console: $(STAMP)  ## chat with the core in this terminal
	$(BIN)/python -m bot console

test: $(STAMP)  ## run the test-suite (offline)
	$(BIN)/python -m pytest -q

lint: $(STAMP)  ## ruff + mypy (strict on core/, ontology/, bot/ and the test doubles)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy core ontology bot tests/telegram/stub_core.py tests/doubles.py

bench: $(STAMP)  ## print performance figures (see README)
	$(BIN)/python -m bench.run
	$(BIN)/python -m bench.recall
	$(BIN)/python -m bench.worlds
	$(BIN)/python -m bench.trials

clean:  ## remove the virtualenv and caches (keeps ./data)
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
