# Every target creates .venv and installs the project into it when needed.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test bench figures clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev,cluster,qd,tune,dashboard,rl]'
	touch $(STAMP)

run: $(STAMP)
	$(PY) -m evolution.run --generations 50

# One process per core, each taking whole test files, so that the clusters
# and runs a file shares between its tests are made once.
test: $(STAMP)
	$(PY) -m pytest -q --numprocesses auto --dist loadfile

bench: $(STAMP)
	@for f in benchmarks/bench_*.py; do echo "== $$f"; $(PY) $$f || exit 1; done

# Every table of figures in the README, from the current code (about eight hours on 2 cores).
figures: $(STAMP)
	$(PY) benchmarks/figures.py

clean:
	rm -rf $(VENV) build *.egg-info
