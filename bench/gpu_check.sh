#!/usr/bin/env bash
# The GPU checks in one call on a lent GPU machine (no network there; see docs/guides/gpu.md):
# install the carried wheels, run `make test-gpu` with the machine's python3, then bench/gpu.py.
#
#   bash bench/gpu_check.sh SECONDS [SECTION ...]
#
# Sections (default: all, in this order): tests, 1.5b (ours and TRL, 32 x 8 x 256), profile (ours at
# 1.5b, its update stage under torch.profiler; the decode loop's counts), 3b (ours, 8 prompts x 8
# samples x 512 tokens in 4 optimizer steps of 16 rows: that it fits), 0.5b (ours and TRL). A section starts only while 30 s of SECONDS are left, and
# is stopped at the end of them. Logs and figures go to $OUT (default /tmp/gpu-check): one log per
# section, bench/RESULTS.md with the new tables appended, sampler_gap.json. Needs .whl (from
# bench/gpu_wheels.sh) and .gpu/cache/models/smollm2-135m-instruct-tokenizer beside the checkout.
set -u
budget=${1:-480}
shift || true
sections=${*:-"tests 1.5b profile 3b 0.5b"}
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
  case $s in
    tests) timeout "$l" make -o .venv/.installed test-gpu PY=python3 >"$out/tests.log" 2>&1
           echo "rc $?"; grep -E "passed|failed|error|SKIP" "$out/tests.log" | tail -8 ;;
    1.5b)  timeout "$l" python3 bench/gpu.py --shapes 1.5b --models /tmp/students >"$out/bench-1.5b.log" 2>&1
           echo "rc $?"; grep -E "^1.5b|x TRL|MFU|floor|failed" "$out/bench-1.5b.log" | cut -c1-400 ;;
    profile) timeout "$l" python3 bench/gpu.py --shapes 1.5b --skip-trl --profile "$out/profile-1.5b.txt" --models /tmp/students >"$out/bench-profile.log" 2>&1
           echo "rc $?"; grep -E "^1.5b|decode loop|== stage|failed" "$out/bench-profile.log" "$out/profile-1.5b.txt" | cut -c1-400 ;;
    3b)    timeout "$l" python3 bench/gpu.py --shapes 3b --prompts 8 --k 8 --new 512 --steps 4 --skip-trl --models /tmp/students >"$out/bench-3b.log" 2>&1
           echo "rc $?"; grep -E "^3b|MFU|floor|failed" "$out/bench-3b.log" | cut -c1-400 ;;
    0.5b)  timeout "$l" python3 bench/gpu.py --shapes 0.5b --models /tmp/students >"$out/bench-0.5b.log" 2>&1
           echo "rc $?"; grep -E "^0.5b|x TRL|MFU|floor|failed" "$out/bench-0.5b.log" | cut -c1-400 ;;
    *)     echo "unknown section $s" ;;
  esac
  echo "   $s took $(($(date +%s) - t0)) s"
done
cp bench/RESULTS.md "$out/RESULTS.md"
