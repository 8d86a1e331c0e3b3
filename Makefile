# speedref: `make test` and `make sim` work on a fresh machine with Python 3.11+ and make.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
MPY_OUT := build/mpy

.PHONY: test quick sim bench soak mpy flash clean venv web web-serve node mutate docs

venv: $(STAMP)

# Create the venv and install pinned dependencies (re-run when the pins change).
$(STAMP): requirements-dev.txt pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -r requirements-dev.txt
	$(PY) -m pip install -q --disable-pip-version-check --no-deps -e .
	touch $(STAMP)

# npm packages of the emulated Pico (rp2040js) and the web page (MicroPython
# on WebAssembly), pinned in package-lock.json.  Without Node.js the tests
# that need them skip, and this says so in one line.
NODE_STAMP := node_modules/.installed-stamp
$(NODE_STAMP): package.json package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
		npm ci --no-audit --no-fund --loglevel=error && touch $@; \
	else \
		echo "Node.js 18+ (node, npm) is not installed: the emulated Pico and web page tests will skip"; \
	fi

node: $(NODE_STAMP)

# Compile every firmware file with the real MicroPython compiler.
mpy: $(STAMP)
	$(PY) -m host_tools.board.build --out $(MPY_OUT)

# Every core (pytest-xdist): the board tests each drive their own emulated
# Pico, so two run side by side on a 2-core machine.  A file's tests go to
# one worker together (its module fixtures, such as one emulated game for
# several assertions, are made once), the files in collection order, which
# starts the longest tests first (tests/conftest.py).  The 15 slowest tests
# are listed at the end.
PYTEST_RUN := -q -n auto --dist loadfile --no-loadscope-reorder --durations=15 --durations-min=1

test: $(STAMP) $(NODE_STAMP) mpy
	$(PY) -m pytest $(PYTEST_RUN)

# The quick loop while you work: everything but the emulated Pico and the web
# page in headless Chromium (README says how long each takes).
quick: $(STAMP) mpy
	$(PY) -m pytest $(PYTEST_RUN) -m "not board and not web"

# Mutation testing of the rules engine, the arbiter and each game flow's
# verdicts (its methods marked "# verdict"; docs/testing.md): not part of make
# test.  FILES= picks files (default: engine/*.py, arbiter.py, app/*_flow.py),
# SAMPLE= mutants drawn from each (default: all), SEED= the draw, WORKERS= the
# processes (default 2).
MUTATE_STAMP := $(VENV)/.mutate-stamp
FILES ?=
SAMPLE ?= 0
SEED ?= 1
WORKERS ?= 2
$(MUTATE_STAMP): requirements-mutate.txt $(STAMP)
	$(PY) -m pip install -q --disable-pip-version-check -r requirements-mutate.txt
	touch $(MUTATE_STAMP)

mutate: $(MUTATE_STAMP)
	$(PY) -m tools.mutate --sample $(SAMPLE) --seed $(SEED) --workers $(WORKERS) $(if $(FILES),--files $(FILES))

sim: $(STAMP)
	$(VENV)/bin/speedref-sim

bench: $(STAMP) mpy
	$(PY) benchmarks/run_all.py

# Computer players at the virtual table: 1,000 games of each game, the referee
# app's verdicts checked against what really happened (long: minutes per game).
soak: $(STAMP)
	$(PY) benchmarks/table_soak.py --games 1000

# The referee as a web page (MicroPython on WebAssembly): a static site in
# build/web/, served on this machine only by web-serve (docs/web.md).
WEB_OUT := build/web
WEB_PORT ?= 8000
web: $(STAMP) $(NODE_STAMP)
	$(PY) web/build.py --out $(WEB_OUT)

web-serve: web
	$(PY) -m http.server $(WEB_PORT) --bind 127.0.0.1 --directory $(WEB_OUT)

flash: $(STAMP)
	$(VENV)/bin/speedref-flash

# the wiring diagrams in docs/, drawn from the board files (make test checks them),
# and the README's picture of the ratings on the results page (headless Chromium)
docs: $(STAMP)
	$(PY) -m tools.wiring_diagram
	$(PY) -m tools.results_screens docs/screens

clean:
	rm -rf build .pytest_cache
