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
