"""The report's verdicts, from a new user's reading of a finished 4-epoch run: each eval figure (per source
too, ref_nll included) judged by its paired interval, the training reward by its own interval over other
prompts, trends over the RL epochs (not the warm-start's epoch 0), no 'flat' for a series that moved,
the settings `rlaif status` finds changed, and the plots that go with them."""
from __future__ import annotations

import json
import random

from pipeline.config.epoch import ReportConfig
from pipeline.report.plots import figures
from pipeline.report.report import write_report
from pipeline.report.status import status_lines
from pipeline.report.table import trend
from pipeline.run.runner import Runner
from pipeline.stages import Stage
from pipeline.store.artifacts import write_manifest
from pipeline.store.tables import save_table
from tests.test_report import STAGES, _noop, _rewards, fake_run  # noqa: F401 (fake_run: the fixture)

EVAL_STAGES = STAGES + [Stage("eval", "1", (), ("update",), _noop, variant=True)]


def _row(line_start: str, md: str) -> str:
    return next(line for line in md.splitlines() if line.startswith(line_start))


def _metrics(runner, epoch: int, **figures) -> None:
    p = runner.epoch_dir(epoch) / "metrics.json"
    m = json.loads(p.read_text()) if p.exists() else {"epoch": epoch}
    m.update(figures)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(m))


def _eval(runner, epoch: int, update_fp: str, rows: list[tuple[str, float, float]], config: dict | None = None) -> None:
    """An eval of (source, pass@1, ref_nll) per problem, and its figures in the epoch's metrics.json."""
    d = runner.epoch_dir(epoch) / f"eval-{epoch:08d}"
    d.mkdir(parents=True, exist_ok=True)
    save_table([{"source": src, "problem_id": f"h{i}", "n": 1, "correct": int(p), "pass@1": p, "score": p,
                 "ref_nll": nll, "texts": [], "finish_reasons": [], "values": [], "passed": []}
                for i, (src, p, nll) in enumerate(rows)], d)
    write_manifest(d, {"stage": "eval", "fingerprint": f"{epoch:08d}" + "0" * 56, "figures": {}, "config": config or {},
                       "wall_s": 1.0, "inputs": {"update": update_fp}, "started_at": str(epoch)})
    figs = {}
    for src in [None, *sorted({r[0] for r in rows})]:
        sel = [r for r in rows if src in (None, r[0])]
        pre = "eval" if src is None else f"eval/{src}"
        figs |= {f"{pre}/pass@1": sum(r[1] for r in sel) / len(sel), f"{pre}/score": sum(r[1] for r in sel) / len(sel),
                 f"{pre}/ref_nll": sum(r[2] for r in sel) / len(sel)}
    _metrics(runner, epoch, **figs)


def test_an_eval_sources_row_reads_its_interval_and_ref_nll_is_judged_lower_is_better(fake_run):
    """One source: eval/builtin:heldout/pass@1 is eval/pass@1, so the same 'within noise', not 'better'
    three rows later; ref_nll, falling on every problem, gets its paired interval (better: lower)."""
    run = Runner(fake_run.cfg, stages=EVAL_STAGES)
    base = [0.0] * 22 + [1.0] * 7
    _eval(run, 0, run.base_policy_fp(), [("builtin:heldout", p, 0.54) for p in base])
    later = [1.0 if i in (0, 1) else p for i, p in enumerate(base)]   # 2 problems won, none lost: noise
    _eval(run, 4, run.chosen_update(4)[1]["fingerprint"],
          [("builtin:heldout", p, 0.41 + 0.001 * i) for i, p in enumerate(later)])
    md = write_report(run).read_text()
    for key in ("eval/pass@1", "eval/builtin:heldout/pass@1", "eval/score", "eval/builtin:heldout/score"):
        assert _row(f"| `{key}` |", md).endswith("within noise |"), key
    for key in ("eval/ref_nll", "eval/builtin:heldout/ref_nll"):
        assert _row(f"| `{key}` |", md).endswith("0.54 → 0.424 ↓ (-21%) better |"), key
    part = md.split("## Eval: signal or noise")[1].split("## Metrics per epoch")[0]
    assert "`eval/ref_nll` 0.5400 -> 0.4240" in part and "won/lost/tied 29/0/0): **better**" in part
    # ref_nll rising on every problem: worse
    _eval(run, 4, run.chosen_update(4)[1]["fingerprint"], [("builtin:heldout", p, 0.6 + 0.001 * i)
                                                            for i, p in enumerate(later)])
    md = write_report(run).read_text()
    assert _row("| `eval/ref_nll` |", md).endswith("worse |") and "`eval/ref_nll` 0.5400 -> 0.6140" in md


