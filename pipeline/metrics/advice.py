"""The flags' advice (pipeline/metrics/flags.py): which config keys to change and which way, from
the run's own settings, and what a run that cannot learn should try."""
from __future__ import annotations

from typing import Any

from pipeline.config.epoch import ReportConfig
from pipeline.metrics.doc import as_number


def _g(v: float | int) -> str:
    return f"{v:.4g}"


def key_change(key: str, way: str, settings: dict[str, Any], factor: float = 2.0, default: float | None = None) -> str:
    """'lower update.lr (e.g. 2e-05 -> 1e-05)' from the run's current value, when known."""
    cur = as_number(settings.get(key))
    if cur is None:   # the run's value is not known: no "from"
        return f"{way} {key}" + (f" (e.g. to {_g(default)})" if default is not None else "")
    if cur == 0:
        return f"{way} {key}" + (f" (e.g. 0 -> {_g(default)})" if default is not None else "")
    new = cur / factor if way == "lower" else cur * factor
    if isinstance(settings.get(key), int):
        new = max(1, round(new))
        if new == cur:   # an int at 1 lowers no further
            return f"{way} {key} (at {_g(cur)}, its least)"
    # ten times past the default the way to go: one step is no advice, the default is (rates and coefficients
    # only: a run's budget, prompts or samples or tokens, is its own to set)
    usual = _default_of(key) if key in TOWARD_DEFAULT else None
    if usual and ((way == "lower" and cur > 10 * usual) or (way == "raise" and 0 < cur < usual / 10)):
        return f"{way} {key} (e.g. {_g(cur)} -> {_g(usual)}, the default)"
    return f"{way} {key} (e.g. {_g(cur)} -> {_g(new)})"


def kl_target(s: dict[str, Any], report_target: float) -> tuple[float, str]:
    """(the KL target, its key): update.kl_target under adaptive KL (the controller steers toward it), else
    report.kl_target."""
    adaptive = s.get("update.kl_mode") == "adaptive" and as_number(s.get("update.kl_target"))
    return (as_number(s["update.kl_target"]), "update.kl_target") if adaptive else (report_target, "report.kl_target")


def kl_lever(s: dict[str, Any]) -> str:
    """The way to hold the policy nearer its reference: raise update.kl_coef, or under adaptive KL (which
    steers the coefficient itself) lower update.kl_target."""
    if s.get("update.kl_mode") == "adaptive":
        return key_change("update.kl_target", "lower", s)
    return key_change("update.kl_coef", "raise", s, default=0.05)


TOWARD_DEFAULT = ("update.lr", "update.sft_lr", "update.kl_coef", "sample.temperature", "reward.eps")


def _default_of(key: str) -> float | None:
    """The config's default for a numeric key ('update.lr' -> 0.0002), or None."""
    from pipeline.config.schema import Config
    try:
        value = Config().get(key)
    except AttributeError:
        return None
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0 else None


def passes_advice(settings: dict[str, Any]) -> str:
    """With several passes over each batch: they move the policy furthest (measured: update.epochs=2 on
    the embedded default, kl/k3 20.4 after epoch 1 against 0.011, bench/RESULTS.md 2026-11-29)."""
    passes = as_number(settings.get("update.epochs"))
    if not passes or passes <= 1:
        return ""
    return (f"; the {_g(passes)} passes over each batch (update.epochs) move it furthest: try update.epochs=1"
            + (", or update.kl_ratio=false (with it, a token whose ratio collapsed has its KL penalty scaled "
               "down by that ratio, so the penalty hardly pulls it back)" if settings.get("update.kl_ratio", True) else ""))


# -- analysis -----------------------------------------------------------------------------
# what the warm-start did for a run that could not learn, measured here (bench/RESULTS.md)
WARM_START_MEASURED = {
    "ocaml": (" (OCaml, embedded student, 16 held-out problems, 3 passes, paired 95% intervals: "
              "well-formed answers 48% -> 64%, +0.156 [+0.011, +0.301]; cut off 58% -> 27%, -0.313 "
              "[-0.462, -0.163]; mean score +0.032 [+0.014, +0.051]; type-check 0% -> 2%, within noise: "
              "the form, not yet the language)"),
    "python": (" (Python, embedded student, 188 held-out problems, 3 seeds, paired 95% intervals: sampled pass@1 "
               "+0.051 [+0.028, +0.073], graded score +0.070 [+0.055, +0.085]; docs/results.md)")}


def bounded_judge(s: dict[str, Any]) -> bool:
    """The run's judge scores in [0, 1] (execution, an LLM rubric, a mix of them); a Python reward function
    (judge.kind=python, or in judge.mix) may give any number, so its low mean says nothing of itself."""
    return s.get("judge.kind", "execution") in ("execution", "mix", "anthropic", "openai", "hf") and not (
        s.get("judge.kind") == "mix" and "judge.mix.python" in s)


