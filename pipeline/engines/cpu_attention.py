"""The CPU decode step's C++ kernels (csrc/cpu_step.cpp), built once per torch install with torch's
extension builder: the one-token attention over the KV cache as it lies, and the step's elementwise
work fused into one call each (`module`).

torch's CPU SDPA runs a one-token query through its flash-attention kernel, blocked for long
queries: at 64 rows it took 47% of a SmolLM2-135M bf16 decode step at 25 GFLOP/s (bench/RESULTS.md).
This kernel gives each (row, key/value head) one task in which the group's query heads read each
key and value once, with scores, softmax and the weighted sum in float32 (in bf16, its output is
within its own rounding of float32 attention: tests/test_cpu_attention.py). Heads of 64 or 128 dims
(or 16), 1 to 8 query heads per key/value head, float32 or bfloat16; anything else, or a machine where it does not
build (no C++ compiler), runs SDPA, with one warning saying why.

The fused calls (`add_rms_norm`: the residual add and transformers' RMSNorm; `rope_write`: the
rotary embedding of q and k with k and v written into the cache; `silu_mul`: SiLU(gate) x up) take
a layer's elementwise work from about a hundred torch calls to three: on a step of a few rows the
calls, not the arithmetic, were the cost (bench/RESULTS.md). They round to the dtype where
transformers' separate bf16 operations round (tests/test_cpu_fused.py holds them to those).

The build needs a C++ compiler (g++ or clang) and ninja (a dependency); it takes up to a minute the
first time and lands in the cache (RLAIF_CACHE, default ~/.cache/rlaif: kernels/), where later
processes load it in about 2 s.
"""
from __future__ import annotations

import fcntl
import functools
import hashlib
import logging
import os
import re
import shutil
from pathlib import Path

import torch

log = logging.getLogger(__name__)

SOURCE = Path(__file__).parent / "csrc" / "cpu_step.cpp"
HEAD_DIMS = (16, 64, 128)  # the Llama family's 64 and 128; 16: the tests' tiny models
MAX_GROUP = 8
_FLAGS = {  # what torch's own CPU kernels are built with at each capability (ATen/cpu/vec)
    "AVX512": ["-DCPU_CAPABILITY_AVX512", "-DCPU_CAPABILITY=AVX512", "-mavx512f", "-mavx512bw",
               "-mavx512vl", "-mavx512dq", "-mfma"],
    "AVX2": ["-DCPU_CAPABILITY_AVX2", "-DCPU_CAPABILITY=AVX2", "-mavx2", "-mfma", "-mf16c"],
}


def supports(heads: int, kv_heads: int, head_dim: int, dtype: torch.dtype) -> bool:
    """Whether the kernel computes this attention shape and dtype."""
    return (head_dim in HEAD_DIMS and heads % kv_heads == 0 and heads // kv_heads <= MAX_GROUP
            and dtype in (torch.float32, torch.bfloat16))


def _capability() -> str:
    cap = torch.backends.cpu.get_cpu_capability()
    return "AVX512" if cap.startswith("AVX512") else cap


def build_dir() -> Path:
    """Where this torch install's build of the kernel lies: one per torch version, CPU capability
    and install (its headers' path is in the build's commands: another install rebuilds)."""
    from pipeline.store.paths import cache_root
    where_torch = hashlib.sha256(str(Path(torch.__file__).resolve()).encode()).hexdigest()[:8]
    return cache_root() / "kernels" / ("rlaif_cpu_step_" + re.sub(
        r"\W", "_", f"{torch.__version__}_{_capability()}_{where_torch}"))


def kernel():
    """The built extension's one_token_attention(q, k, v, pos, scale), or None where it does not
    build (logged once, with the reason)."""
    mod = module()
    return None if mod is None else mod.one_token_attention


@functools.lru_cache(maxsize=None)
def module():
    """The built extension (one_token_attention, add_rms_norm, rope_write, silu_mul, sample_pick), or
    None where it does not build (logged once, with the reason)."""
    cap, where = _capability(), build_dir()
    env_path = os.environ.get("PATH", "")
    try:
        from torch.utils.cpp_extension import load
        try:                                                 # the ninja of this environment, activated or not
            import ninja
            os.environ["PATH"] = ninja.BIN_DIR + os.pathsep + env_path
        except ImportError:
            pass
        if shutil.which(os.environ.get("CXX", "c++")) is None:
            raise RuntimeError(f"no C++ compiler ({os.environ.get('CXX', 'c++')}) on PATH")
        where.mkdir(parents=True, exist_ok=True)
        with open(where / "build.flock", "w") as held:
            # torch's own build lock is a file that a process killed mid-build leaves behind, and
            # every later build waits on it forever; ours is released when its process ends, and
            # whoever holds it knows that a torch lock file present is such a leftover
            fcntl.flock(held, fcntl.LOCK_EX)
            (where / "lock").unlink(missing_ok=True)
            # built from a copy in the cache: a checkout elsewhere with the same source and the same
            # torch shares the build (ninja rebuilds when a source's path changes)
            src = where / SOURCE.name
            if not src.exists() or src.read_bytes() != SOURCE.read_bytes():
                src.write_bytes(SOURCE.read_bytes())
            if not (where / f"{where.name}.so").exists():
                log.warning("building the CPU decode step's kernels into %s (once per torch install: up to a minute)",
                            where)
            # -fopenmp: at::parallel_for splits the rows over torch's threads only when _OPENMP is
            # defined (else it runs them on one thread); the libgomp is the one torch already loaded
            mod = load(where.name, [str(src)], extra_cflags=["-O3", "-fopenmp", *_FLAGS.get(cap, [])],
                       extra_ldflags=["-fopenmp"], build_directory=str(where), verbose=False)
        return mod
    except Exception as e:  # noqa: BLE001 - any build or load failure leaves SDPA in place
        log.warning("the CPU decode step's kernels (pipeline/engines/csrc/cpu_step.cpp) did not build, "
                    "so the decode step uses torch's SDPA and separate torch calls (slower): %s", str(e).strip()[-1500:])
        return None
    finally:
        os.environ["PATH"] = env_path


def main() -> int:
    """`python -m pipeline.engines.cpu_attention` (`make setup` runs it): build the kernels now, not inside the
    first sample stage's time, and say where; a missing compiler is said here. Exits 0 either way:
    without the kernels the decode step runs torch's SDPA (slower)."""
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    where = build_dir()
    built = (where / f"{where.name}.so").exists()
    print(f"the CPU decode step's kernels: {'built in' if built else 'building (once, up to a minute) into'} {where}",
          flush=True)
    if module() is None:
        print("  not built: the decode step will use torch's SDPA (slower); install a C++ compiler (g++, "
              "`apt-get install g++`) and rerun `python -m pipeline.engines.cpu_attention`")
    else:
        print("  ready")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