def test_several_sources_get_an_interval_each(fake_run):
    """Two sources: each one's row reads its own interval (one improved on every problem, one did not move)."""
    run = Runner(fake_run.cfg, stages=EVAL_STAGES)
    _eval(run, 0, run.base_policy_fp(), [("a", 0.0, 0.5)] * 10 + [("b", 0.0, 0.5)] * 10)
    _eval(run, 4, run.chosen_update(4)[1]["fingerprint"], [("a", 1.0, 0.5)] * 10 + [("b", 0.0, 0.5)] * 10)
    md = write_report(run).read_text()
    assert _row("| `eval/a/pass@1` |", md).endswith("better |")
    assert _row("| `eval/b/pass@1` |", md).endswith("flat at 0 |")
    part = md.split("## Eval: signal or noise")[1].split("## Metrics per epoch")[0]
    assert "  - `eval/a/pass@1` 0.0000 -> 1.0000" in part and "  - `eval/b/pass@1` 0.0000 -> 0.0000" in part


def test_a_run_without_a_base_eval_is_told_how_to_get_one(fake_run):
    """A run evaluates each epoch's policy, not the model it started from: the eval section says its
    baseline is an already trained epoch, and names `rlaif eval 0`."""
    run = Runner(fake_run.cfg, stages=EVAL_STAGES)
    base = [0.0] * 22 + [1.0] * 7
    _eval(run, 1, run.chosen_update(1)[1]["fingerprint"], [("builtin:heldout", p, 0.54) for p in base])
    _eval(run, 4, run.chosen_update(4)[1]["fingerprint"], [("builtin:heldout", p, 0.5) for p in base])
    part = write_report(run).read_text().split("## Eval: signal or noise")[1].split("## Metrics per epoch")[0]
    assert "No eval of the base model: the first here is epoch 1's" in part and "`rlaif eval 0`" in part, part
    _eval(run, 0, run.base_policy_fp(), [("builtin:heldout", p, 0.6) for p in base])
    part = write_report(run).read_text().split("## Eval: signal or noise")[1].split("## Metrics per epoch")[0]
    assert "No eval of the base model" not in part and "vs the base model (epoch 0)" in part, part


def test_training_trends_read_the_rl_epochs_not_the_warm_start(fake_run):
    """The run's own figures: entropy 0.347 at the warm-start's SFT, 0.1676 -> 0.1916 over the RL epochs."""
    assert trend("policy/entropy", [0.347, 0.1676, 0.1709, 0.1733, 0.1916]) == ("·▁▂▃█",
                                                                            "0.1676 → 0.1916 ↑ (+14%) better")
    assert trend("optim/lr", [1e-4, 2e-4, 2e-4, 2e-4, 2e-4])[1] == "flat at 0.0002"
    # the same mean summed in another order, 1e-16 apart: flat in the text and in the sparkline
    assert trend("judge/python/len_mean", [0.28666666666666674, 0.2866666666666667]) == ("▄▄", "flat at 0.2867")
    assert trend("policy/entropy", [2.2121, 2.2119])[1] == "2.212 → 2.212 ↓ (-0.009%) worse"   # not "(-0%)"
    assert trend("eval/pass@1", [0.2414, 0.2414, 0.3103])[1].startswith("0.2414 → 0.3103")   # eval: from the base
    assert trend("loss/total", [0.3334, 0.1048])[1].startswith("0.3334 → 0.1048")   # one RL epoch: all of them
    for e, ent in enumerate((0.347, 0.1676, 0.1709, 0.1733, 0.1916)):
        _metrics(fake_run, e, **{"policy/entropy": ent, "loss/total": 0.3334 if e == 0 else 0.1})
    md = write_report(fake_run).read_text()
    assert _row("| `policy/entropy` |", md).endswith("0.1676 → 0.1916 ↑ (+14%) better |")
    assert "read the RL epochs (1, 2, ...) only: epoch 0 is the supervised warm-start" in md