def code_judge(s: dict[str, Any]) -> bool:
    """The run's judge reads code (execution, an LLM rubric, a mix with either); a reward function
    (judge.kind=python) or the toy length score reads no code block."""
    kind = s.get("judge.kind", "execution")
    if kind == "mix":   # judge.mix, flattened: judge.mix.execution -> weight (none given: the default mix)
        parts = [k.rsplit(".", 1)[1] for k, v in s.items() if k.startswith("judge.mix.") and as_number(v)]
        return not parts or any(p in ("execution", "anthropic", "openai", "hf") for p in parts)
    return kind in ("execution", "anthropic", "openai", "hf")


def stop_advice(s: dict[str, Any]) -> str:
    """', or ...': how to end answers before sample.max_new_tokens cuts them, for the run's judge."""
    if not code_judge(s):
        return ", or sample.stop (a string your answers end with)"
    return "" if s.get("sample.stop_after_code") else (
        ", or sample.stop_after_code=true so answers end when their first code block closes (no prose after it "
        "left to cut off)")


def no_signal_flag(m: dict, first: bool, cfg: ReportConfig, s: dict[str, Any]) -> tuple[str, str] | None:
    """(evidence, advice) when an epoch's student earns almost nothing (on a judge scoring in [0, 1]), or most
    of the first epoch's groups have no spread: GRPO then has (almost) no gradient, and more epochs will not
    change it."""
    get = lambda key: as_number(m.get(key))  # noqa: E731
    st, fz = get("score/student_mean"), get("reward/frac_zero_std")
    unsolved = st is None or st < 0.5   # zero-spread groups of a student that mostly fails; else mode_collapse's solved
    low = st is not None and st < cfg.min_student_score and bounded_judge(s)
    if not (low or (first and fz is not None and fz > 0.5 and unsolved)):
        return None
    parts = [f"{label} {get(k):.0%}" for k, label in (
        ("breakdown/structure_ok", "well-formed"), ("breakdown/static_ok", "parse"), ("breakdown/typecheck_ok",
         "type-check"), ("breakdown/compile_ok", "compile"), ("breakdown/tests_ok", "pass every test"))
        if get(k) is not None]
    evidence = ", ".join(x for x in (
        f"score/student_mean {st:.4f}" + (f" < report.min_student_score {cfg.min_student_score}"
                                           if low else "") if st is not None else "",
        f"reward/mean {get('reward/mean'):.4f}" if get("reward/mean") is not None else "",
        f"reward/frac_zero_std {fz:.2f}: {1 - fz:.0%} of the groups carry a gradient" if fz is not None else "",
        "answers " + ", ".join(parts) if parts else "") if x)
    g = int(as_number(s.get("sample.num_samples")) or 4)
    p = get("breakdown/tests_ok")
    share = lambda p, g: 1 - p ** g - (1 - p) ** g  # noqa: E731  a group of g pass/fail answers with spread
    levers = []
    if s.get("teacher.kind") == "none":   # no teacher's answers for a warm-start or teacher_sft_coef to learn
        levers.append("a teacher (teacher.kind=reference where your rows have a reference, or anthropic/openai): then "
                      "update.warm_start=true (a supervised pass over its answers before RL) and "
                      "update.teacher_sft_coef=4.0 (imitating it inside each update) teach the answer's form, a "
                      "gradient that needs no spread in the group")
    elif not s.get("update.warm_start"):
        levers.append("update.warm_start=true: a supervised pass over the teacher's answers before RL teaches the "
                      "answer's form, which the judge's partial credit then grades"
                      + WARM_START_MEASURED.get("ocaml" if s.get("data.language") == "ocaml" or str(
                          s.get("data.source", "")).startswith("ocaml:") else "python", ""))
    if not as_number(s.get("update.teacher_sft_coef")) and s.get("teacher.kind") != "none":
        levers.append("update.teacher_sft_coef=4.0: each update also imitates the teacher's answer where the "
                      "student's best scores below it, a gradient that needs no spread in the group")
    levers.append(f"{key_change('sample.num_samples', 'raise', s)}: at a pass rate p a group of G pass/fail answers has "
                  "spread with probability 1 - p^G - (1-p)^G" + (
                      f" ({share(p, g):.0%} at p={p:.2f}, G={g}; {share(p, 2 * g):.0%} at G={2 * g})" if p else
                      f" (no answer passes yet; at p=0.05: {share(0.05, g):.0%} at G={g}, {share(0.05, 2 * g):.0%} at "
                      f"G={2 * g})"))
    levers.append("easier problems: data.difficulties=[easy]" + (
        "" if s.get("curriculum.strategy") == "adaptive" else ", or curriculum.strategy=adaptive (it draws the "
        "problems the student's own pass rate puts in its band)"))
    tr = get("completion/truncated_frac")
    if tr is not None and tr > 0.1:
        levers.append(f"{key_change('sample.max_new_tokens', 'raise', s)} ({tr:.0%} of answers are cut off and score x "
                      "the judge's truncation_factor)")
    return evidence, "the run cannot learn as configured; levers: " + "; ".join(levers)
