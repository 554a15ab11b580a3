#!/usr/bin/env bash
# The GPU checks in one call on a lent GPU machine (no network there; see docs/guides/gpu.md):
# install the carried wheels, run `make test-gpu` with the machine's python3, then bench/gpu.py.
#
#   bash bench/gpu_check.sh SECONDS [SECTION ...]
#
# Sections (default: all, in the order tests 1.5b update step transformers 3b 0.5b profile): tests, 1.5b (ours and TRL, 32 x 8 x 256, three runs each, the sides
# alternating, so that each ratio carries its interval; ours with sample.decode_step
# auto, on CUDA graphs: the decode step replayed from CUDA graphs), step (ours at 1.5b with
# sample.decode_step=ours: the same step, eager), transformers (ours at 1.5b with
# sample.decode_step=transformers: the model's own forward), profile (ours at
# 1.5b, its update stage under torch.profiler; the decode loop's counts), 3b (ours and TRL, 8 prompts x 8
# samples x 512 tokens in 4 optimizer steps of 16 rows: that it fits), 0.5b (ours and TRL), update (bench/update_profile.py:
# one micro-batch of the 1.5b widths at 2 and 4 layers, ours against TRL, kernel launches, syncs and seconds
# each). A section starts only while 30 s of SECONDS are left, and
# is stopped at the end of them (bench/gpu.py then tables the runs that finished). Logs and figures go to $OUT (default /tmp/gpu-check): setup.log,
# tests.log, bench.log (every bench section's), profile-1.5b.txt, sampler_gap.json and bench/RESULTS.md
# with the new tables appended (6 files: a device call returns 8 at most). Needs .whl (from
# bench/gpu_wheels.sh) and .gpu/cache/models/smollm2-135m-instruct-tokenizer beside the checkout.
set -u
budget=${1:-480}
shift || true
sections=${*:-"tests 1.5b update step transformers 3b 0.5b profile"}
end=$(($(date +%s) + budget))
out=${OUT:-/tmp/gpu-check}
mkdir -p "$out"
left() { echo $((end - $(date +%s))); }

{
  date -u
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl 2>&1 | tail -3
} >"$out/setup.log" 2>&1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 RLAIF_CACHE=$PWD/.gpu/cache RLAIF_GPU_FIGURES=$out
python3 -c "import torch, transformers, trl, peft; print('torch', torch.__version__, 'transformers', transformers.__version__, 'trl', trl.__version__, 'peft', peft.__version__, torch.cuda.get_device_name())" >>"$out/setup.log" 2>&1
cat "$out/setup.log"

for s in $sections; do
  l=$(left)
  if [ "$l" -lt 30 ]; then echo "== $s: skipped, $l s left"; continue; fi
  echo "== $s ($l s left)"
  t0=$(date +%s)
  log=/tmp/gpu-check-$s.log
  case $s in
    tests) timeout "$l" make -o .venv/.installed test-gpu PY=python3 >"$out/tests.log" 2>&1
           echo "rc $?"; grep -E "passed|failed|error|SKIP" "$out/tests.log" | tail -8 ;;
    1.5b)  timeout "$l" python3 bench/gpu.py --shapes 1.5b --repeats 3 --models /tmp/students >"$log" 2>&1; echo "rc $?" ;;
    transformers) timeout "$l" python3 bench/gpu.py --shapes 1.5b --skip-trl --models /tmp/students sample.decode_step=transformers >"$log" 2>&1
           echo "rc $?" ;;
    step)  timeout "$l" python3 bench/gpu.py --shapes 1.5b --skip-trl --models /tmp/students sample.decode_step=ours >"$log" 2>&1
           echo "rc $?" ;;
    profile) timeout "$l" python3 bench/gpu.py --shapes 1.5b --skip-trl --profile "$out/profile-1.5b.txt" --models /tmp/students >"$log" 2>&1
           echo "rc $?"; grep -E "decode loop|== stage" "$out/profile-1.5b.txt" | cut -c1-400 ;;
    3b)    timeout "$l" python3 bench/gpu.py --shapes 3b --prompts 8 --k 8 --new 512 --steps 4 --models /tmp/students >"$log" 2>&1
           echo "rc $?" ;;
    0.5b)  timeout "$l" python3 bench/gpu.py --shapes 0.5b --models /tmp/students >"$log" 2>&1; echo "rc $?" ;;
    update) timeout "$l" python3 bench/update_profile.py --device cuda --new 256 --models /tmp/students >"$log" 2>&1
           echo "rc $?"; grep -E "^\| (ours|trl) \||^(ours|trl):" "$log" ;;
    *)     echo "unknown section $s" ;;
  esac
  if [ -f "$log" ]; then
    grep -E "^(0.5b|1.5b|3b) (ours|trl)|x TRL|MFU|floor|failed" "$log" | cut -c1-400
    { echo "== $s"; cat "$log"; } >>"$out/bench.log"
  fi
  echo "   $s took $(($(date +%s) - t0)) s"
done
cp bench/RESULTS.md "$out/RESULTS.md"