def test_a_series_that_moved_is_not_flat():
    """optim/lr_last of the run: 0 at both ends, not 'flat at 0'; a direction-less metric gets no verdict."""
    lr_last = [0, 1.857e-4, 1.162e-4, 3.526e-5, 0]
    assert trend("optim/lr_last", lr_last, epochs=[1, 2, 3, 4, 5])[1] == "0 → 0, peaks at epoch 2 (0.0001857)"
    assert trend("optim/lr_last", lr_last)[1] == "0.0001857 → 0 ↓ (-100%)"   # epoch 0 left out
    assert trend("loss/policy", [0.004, -0.0004])[1] == "0.004 → -0.0004 ↓"   # no share of a change across 0 (-110%)
    assert trend("reward/mean", [0.5, 0.2, 0.5], epochs=[1, 2, 3])[1] == "0.5 → 0.5, dips at epoch 2 (0.2)"
    assert trend("reward/mean", [0.5, 0.5 + 1e-15, 0.5], epochs=[1, 2, 3])[1] == "flat at 0.5"


def test_the_training_reward_is_read_against_its_interval_over_other_prompts(fake_run):
    """Epochs 1 and 4 drew other prompts: a 5% fall is within that interval, said in one line with it,
    and the score and breakdown rows are not called worse; a fall of every prompt is worse."""
    rng = random.Random(0)
    e1 = {f"a{i}": [rng.choice([0.0, 0.2, 0.5, 1.0]) for _ in range(8)] for i in range(24)}
    e4 = {f"b{i}": [max(0.0, r - 0.03) for r in rs] for i, rs in enumerate(e1.values())}
    _rewards(fake_run, 1, e1)
    _rewards(fake_run, 4, e4)
    for e, tests in ((1, 0.4958), (2, 0.3655), (3, 0.4742), (4, 0.461)):
        _metrics(fake_run, e, **{"breakdown/tests": tests, "breakdown/tests_ok": tests - 0.1})
    md = write_report(fake_run).read_text()
    assert _row("| `reward/mean` |", md).endswith("within noise (other prompts) |")
    assert _row("| `score/student_mean` |", md).endswith("within noise (other prompts) |")
    for key in ("breakdown/tests", "breakdown/tests_ok"):
        assert _row(f"| `{key}` |", md).endswith("other prompts |") and "worse" not in _row(f"| `{key}` |", md)
    line = next(x for x in md.splitlines() if x.startswith("Training reward, epoch 1 -> 4"))
    assert "scored different prompts" in line and "`reward/mean` -0.0" in line and "**within noise**" in line
    _rewards(fake_run, 4, {f"b{i}": [r * 0.2 for r in rs] for i, rs in enumerate(e1.values())})
    assert _row("| `reward/mean` |", write_report(fake_run).read_text()).endswith("worse (other prompts) |")


