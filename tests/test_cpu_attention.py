"""The CPU decode step's one-token attention kernel (pipeline/engines/cpu_attention.py) against torch's SDPA
in float32 on the same cache: every supported head size and group, float32 and bf16, each row at
its own length, the query a strided view as the step passes it."""
from __future__ import annotations

import os

import pytest
import torch

from pipeline.engines import cpu_attention
from tests.tolerance import assert_close, tolerance

sdpa = torch.nn.functional.scaled_dot_product_attention


def case(n: int, heads: int, kv_heads: int, dim: int, dtype: torch.dtype, room: int = 96, seed: int = 0):
    gen = torch.Generator().manual_seed(seed)
    slots = n + 2
    k = torch.randn(slots, kv_heads, room, dim, generator=gen).to(dtype)
    v = torch.randn(slots, kv_heads, room, dim, generator=gen).to(dtype)
    qk = torch.randn(n, heads + kv_heads, dim, generator=gen).to(dtype)   # the step's q and k in one tensor
    pos = torch.randint(0, room, (n,), generator=gen)
    pos[0] = 0                                                            # a row with one key
    pos[-1] = room - 1                                                    # a row reading the whole room
    return qk[:, :heads], k, v, pos


def reference(q, k, v, pos, scale):
    """float32 SDPA with the mask the step builds (keys [0, pos] of each row), over the first n slots."""
    n = q.shape[0]
    mask = torch.where(torch.arange(k.shape[2])[None, :] <= pos[:, None], 0.0, float("-inf")).view(n, 1, 1, -1)
    return sdpa(q[:, :, None].float(), k[:n].float(), v[:n].float(), attn_mask=mask, scale=scale,
                enable_gqa=True)[:, :, 0]


@pytest.fixture(scope="module")
def kernel():
    k = cpu_attention.kernel()
    assert k is not None, "the kernel must build where the tests run (a C++ compiler and ninja)"
    return k


