"""The report's plots (matplotlib PNGs under runs/<run>/report/): rewards, loss and KL, entropy
and spread, score parts, judge cost and cache hits, seconds per stage; one per group of metrics
with data to show."""
from __future__ import annotations

from pathlib import Path

from pipeline.config.epoch import ReportConfig
from pipeline.metrics.doc import as_number, series


def stage_times(ms: list[dict], order: list[str] = ()) -> list[str]:
    """time/<stage>_s keys present, in stage order (then the rest, sorted)."""
    present = {k for m in ms for k in m if k.startswith("time/") and k.endswith("_s") and k != "time/epoch_s"}
    first = [f"time/{name}_s" for name in order if f"time/{name}_s" in present]
    return first + sorted(present - set(first))


# -- plots --------------------------------------------------------------------------------
def _line(ax, ms: list[dict], key: str, label: str | None = None, **kw) -> bool:
    pts = series(ms, key)
    if pts:
        ax.plot([e for e, _ in pts], [v for _, v in pts], marker="o", label=label or key, **kw)
    return bool(pts)


def _finish(fig, axes, ms: list[dict], path: Path) -> None:
    epochs = [int(m["epoch"]) for m in ms]
    for ax in axes:
        ax.set_xlabel("epoch")
        if len(epochs) <= 20:
            ax.set_xticks(epochs)
        ax.grid(alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def make_plots(ms: list[dict], out: Path, cfg: ReportConfig, stage_order: list[str] = ()) -> list[tuple[str, Path]]:
    """PNG plots of the run into `out`; returns (title, path) of those with data to show."""
    from matplotlib.figure import Figure  # Figure + savefig renders with Agg; no pyplot global state
    out.mkdir(parents=True, exist_ok=True)
    made: list[tuple[str, Path]] = []

    def new(n_axes: int = 1):
        fig = Figure(figsize=(7, 3.2 * n_axes))
        return fig, [fig.add_subplot(n_axes, 1, i + 1) for i in range(n_axes)]

    fig, (ax,) = new()
    if sum(_line(ax, ms, k) for k in ("reward/mean", "reward/best_of_n", "eval/score", "eval/pass@1")):
        _line(ax, ms, "score/student_mean", linestyle=":")
        ax.set_title("rewards")
        _finish(fig, [ax], ms, out / "rewards.png")
        made.append(("Rewards", out / "rewards.png"))

    fig, (a1, a2) = new(2)
    has_loss = sum(_line(a1, ms, k) for k in ("loss/total", "loss/policy", "loss/kl"))
    has_kl = sum(_line(a2, ms, k) for k in ("kl/k3", "kl/k1"))
    if has_loss or has_kl:
        a1.set_title("loss")
        a2.set_title("KL(pi || ref)")
        a2.axhline(cfg.kl_target, color="gray", linestyle="--", label="report.kl_target")
        a2.axhline(0, color="black", linewidth=0.5)
        _finish(fig, [a1, a2], ms, out / "loss_kl.png")
        made.append(("Loss and KL", out / "loss_kl.png"))

    fig, (a1, a2) = new(2)
    has_e = _line(a1, ms, "policy/entropy")
    has_z = sum(_line(a2, ms, k) for k in ("reward/frac_zero_std", "completion/diversity", "completion/truncated_frac"))
    if has_e or has_z:
        a1.set_title("policy entropy (nats)")
        a1.axhline(cfg.min_entropy, color="gray", linestyle="--", label="report.min_entropy")
        a2.set_title("spread of completions")
        a2.axhline(cfg.max_frac_zero_std, color="gray", linestyle="--", label="report.max_frac_zero_std")
        _finish(fig, [a1, a2], ms, out / "entropy.png")
        made.append(("Entropy and zero-spread groups", out / "entropy.png"))

    fig, (a1, a2) = new(2)
    parts = [k for k in ("breakdown/structure", "breakdown/static", "breakdown/typecheck", "breakdown/load",
                         "breakdown/compile", "breakdown/tests") if series(ms, k)]
    if parts:
        for k in parts:
            _line(a1, ms, k, label=k.split("/")[1])
            _line(a2, ms, k + "_ok", label=k.split("/")[1] + "_ok")
        a1.set_title("execution score parts: mean credit per epoch")
        a2.set_title("share of completions with full credit (type-checks, compiles, passes every test)")
        for ax in (a1, a2):
            ax.set_ylim(-0.05, 1.05)
        _finish(fig, [a1, a2], ms, out / "breakdown.png")
        made.append(("Score breakdown", out / "breakdown.png"))

    cost = series(ms, "judge/cost_usd")
    calls, hits = dict(series(ms, "judge/api_calls")), dict(series(ms, "judge/cache_hits"))
    if cost or calls or hits:
        fig, (a1, a2) = new(2)
        saved = dict(series(ms, "judge/saved_usd"))
        es = sorted({int(m["epoch"]) for m in ms})
        a1.bar([e - 0.2 for e in es], [dict(cost).get(e, 0) for e in es], width=0.4, label="judge/cost_usd")
        a1.bar([e + 0.2 for e in es], [saved.get(e, 0) for e in es], width=0.4, label="judge/saved_usd")
        a1.set_title("judge dollars per epoch")
        a2.bar(es, [calls.get(e, 0) for e in es], label="judge/api_calls")
        a2.bar(es, [hits.get(e, 0) for e in es], bottom=[calls.get(e, 0) for e in es], label="judge/cache_hits")
        a2.set_title("judgements: computed vs cached")
        _finish(fig, [a1, a2], ms, out / "judge.png")
        made.append(("Judge cost and cache hits", out / "judge.png"))

    stages = stage_times(ms, stage_order)
    if stages:
        fig, (ax,) = new()
        es = [int(m["epoch"]) for m in ms]
        bottom = [0.0] * len(ms)
        for k in stages:
            vals = [as_number(m.get(k)) or 0.0 for m in ms]
            ax.bar(es, vals, bottom=bottom, width=0.6, label=k[5:-2])
            bottom = [b + v for b, v in zip(bottom, vals)]
        ax.set_ylabel("seconds")
        ax.set_title("seconds per stage")
        _finish(fig, [ax], ms, out / "time.png")
        made.append(("Seconds per stage", out / "time.png"))
    return made