def test_status_names_the_settings_that_make_stages_stale_or_new(fake_run):
    assert not any("settings differ" in line for line in status_lines(fake_run))
    other = Runner(fake_run.cfg.model_copy(update={"update": fake_run.cfg.update.model_copy(update={"lr": 1e-5})}),
                   stages=STAGES)
    line = next(x for x in status_lines(other) if "settings differ" in x)
    assert "update.lr 2e-05 -> 1e-05" in line and "(`update.lr=2e-05`)" in line
    import dataclasses   # a stage's code version moved: no override brings it back, `rlaif epoch N` remakes it
    from pipeline.store.artifacts import read_manifest
    for n in fake_run.epochs():
        d = fake_run.epoch_dir(n) / "judge"
        write_manifest(d, {**read_manifest(d), "version": "1"})
    bumped = Runner(fake_run.cfg, stages=[dataclasses.replace(s, version="2") if s.name == "judge" else s
                                          for s in STAGES])
    lines = status_lines(bumped)
    assert any("made by other code than this version's: the judge stage's code (version 1 -> 2)" in x
               and "rlaif epoch N" in x for x in lines), lines
    assert not any("settings differ" in x and "code" in x for x in lines), lines
    from pipeline.report.status import _recorded_overrides   # what can be typed back, and what cannot
    typed = _recorded_overrides([
        "the update stage's code (version 1 -> 2)", "run.seed 1 -> 0", "data.difficulties ['easy'] -> ['hard']",
        "run.name 'text' -> 'x'", "data.rl_sources ['bank:train', 'builtin:train'] -> []", "update.lr 2e-05 -> 1e-05",
        "update.warm_start True -> False", "sample.stop ['@x'] -> []", "run.name 'two words' -> 'x'",
        "run.name '007' -> 'x'", "judge.prices.gpt-4.1.input 2.0 -> 3.0", "judge.mix.python None -> 0.2",
        "data.mapping {'a': 'b'} -> {}"])
    assert typed == ["run.seed=1", "'data.difficulties=[easy]'", "run.name=text", "'data.rl_sources=[bank:train,builtin:train]'",
                     "update.lr=2e-05", "update.warm_start=True"], typed   # '007' would read back as 7
    import shlex
    from pipeline.config.file import load_config
    recorded = {"run.seed": 1, "data.difficulties": ["easy"], "run.name": "text", "update.lr": 2e-05,
                "data.rl_sources": ["bank:train", "builtin:train"], "update.warm_start": True}
    for word in typed:   # each, typed into a shell, makes the config hold the recorded value
        (override,) = shlex.split(word)
        key = override.split("=")[0]
        assert load_config(None, [override]).get(key) == recorded[key], override


def test_the_loss_plot_draws_sft_and_epoch_0_apart_and_a_free_judge_draws_no_dollars():
    ms = [{"epoch": e, "loss/total": t, "loss/sft": s, "loss/policy": 0.01, "policy/entropy": 0.2,
           "judge/cost_usd": 0.0, "judge/saved_usd": 0.0, "judge/api_calls": 10, "judge/cache_hits": 5}
          for e, t, s in ((0, 0.33, 0.33), (1, 0.10, 0.39), (2, 0.12, 0.40), (3, 0.09, 0.36))]
    made = {name: (title, fig) for title, name, fig in figures(ms, ReportConfig())}
    loss = made["loss_kl.png"][1].axes[0]
    lines = {ln.get_label(): list(ln.get_xdata()) for ln in loss.get_lines()}
    assert lines["loss/sft"] == [1, 2, 3] and lines["loss/total"] == [1, 2, 3]   # not joined to epoch 0
    assert lines["loss/sft, epoch 0 (warm-start: SFT)"] == [0]
    ent = {ln.get_label(): list(ln.get_xdata()) for ln in made["entropy.png"][1].axes[0].get_lines()}
    assert ent["policy/entropy"] == [1, 2, 3] and ent["policy/entropy, epoch 0 (warm-start: SFT)"] == [0]
    title, fig = made["judge.png"]
    assert len(fig.axes) == 1 and fig.axes[0].get_title() == "judgements: computed vs cached", title
    ms = [{**m, "judge/api_calls": 0, "judge/cache_hits": 0} for m in ms]
    assert "judge.png" not in {name for _, name, _ in figures(ms, ReportConfig())}