@pytest.mark.parametrize("dim", cpu_attention.HEAD_DIMS)
@pytest.mark.parametrize("heads,kv_heads", [(4, 4), (9, 3), (14, 2), (16, 2)])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_the_kernel_computes_float32_attention(kernel, dim, heads, kv_heads, dtype):
    q, k, v, pos = case(5, heads, kv_heads, dim, dtype)
    assert not q.is_contiguous()                                          # a view of the step's q and k
    out = kernel(q, k, v, pos, 0.125)
    assert out.shape == q.shape and out.dtype == dtype
    ref = reference(q, k, v, pos, 0.125)
    # the scores' sums (dim), the softmax's and the weighted values' (the room), in float32 for either
    # dtype: a score's error moves an output by up to 2 max|v| times it, hence max|v| (1 + max|score|)
    keys = k[: len(q)].float().repeat_interleave(heads // kv_heads, 1)                 # (n, heads, room, dim)
    score = float(torch.einsum("nhd,nhkd->nhk", q.float(), keys).abs().max()) * 0.125
    atol = tolerance(torch.float32, float(v.float().abs().max()) * (1 + score), [dim, k.shape[2], k.shape[2]],
                     elements=ref.numel())
    if dtype == torch.float32:
        assert_close(out, ref, atol)
        return
    # bf16 inputs, float32 arithmetic: the output's own bf16 rounding (half an ulp, at most u |x|) on top
    # of the float32 arithmetic's error, which may tip a value at a tie to the other side
    over = (out.float() - ref).abs() - (torch.finfo(dtype).eps / 2 * ref.abs() + atol)
    assert float(over.max()) <= 0, float(over.max())


def test_a_row_reads_only_its_own_keys_and_is_the_same_alone(kernel):
    """NaN past a row's position changes nothing; a row's output is bitwise the same computed alone
    or among others (one task per row and key/value head: no arithmetic shared across rows)."""
    q, k, v, pos = case(6, 9, 3, 64, torch.bfloat16, seed=3)
    out = kernel(q, k, v, pos, 0.125)
    poisoned_k, poisoned_v = k.clone(), v.clone()
    for r in range(len(pos)):
        poisoned_k[r, :, int(pos[r]) + 1:] = float("nan")
        poisoned_v[r, :, int(pos[r]) + 1:] = float("nan")
    assert torch.equal(kernel(q, poisoned_k, poisoned_v, pos, 0.125), out)
    for r in range(len(pos)):
        alone = kernel(q[r:r + 1], k[r:r + 1].contiguous(), v[r:r + 1].contiguous(), pos[r:r + 1], 0.125)
        assert torch.equal(alone[0], out[r])


def test_bad_input_is_refused_with_what_is_wrong(kernel):
    q, k, v, pos = case(3, 9, 3, 64, torch.float32)
    with pytest.raises(RuntimeError, match="outside the cache"):
        kernel(q, k, v, torch.tensor([0, 5, 96]), 0.125)
    with pytest.raises(RuntimeError, match="of one dtype"):
        kernel(q, k.bfloat16(), v, pos, 0.125)
    with pytest.raises(RuntimeError, match="contiguous"):
        kernel(q, k.transpose(2, 3).contiguous().transpose(2, 3), v, pos, 0.125)
    q48, k48, v48, pos48 = case(3, 9, 3, 48, torch.float32)
    assert not cpu_attention.supports(9, 3, 48, torch.float32)
    with pytest.raises(RuntimeError, match="head_dim 48"):
        kernel(q48, k48, v48, pos48, 0.125)
    assert not cpu_attention.supports(18, 2, 64, torch.float32)         # 9 query heads a group: SDPA
    assert not cpu_attention.supports(9, 3, 64, torch.float16)


def test_a_machine_where_it_does_not_build_keeps_sdpa(monkeypatch, caplog):
    """No compiler: one warning saying so, and the step runs SDPA."""
    monkeypatch.setenv("CXX", "no-such-compiler-here")
    cpu_attention.module.cache_clear()
    path = os.environ["PATH"]
    try:
        with caplog.at_level("WARNING"):
            assert cpu_attention.kernel() is None
        assert "did not build" in caplog.text and "no-such-compiler-here" in caplog.text
        assert os.environ["PATH"] == path                                  # ninja's directory not left on it
    finally:
        cpu_attention.module.cache_clear()


def test_a_build_killed_midway_leaves_no_lock_that_hangs_the_next(kernel, tmp_path):
    """torch's build lock is a file: a process killed while building leaves it, and torch's loader
    waits on it forever. Ours is an flock its process's end releases: the next process loads."""
    import subprocess
    import sys
    where = cpu_attention.build_dir()
    assert (where / f"{where.name}.so").exists(), "the fixture built the kernel"
    (where / "lock").write_text("")                                       # a killed build's leftover
    code = "from pipeline.engines import cpu_attention; assert cpu_attention.kernel() is not None"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert not (where / "lock").exists()


def test_make_setup_builds_the_kernels_and_says_a_missing_compiler(tmp_path):
    """`python -m pipeline.engines.cpu_attention` as `make setup` runs it: built (or found) and ready; with no
    C++ compiler (CXX pointing nowhere, a fresh cache) it says so and how to fix it, exiting 0."""
    import subprocess
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parents[1]
    ok = subprocess.run([sys.executable, "-m", "pipeline.engines.cpu_attention"], cwd=root, capture_output=True, text=True,
                        timeout=600)
    assert ok.returncode == 0 and "ready" in ok.stdout, ok.stdout + ok.stderr[-2000:]
    none = subprocess.run([sys.executable, "-m", "pipeline.engines.cpu_attention"], cwd=root, capture_output=True, text=True,
                          timeout=600, env={**os.environ, "CXX": "no-such-compiler", "RLAIF_CACHE": str(tmp_path)})
    assert none.returncode == 0 and "not built" in none.stdout and "apt-get install g++" in none.stdout
    assert "no C++ compiler (no-such-compiler)" in none.stdout + none.stderr
    make = subprocess.run(["make", "-n", "-W", "pyproject.toml", "setup"], cwd=root, capture_output=True, text=True)
    assert "-m pipeline.engines.cpu_attention" in make.stdout
