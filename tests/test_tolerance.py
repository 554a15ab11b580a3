"""tests/tolerance.py's bound against sums computed in other orders: a blocked (vectorised) sum and a
sequential one, in float32 and bf16-stored, each within the bound of the exact float64 sum, and the
bound tight enough that a relative error of 1e-3 breaks it."""
from __future__ import annotations

import pytest
import torch

from tests.tolerance import lam, tolerance


@pytest.mark.parametrize("n", [16, 576, 4096, 49152])
@pytest.mark.parametrize("signs", ["positive", "mixed"])
def test_two_orders_of_one_sum_stay_within_the_bound(n, signs):
    gen = torch.Generator().manual_seed(n)
    x = torch.rand(200, n, generator=gen, dtype=torch.float64)
    if signs == "mixed":
        x = x - 0.5
    exact = x.sum(-1)
    blocked = x.float().sum(-1).double()                  # torch's vectorised, blocked sum
    sequential = x.float().cumsum(-1)[:, -1].double()     # one term at a time
    size = x.abs().sum(-1)                                # sum |x_i|: the magnitude the bound takes
    for got in (blocked, sequential):
        bound = torch.tensor([tolerance(torch.float32, float(s), [n], elements=200) for s in size]) / 2  # one side
        assert bool(((got - exact).abs() <= bound).all())
    both = torch.tensor([tolerance(torch.float32, float(s), [n], elements=200) for s in size])
    assert bool(((blocked - sequential).abs() <= both).all())
    # not vacuous: a relative error of 1e-3 in the sum is far outside it
    assert bool((1e-3 * exact.abs() > both).sum() >= 190) or signs == "mixed"


def test_lambda_grows_with_the_elements_compared():
    assert 5 < lam(1) < lam(1000) < lam(10 ** 6) < 8.5


def test_a_low_precision_store_adds_its_rounding():
    x = torch.randn(1000, dtype=torch.float64)
    stored = x.to(torch.bfloat16).double()
    assert float((stored - x).abs().max()) <= tolerance(torch.bfloat16, float(x.abs().max()), stores=1,
                                                        elements=1000, accumulate=torch.float32) / 2


def test_make_test_kernels_runs_the_numeric_tests_under_two_other_cpus():
    """`make test-kernels` as typed (a dry run: the real one takes minutes): both forced settings, and
    every file it names exists."""
    import subprocess
    from pathlib import Path
    root = Path(__file__).resolve().parents[1]
    out = subprocess.run(["make", "-n", "test-kernels"], cwd=root, capture_output=True, text=True, check=True).stdout
    lines = [line for line in out.splitlines() if "pytest" in line]
    assert len(lines) == 2
    assert "ATEN_CPU_CAPABILITY=avx2" in lines[0] and "ONEDNN_MAX_CPU_ISA=AVX2" in lines[0]
    assert "ONEDNN_MAX_CPU_ISA=AVX512_CORE_BF16" in lines[1]
    files = [w for w in lines[0].split() if w.startswith("tests/")]
    assert "tests/test_decode_step.py" in files and all((root / f).exists() for f in files)