def test_the_report_opens_with_a_glance_that_rlaif_report_prints(fake_run, capsys):
    """The flags, the last epoch's eval verdicts against the named baseline, and the policy to export:
    at the top of report.md and on the terminal."""
    from pipeline.cli.main import main
    run = Runner(fake_run.cfg, stages=EVAL_STAGES)
    base = [0.0] * 22 + [1.0] * 7
    _eval(run, 0, run.base_policy_fp(), [("builtin:heldout", p, 0.54) for p in base])
    _eval(run, 4, run.chosen_update(4)[1]["fingerprint"], [("builtin:heldout", p, 0.41) for p in base])
    want = "eval, epoch 4 against the base model (epoch 0): pass@1 within noise, score within noise, ref_nll better"
    md = write_report(run).read_text()
    assert md.index("## At a glance") < md.index("## Health") and f"- {want}" in md
    assert main(["report", f"run.dir={fake_run.run_dir.parent}", f"run.name={fake_run.run_dir.name}",
                 "report.samples_shown=2"]) == 0
    out = capsys.readouterr().out
    assert want in out and out.splitlines()[0].startswith("health: ") and "`rlaif export 4 OUT`" in out, out
    # the last epoch without an eval: the verdicts are the last evaluated epoch's, and named so
    other = Runner(fake_run.cfg.model_copy(update={"run": fake_run.cfg.run.model_copy(update={"name": "demo2"})}),
                   stages=EVAL_STAGES)
    import shutil
    shutil.copytree(run.run_dir, other.run_dir)
    shutil.rmtree(other.epoch_dir(4) / "eval-00000004")
    _eval(other, 3, other.chosen_update(3)[1]["fingerprint"], [("builtin:heldout", p, 0.41) for p in base])
    assert "- eval, epoch 3 against the base model (epoch 0)" in write_report(other).read_text()


def test_the_worst_and_best_completions_come_from_several_prompts():
    """A prompt whose whole group failed does not fill the worst view: each prompt of the worse half gives
    one before any gives a second; a good answer is never shown as one of the worst."""
    from pipeline.report.report import _pick
    rewards = {"a": [0.0, 0.0, 0.0, 0.0], "b": [0.1, 0.6, 0.7, 0.8], "c": [0.2, 0.9, 1.0, 1.0]}
    rows = [{"problem_id": p, "sample_idx": i, "reward": r} for p, rs in rewards.items() for i, r in enumerate(rs)]
    lo, hi = _pick(rows, worst=3, best=3)
    assert [(c["problem_id"], c["reward"]) for c in lo] == [("a", 0.0), ("b", 0.1), ("c", 0.2)]
    assert [(c["problem_id"], c["reward"]) for c in hi] == [("c", 1.0), ("b", 0.8), ("c", 1.0)]
    assert all(c["reward"] <= 0.6 for c in _pick(rows, worst=6)[0])


def _sampled_eval(runner, epoch: int, update_fp: str, correct: list[int], n: int = 4) -> None:
    """A sampled eval of n answers a problem, `correct[i]` of them passing on problem i, with its figures."""
    from pipeline.metrics.significance import pass_at_k
    d = runner.epoch_dir(epoch) / f"eval-{epoch:08d}"
    d.mkdir(parents=True, exist_ok=True)
    save_table([{"source": "builtin:heldout", "problem_id": f"h{i}", "n": n, "correct": c, "pass@1": c / n,
                 "score": c / n, "ref_nll": 0.5, "texts": [], "finish_reasons": [], "values": [], "passed": []}
                for i, c in enumerate(correct)], d)
    write_manifest(d, {"stage": "eval", "fingerprint": f"{epoch:08d}" + "0" * 56, "figures": {}, "config": {},
                       "wall_s": 1.0, "inputs": {"update": update_fp}, "started_at": str(epoch)})
    figs = {f"eval/pass@{k}": sum(pass_at_k(n, c, k) for c in correct) / len(correct) for k in (1, 2, 4)}
    _metrics(runner, epoch, **figs, **{"eval/score": figs["eval/pass@1"], "eval/ref_nll": 0.5})


