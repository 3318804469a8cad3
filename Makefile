# The two commands: `make run` and `make test`. Both create .venv when
# missing and install what they need; a second `make install` does nothing.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   ?= .venv
BIN    := $(VENV)/bin
PIP    := $(BIN)/python -m pip
# constraints.txt pins torch to the CPU wheel (a bare torch is a multi-GB
# CUDA build) and Django to 5.2 LTS.
PIPFLAGS := --disable-pip-version-check --quiet --constraint constraints.txt

.PHONY: install install-dev run test lint typecheck pytest clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed: pyproject.toml constraints.txt | $(BIN)/python
	$(PIP) install $(PIPFLAGS) --editable .
	@touch $@

$(VENV)/.installed-dev: pyproject.toml constraints.txt $(VENV)/.installed
	$(PIP) install $(PIPFLAGS) --editable '.[dev]'
	@touch $@

install: $(VENV)/.installed

install-dev: $(VENV)/.installed-dev

run: install
	$(BIN)/python manage.py up

lint: install-dev
	$(BIN)/ruff check .

typecheck: install-dev
	$(BIN)/mypy .

pytest: install-dev
	$(BIN)/python -m pytest

test: lint typecheck pytest

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
