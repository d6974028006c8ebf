# Every target creates .venv and installs the project into it when needed:
# `run` the project alone (what a run of the default method needs), the
# others every extra too (tests, cluster, MAP-Elites, tuning, dashboard, RL).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
BASE := $(VENV)/.installed-base
STAMP := $(VENV)/.installed

.PHONY: run test test-broad bench figures clean

# pip compiles the bytecode of what it installs one file after another,
# half of its time here: compileall does it on every core instead. (A file
# it cannot compile is one pip would have skipped too: never imported.)
COMPILE := $(PY) -m compileall -q -j 0 $(VENV)/lib >/dev/null 2>&1 || true
COMPILE_ONE_CORE := $(PY) -m compileall -q $(VENV)/lib >/dev/null 2>&1 || true

# numpy and Numba, as pyproject.toml requires them: all that compiling the
# engine needs, so a first compile can start before the rest is installed.
ENGINE_DEPS := $(VENV)/.installed-engine
ENGINE_REQUIREMENTS = $(shell $(PYTHON) -c 'import tomllib; print(" ".join(repr(r) \
	for r in tomllib.load(open("pyproject.toml", "rb"))["project"]["dependencies"] \
	if r.startswith(("numpy>", "numba>"))))')

$(ENGINE_DEPS): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --no-compile $(ENGINE_REQUIREMENTS)
	touch $(ENGINE_DEPS)

# The default run's engine (about 30 s on one core) compiles while pip
# installs the rest on the other core and then compiles its bytecode there.
$(BASE): $(ENGINE_DEPS)
	PYTHONPATH=. $(PY) -m speednik.engine basic --policy linear & \
	nice $(PY) -m pip install --quiet --no-compile -e .; status=$$?; \
	test $$status != 0 || nice $(COMPILE_ONE_CORE); wait; exit $$status
	touch $(BASE)

$(STAMP): $(BASE)
	$(PY) -m pip install --quiet --no-compile -e '.[dev,cluster,qd,tune,dashboard,rl]'
	$(COMPILE)
	touch $(STAMP)

run: $(BASE)
	$(PY) -m evolution.run --generations 50

# One process per core, each taking whole test files, so that the clusters
# and runs a file shares between its tests are made once. Every behaviour is
# proved here once (one stage, one seed of each sweep); the rest of the
# sweeps (marked broad) and the slow end-to-end proofs (marked slow: a
# browser, a cluster's failures, processes racing, learning curves) run in
# test-broad. pytest keeps each test module's rewritten asserts as
# bytecode; where the environment says to write none
# (PYTHONDONTWRITEBYTECODE), every worker would rewrite all of them again
# (some 6 s each), so the tests write bytecode whatever it says.
test: $(STAMP)
	PYTHONDONTWRITEBYTECODE= $(PY) -m pytest -q -m "not broad and not slow" --numprocesses auto --dist loadfile

# The sweeps: every stage, seed, loop size and setting beyond the first,
# long random play; and the slow end-to-end proofs. A few files hold most
# of them, so they are spread test by test.
test-broad: $(STAMP)
	PYTHONDONTWRITEBYTECODE= $(PY) -m pytest -q -m "broad or slow" --numprocesses auto --dist load

bench: $(STAMP)
	@for f in benchmarks/bench_*.py; do echo "== $$f"; $(PY) $$f || exit 1; done

# Every table of figures in the README, from the current code (about eight hours on 2 cores).
figures: $(STAMP)
	$(PY) benchmarks/figures.py

clean:
	rm -rf $(VENV) build *.egg-info