def test_pass_at_k_of_a_sampled_eval_reads_its_interval(fake_run, capsys):
    """A sampled eval's pass@2 and pass@4 are judged by their paired interval as pass@1 is, in the table
    and in the signal-or-noise section, and `rlaif compare-evals` prints them: one problem of 29 gaining
    an answer is noise, not 'better'; every problem gaining is better."""
    from pipeline.cli.main import main
    run = Runner(fake_run.cfg, stages=EVAL_STAGES)
    base = [0] * 20 + [2] * 9
    _sampled_eval(run, 0, run.base_policy_fp(), base)
    _sampled_eval(run, 4, run.chosen_update(4)[1]["fingerprint"], [1] + base[1:])
    md = write_report(run).read_text()
    for key in ("eval/pass@2", "eval/pass@4"):
        assert _row(f"| `{key}` |", md).endswith("within noise |"), key
    part = md.split("## Eval: signal or noise")[1].split("## Metrics per epoch")[0]
    assert "`eval/pass@4` 0.3103 -> 0.3448" in part and "won/lost/tied 1/0/28): **within noise**" in part
    _sampled_eval(run, 4, run.chosen_update(4)[1]["fingerprint"], [c + 2 for c in base])
    md = write_report(run).read_text()
    assert _row("| `eval/pass@2` |", md).endswith("better |") and _row("| `eval/pass@4` |", md).endswith("better |")
    edir = run.epoch_dir(0).parent
    assert main(["compare-evals", f"{edir}@0", f"{edir}@4"]) == 0
    out = capsys.readouterr().out
    assert "pass@2" in out and "pass@4" in out and "pass@8" not in out


def test_a_sampled_base_eval_is_not_read_against_greedy_epochs(fake_run, capsys):
    """`rlaif eval 0 eval.num_samples=8 eval.temperature=0.6` (docs/measuring-learning.md) beside greedy epoch
    evals: the report read the sampled base against the greedy epoch 4 and called a change of protocol better."""
    run = Runner(fake_run.cfg, stages=EVAL_STAGES)
    sampled, greedy = {"eval.num_samples": 8, "eval.temperature": 0.6}, {"eval.num_samples": 1, "eval.temperature": 0.0}
    _eval(run, 0, run.base_policy_fp(), [("a", 0.25, 0.5)] * 30, sampled)
    _eval(run, 4, run.chosen_update(4)[1]["fingerprint"], [("a", 1.0 if i < 20 else 0.0, 0.5) for i in range(30)],
          greedy)
    md = write_report(run).read_text()
    assert "Not compared: the eval of epoch(s) 0 (8 answer(s) at T=0.6), made otherwise than the last (1 greedy " \
           "answer)" in md
    assert "**better**" not in md.split("## Eval: signal or noise")[1].split("## Metrics per epoch")[0]
    # the glance says so too (it said "fewer than two epochs evaluated")
    assert "eval: epoch 4's is the only eval made this way; epoch(s) 0's, made otherwise, are not compared" in md
    from pipeline.cli.main import main
    edir = run.epoch_dir(0).parent
    assert main(["compare-evals", f"{edir}@0", f"{edir}@4"]) == 0
    assert "WARNING: these evals were made differently" in capsys.readouterr().out


def test_the_glossary_keeps_four_cells_a_row_where_a_meaning_holds_a_bar():
    import re
    from pipeline.metrics.doc import metrics_markdown
    rows = metrics_markdown().splitlines()
    assert any("KL(pi \\|\\|" in r for r in rows)   # kl/k3's meaning: KL(pi || ref), escaped
    cells = [len(re.split(r"(?<!\\)\|", r)) - 2 for r in rows]
    assert set(cells) == {4}, [r for r, c in zip(rows, cells) if c != 4][:3]


def test_the_resolution_advice_names_a_sampled_eval_already_on_disk(fake_run):
    """`rlaif eval 4 eval.num_samples=8 eval.temperature=0.6` made one beside the greedy eval the report reads:
    its advice to make a sampled eval says there is one, and how to read it."""
    run = Runner(fake_run.cfg, stages=EVAL_STAGES)
    greedy = {"eval.num_samples": 1, "eval.temperature": 0.0}
    fp4 = run.chosen_update(4)[1]["fingerprint"]
    _eval(run, 0, run.base_policy_fp(), [("a", 1.0 if i < 8 else 0.0, 0.5) for i in range(29)], greedy)
    _eval(run, 4, fp4, [("a", 1.0 if i < 9 else 0.0, 0.5) for i in range(29)], greedy)
    part = write_report(run).read_text().split("## Eval: signal or noise")[1].split("## Metrics per epoch")[0]
    assert "a sampled eval (eval.num_samples=8" in part and "on disk" not in part, part
    d = run.epoch_dir(4) / "eval-sampled"
    d.mkdir()
    write_manifest(d, {"stage": "eval", "fingerprint": "5" * 64, "figures": {}, "wall_s": 1.0, "started_at": "5",
                       "config": {"eval.num_samples": 8, "eval.temperature": 0.6}, "inputs": {"update": fp4}})
    part = write_report(run).read_text().split("## Eval: signal or noise")[1].split("## Metrics per epoch")[0]
    assert ("epoch 4 has one on disk (8 answer(s) at T=0.6): `rlaif report eval.num_samples=8 eval.temperature=0.6` "
            "reads it") in part, part


