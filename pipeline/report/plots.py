"""The report's plots (matplotlib PNGs under runs/<run>/report/): rewards, loss and KL, entropy
and spread, score parts, judge cost and cache hits, seconds per stage; one per group of metrics
with data to show. A training metric's epoch 0 (the supervised warm-start) is a marker of its own,
not joined to the RL epochs' line, as the table's trend leaves it out (table.py)."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pipeline.config.epoch import ReportConfig
from pipeline.metrics.doc import as_number, series
from pipeline.report.table import rl_only, stage_times

if TYPE_CHECKING:
    from matplotlib.figure import Figure


# -- plots --------------------------------------------------------------------------------
def _line(ax, ms: list[dict], key: str, label: str | None = None, **kw) -> bool:
    pts = series(ms, key)
    label = label or key
    if pts and rl_only(key, [e for e, _ in pts], [v for _, v in pts]):
        rl = [(e, v) for e, v in pts if e >= 1]
        (line,) = ax.plot([e for e, _ in rl], [v for _, v in rl], marker="o", label=label, **kw)
        ax.plot([0], [v for e, v in pts if e == 0], marker="D", linestyle="none", markerfacecolor="none",
                color=line.get_color(), label=f"{label}, epoch 0 (warm-start: SFT)")
    elif pts:
        ax.plot([e for e, _ in pts], [v for _, v in pts], marker="o", label=label, **kw)
    return bool(pts)


def _finish(fig, axes, ms: list[dict]) -> None:
    epochs = [int(m["epoch"]) for m in ms]
    for ax in axes:
        ax.set_xlabel("epoch")
        if len(epochs) <= 20:
            ax.set_xticks(epochs)
        ax.grid(alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8)
    fig.tight_layout()


def make_plots(ms: list[dict], out: Path, cfg: ReportConfig, stage_order: list[str] = ()) -> list[tuple[str, Path]]:
    """PNG plots of the run into `out`; returns (title, path) of those with data to show."""
    out.mkdir(parents=True, exist_ok=True)
    made = []
    for title, name, fig in figures(ms, cfg, stage_order):
        fig.savefig(out / name, dpi=100)
        made.append((title, out / name))
    return made


def figures(ms: list[dict], cfg: ReportConfig, stage_order: list[str] = ()) -> list[tuple[str, str, "Figure"]]:
    """(title, file name, figure) of each plot with data to show."""
    from matplotlib.figure import Figure  # Figure + savefig renders with Agg; no pyplot global state
    made: list[tuple[str, str, Figure]] = []

    def new(n_axes: int = 1):
        fig = Figure(figsize=(7, 3.2 * n_axes))
        return fig, [fig.add_subplot(n_axes, 1, i + 1) for i in range(n_axes)]

    fig, (ax,) = new()
    if sum(_line(ax, ms, k) for k in ("reward/mean", "reward/best_of_n", "eval/score", "eval/pass@1")):
        _line(ax, ms, "score/student_mean", linestyle=":")
        ax.set_title("rewards")
        _finish(fig, [ax], ms)
        made.append(("Rewards", "rewards.png", fig))

    fig, (a1, a2) = new(2)
    has_loss = sum(_line(a1, ms, k) for k in ("loss/total", "loss/policy", "loss/kl", "loss/sft"))
    has_kl = sum(_line(a2, ms, k) for k in ("kl/k3", "kl/k1"))
    if has_loss or has_kl:
        a1.set_title("loss")
        a2.set_title("KL(pi || ref)")
        a2.axhline(cfg.kl_target, color="gray", linestyle="--", label="report.kl_target")
        a2.axhline(0, color="black", linewidth=0.5)
        _finish(fig, [a1, a2], ms)
        made.append(("Loss and KL", "loss_kl.png", fig))

    fig, (a1, a2) = new(2)
    has_e = _line(a1, ms, "policy/entropy")
    has_z = sum(_line(a2, ms, k) for k in ("reward/frac_zero_std", "completion/diversity", "completion/truncated_frac"))
    if has_e or has_z:
        a1.set_title("policy entropy (nats)")
        a1.axhline(cfg.min_entropy, color="gray", linestyle="--", label="report.min_entropy")
        a2.set_title("spread of completions")
        a2.axhline(cfg.max_frac_zero_std, color="gray", linestyle="--", label="report.max_frac_zero_std")
        _finish(fig, [a1, a2], ms)
        made.append(("Entropy and zero-spread groups", "entropy.png", fig))

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
        _finish(fig, [a1, a2], ms)
        made.append(("Score breakdown", "breakdown.png", fig))

    es = sorted({int(m["epoch"]) for m in ms})
    panels = []   # each panel with something other than zeros to show: a free judge's dollars are not drawn
    for title, keys in (("judge dollars per epoch", ("judge/cost_usd", "judge/saved_usd")),
                        ("judgements: computed vs cached", ("judge/api_calls", "judge/cache_hits"))):
        vals = [dict(series(ms, k)) for k in keys]
        if any(v for d in vals for v in d.values()):
            panels.append((title, keys, [[d.get(e, 0) for e in es] for d in vals]))
    if panels:
        fig, axes = new(len(panels))
        for ax, (title, keys, (first, second)) in zip(axes, panels):
            if keys[0] == "judge/cost_usd":   # dollars side by side
                ax.bar([e - 0.2 for e in es], first, width=0.4, label=keys[0])
                ax.bar([e + 0.2 for e in es], second, width=0.4, label=keys[1])
            else:                             # judgements stacked
                ax.bar(es, first, label=keys[0])
                ax.bar(es, second, bottom=first, label=keys[1])
            ax.set_title(title)
        _finish(fig, axes, ms)
        made.append(("Judge cost and cache hits" if len(panels) == 2 else panels[0][0].capitalize(), "judge.png", fig))

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
        _finish(fig, [ax], ms)
        made.append(("Seconds per stage", "time.png", fig))
    return made