def test_the_table_reads_the_eval_the_intervals_read_not_the_one_metrics_json_holds(fake_run):
    """A run made by older code wrote a sampled side eval's figures into epoch 4's metrics.json (0.1842), while
    the intervals read its greedy eval (0.3793): the table said 'worse' and the eval section 'better'."""
    run = Runner(fake_run.cfg, stages=EVAL_STAGES)
    fp4 = run.chosen_update(4)[1]["fingerprint"]
    _eval(run, 0, run.base_policy_fp(), [("a", 0.0, 0.5)] * 29)
    _eval(run, 4, fp4, [("a", 1.0 if i < 11 else 0.0, 0.5) for i in range(29)])
    d = run.epoch_dir(4) / "eval-00000004"
    from pipeline.store.artifacts import read_manifest
    write_manifest(d, {**read_manifest(d), "figures": {"eval/pass@1": 0.3793, "eval/score": 0.3793}})
    _metrics(run, 0, **{"eval/pass@1": 0.2414})
    _metrics(run, 4, **{"eval/pass@1": 0.1842, "eval/score": 0.1842})   # the side eval's
    row = _row("| `eval/pass@1` |", write_report(run).read_text())
    assert "0.3793" in row and "0.1842" not in row and row.endswith("better |"), row



def test_a_direct_reward_is_not_shown_as_a_division(fake_run):
    """reward.kind=direct (as the epoch's reward stage was made): the student's score is the reward, the
    teacher's is shown beside it, not under it."""
    from pipeline.report.report import samples
    from pipeline.store.artifacts import read_manifest
    d = fake_run.epoch_dir(4) / "reward"
    assert "reward 1.200 (student 0.600 / teacher 0.500)" in samples(fake_run, 4, best=1)
    write_manifest(d, {**(read_manifest(d) or {}), "config": {"reward": {"kind": "direct"}}})
    best = samples(fake_run, 4, best=1)
    assert "reward 1.200 (reward.kind=direct: the student's score 0.600; teacher 0.500)" in best and "/ teacher" not in best


def test_worst_shows_every_unscored_answer_first_with_its_teachers_score(fake_run):
    """Two answers of two prompts the judge could not score (the parse-failure flag sends the user to
    `--worst K` for their reasons): both come first, before the lowest scored one, and the teacher's score
    comes from the judge table (the reward table has no row for an unscored answer)."""
    from pipeline.report.report import samples
    from pipeline.store.tables import load_table, save_table
    edir = fake_run.epoch_dir(4)
    judged = load_table(edir / "judge", json_cols=("breakdown",))
    unscored = {("p1", 0), ("p2", 1)}
    save_table([{**j, "value": None, "breakdown": {"parse_error": "not JSON"}} if (j["problem_id"], j["sample_idx"])
                in unscored else j for j in judged], edir / "judge", json_cols=("breakdown",))
    save_table([r for r in load_table(edir / "reward") if (r["problem_id"], r["sample_idx"]) not in unscored],
               edir / "reward")
    text = samples(fake_run, 4, worst=3)
    heads = [x for x in text.splitlines() if x.startswith("#### ")]
    assert heads[:2] == ["#### p1 #0: reward - (student - / teacher 0.500)", "#### p2 #1: reward - (student - / teacher 0.500)"]
    assert heads[2].startswith("#### p1 #1: reward 0.000") and "parse_error=not JSON" in text
