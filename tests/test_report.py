"""Training-health report: report.md with its flags, plots and intervals, samples, status (the flags' rules: test_flags.py)."""
from __future__ import annotations

import json
import re

import pytest

from pipeline.store.artifacts import write_manifest
from pipeline.config.file import load_config
from pipeline.metrics.doc import code_diversity, diversity_of_groups
from pipeline.report.report import samples, write_report
from pipeline.report.status import status_lines
from pipeline.stages import POLICY, Stage
from pipeline.config.errors import RunError
from pipeline.run.runner import Runner
from pipeline.store.tables import save_table
from tests.test_flags import recorded

def test_code_diversity():
    a = "def f(x):\n    return x + 1\n"
    assert code_diversity([a, a, a]) == 0.0
    assert code_diversity([a, "def f(x):\n  return   x+1"]) == 0.0  # reformatting is not diversity
    assert code_diversity([a]) == 0.0
    far = code_diversity([a, "import os\nprint(os.listdir('.'))\n"])
    near = code_diversity([a, "def f(x):\n    return x + 2\n"])
    assert 0 < near < far <= 1
    assert diversity_of_groups([[a, a], [a, "import os\nprint(os.listdir('.'))\n"], [a]]) == pytest.approx(far / 2)


# -- a fake run on disk -------------------------------------------------------------------
def _noop(ctx):
    pass


STAGES = [Stage(n, "1", (), (), _noop) for n in ("prompts", "sample", "teacher", "judge", "reward", "select")] + [
    Stage("update", "1", ("update.lr",), ("select", POLICY), _noop, variant=True)]


def _stage_dir(d, fp, figures=None, config=None, stage=None):
    d.mkdir(parents=True, exist_ok=True)
    write_manifest(d, {"stage": stage or d.name, "fingerprint": fp, "figures": figures or {}, "config": config or {},
                       "wall_s": 1.0, "inputs": {}})


@pytest.fixture
def fake_run(tmp_path):
    return build_fake_run(tmp_path)


def build_fake_run(tmp_path):
    """A run of four recorded epochs on disk (tests.test_flags.recorded), with its judge, teacher and reward tables."""
    cfg = load_config(None, [f"run.dir={tmp_path}", "run.name=demo", "report.samples_shown=2"])
    runner = Runner(cfg, stages=STAGES)
    for m in recorded():
        e = m["epoch"]
        edir = runner.epoch_dir(e)
        fps = {st.name: (fp, d) for st, fp, d, _ in runner.plan(e)}  # the fingerprints this config gives
        _stage_dir(edir / "judge", fps["judge"][0], {"judge/cost_usd": 0.5, "judge/saved_usd": 0.1})
        _stage_dir(edir / "teacher", fps["teacher"][0], {"teacher/cost_usd": 0.25})
        _stage_dir(fps["update"][1], fps["update"][0], config={"update.lr": 2e-5, "update.kl_coef": 0.05}, stage="update")
        m["update/variant"] = fps["update"][1].name
        if e == 4:
            del m["policy/entropy"]  # a metric missing from one epoch is shown as '-'
        (edir / "metrics.json").write_text(json.dumps(m))
    edir = runner.epoch_dir(4)
    texts = {("p1", 0): "```python\ndef f(x):\n    return x\n```", ("p1", 1): "WORST ANSWER",
             ("p2", 0): "BEST ANSWER", ("p2", 1): "```python\ndef g():\n    pass\n```"}
    rewards = {("p1", 0): 0.5, ("p1", 1): 0.0, ("p2", 0): 1.2, ("p2", 1): 0.3}
    save_table([{"problem_id": p, "sample_idx": i, "text": t, "finish_reason": "eos", "length": 12}
                for (p, i), t in texts.items()], edir / "sample")
    save_table([{"role": "student", "problem_id": p, "sample_idx": i, "value": r / 2,
                 "breakdown": {"tests": r / 2, "passed": int(r * 2), "total": 4}} for (p, i), r in rewards.items()]
               + [{"role": "teacher", "problem_id": p, "sample_idx": -1, "value": 0.5, "breakdown": {"tests": 0.5}}
                  for p in ("p1", "p2")], edir / "judge", json_cols=("breakdown",))
    save_table([{"problem_id": p, "sample_idx": i, "reward": r, "student_score": r / 2, "teacher_score": 0.5}
                for (p, i), r in rewards.items()], edir / "reward")
    save_table([{"problem_id": "p1", "text": "```python\ndef f(x):\n    return x\n```", "source": "reference"}],
               edir / "teacher")
    return runner


def test_write_report(fake_run):
    path = write_report(fake_run)
    assert path == fake_run.run_dir / "report.md"
    md = path.read_text()
    assert md.startswith("# Training report: demo")
    links = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", md)
    assert len(links) == 5
    for link in links:
        png = path.parent / link
        assert png.is_file() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", link
        assert png.parent == fake_run.run_dir / "report"
    # the table: epochs as columns, a trend and first -> last change per metric, '-' for missing values
    row = next(line for line in md.splitlines() if line.startswith("| `reward/mean` |"))
    assert "0.2604" in row and "0.2553" in row and "→" in row and "worse" in row
    ent = next(line for line in md.splitlines() if line.startswith("| `policy/entropy` |"))
    assert ent.split(" | ")[5] == "-"
    # flags with evidence and advice
    health = md.split("## Health")[1].split("## Metrics per epoch")[0]
    for name in ("reward_regression", "loss_rising", "best_of_n_vs_mean"):
        assert f"`{name}`" in health
    assert "lower update.lr (e.g. 2e-05 -> 1e-05)" in health
    # worst and best completions of the last epoch, with score breakdown and reward
    comp = md.split("## Completions of epoch 4")[1]
    assert comp.index("WORST ANSWER") < comp.index("BEST ANSWER")
    assert "reward 1.200 (student 0.600 / teacher 0.500)" in comp and "tests=0.6 passed=2 total=4" in comp


def test_samples_command_text(fake_run):
    worst = samples(fake_run, 4, worst=1)
    assert "WORST ANSWER" in worst and "BEST ANSWER" not in worst
    best = samples(fake_run, 4, best=1)
    assert "BEST ANSWER" in best and "reward 1.200" in best and "WORST" not in best
    one = samples(fake_run, 4, prompt="p1")
    assert "WORST ANSWER" in one and "def f(x)" in one and "teacher answer (reference): score 0.500" in one
    assert "BEST ANSWER" not in one
    with pytest.raises(RunError, match="p1, p2"):
        samples(fake_run, 4, prompt="nope")
    with pytest.raises(RunError, match="rlaif epoch 2"):
        samples(fake_run, 2)


def test_status_lines(fake_run):
    lines = status_lines(fake_run)
    text = "\n".join(lines)
    assert lines[0].endswith("4 epoch(s)")
    assert all(re.search(r"reward=(-|\d\.\d{4}) ", x) for x in lines[1:5]), lines   # 0.4700 beside 0.4363, not 0.47
    variant = fake_run.chosen_update(4)[0].name
    assert text.count(f"chosen={variant} (1 variant(s))") == 1 and text.count("chosen=update-") == 4
    assert "judge:done" in lines[1] and "update:done" in lines[1] and "prompts:-" in lines[1]
    assert "money spent so far: $3.0000 (judge $2.0000, teacher $1.0000)" in text
    assert "health at epoch 4: reward_regression" in text
    # another learning rate: the updates would be recomputed, the judgements would not
    other = Runner(fake_run.cfg.model_copy(update={"update": fake_run.cfg.update.model_copy(update={"lr": 1e-5})}),
                   stages=STAGES)
    line = status_lines(other)[1]
    # variants sit side by side: the new lr would add one, the chosen one is not out of date
    assert "update:new" in line and "update:stale" not in line and "judge:done" in line


def _rewards(runner, epoch: int, per_prompt: dict[str, list[float]]) -> None:
    save_table([{"problem_id": p, "sample_idx": i, "reward": r, "student_score": r, "teacher_score": 1.0}
                for p, rs in per_prompt.items() for i, r in enumerate(rs)], runner.epoch_dir(epoch) / "reward")


def test_a_reward_fall_inside_its_interval_is_not_a_regression(fake_run):
    """0.2804 -> 0.2553 (the fall one seed run called critical): over 8 prompts whose rewards move
    both ways it is noise, and no flag is raised; the same fall on every prompt is flagged."""
    import random
    rng = random.Random(0)
    e3 = {f"p{i}": [rng.choice([0.0, 0.2, 0.5, 1.0]) for _ in range(8)] for i in range(8)}
    e4 = {p: [rng.choice([0.0, 0.2, 0.5, 1.0]) for _ in range(8)] for p in e3}
    _rewards(fake_run, 3, e3)
    _rewards(fake_run, 4, e4)
    from pipeline.cli.commands_train import health_lines   # what `rlaif epoch` prints at its end
    text = "\n".join(status_lines(fake_run))
    assert "health at epoch 4: " in text and "reward_regression" not in text.split("health at epoch 4: ")[1]
    md = write_report(fake_run).read_text()
    assert "`reward_regression`" not in md.split("## Health")[1].split("## Metrics per epoch")[0]
    assert not any("reward_regression" in line for line in health_lines(fake_run, fake_run.cfg, [4]))
    _rewards(fake_run, 4, {p: [r - 0.03 for r in rs] for p, rs in e3.items()})  # every prompt falls
    assert "health at epoch 4: reward_regression" in "\n".join(status_lines(fake_run))
    assert any("epoch 4 reward_regression" in line for line in health_lines(fake_run, fake_run.cfg, [4]))


def test_a_reward_fall_over_a_pool_of_four_prompts_is_still_judged(fake_run):
    """configs/ocaml.yaml's pool of 4: fewer prompts than an eval's interval asks for. A fall on every
    one of them is a regression by its paired t interval, wide as 3 degrees of freedom make it (it was no
    interval at all, so no fall of any size was flagged); one shared prompt: the threshold alone."""
    e3 = {f"p{i}": [0.9, 0.95, 0.85, 0.92] for i in range(4)}
    _rewards(fake_run, 3, e3)
    _rewards(fake_run, 4, {p: [r - 0.5 - 0.05 * i for r in rs] for i, (p, rs) in enumerate(e3.items())})
    assert "health at epoch 4: reward_regression" in "\n".join(status_lines(fake_run))
    _rewards(fake_run, 4, {p: [r + (0.1 if i % 2 else -0.1) for r in rs] for i, (p, rs) in enumerate(e3.items())})
    assert "reward_regression" not in "\n".join(status_lines(fake_run)).split("health at epoch 4: ")[1]
    _rewards(fake_run, 3, {"p0": [0.9]})
    _rewards(fake_run, 4, {"p0": [0.1]})
    assert "health at epoch 4: reward_regression" in "\n".join(status_lines(fake_run))


def test_a_reward_fall_over_other_prompts_is_read_against_their_spread(fake_run):
    """The default walks the training set: epochs 3 and 4 score other prompts, whose mix alone moves
    reward/mean. A fall of 0.04 over 24 prompts each is noise against the prompts' spread (Welch);
    a fall of the whole distribution is a regression."""
    import random
    rng = random.Random(3)
    e3 = {f"a{i}": [rng.choice([0.0, 0.2, 0.5, 1.0]) for _ in range(8)] for i in range(24)}
    e4 = {f"b{i}": [max(0.0, r - 0.04) for r in rs] for i, rs in enumerate(e3.values())}
    _rewards(fake_run, 3, e3)
    _rewards(fake_run, 4, e4)
    assert "reward_regression" not in "\n".join(status_lines(fake_run)).split("health at epoch 4: ")[1]
    _rewards(fake_run, 4, {f"b{i}": [r * 0.3 for r in rs] for i, rs in enumerate(e3.values())})
    assert "health at epoch 4: reward_regression" in "\n".join(status_lines(fake_run))


def test_a_slow_decline_is_flagged_against_the_best_epoch_not_each_step(fake_run):
    """Four epochs over other prompts, each about 10% below the one before: every step is inside its
    interval (no reward_regression), epoch 4 against epoch 1, its best, is not (reward_decline, in the
    report and at the end of `rlaif epoch`); the same steps rising raise neither."""
    import random
    from pipeline.cli.commands_train import health_lines
    rng = random.Random(3)
    base = [[rng.choice([0.0, 0.2, 0.5, 1.0]) for _ in range(8)] for _ in range(24)]

    def walk(factors):
        for e, f in zip((1, 2, 3, 4), factors):
            rows = {f"e{e}p{i}": [r * f for r in rs] for i, rs in enumerate(base)}
            _rewards(fake_run, e, rows)
            mp = fake_run.epoch_dir(e) / "metrics.json"
            m = json.loads(mp.read_text())
            m["reward/mean"] = sum(sum(v) for v in rows.values()) / sum(len(v) for v in rows.values())
            mp.write_text(json.dumps(m))

    def reward_flags():
        md = write_report(fake_run).read_text().split("## Health")[1].split("## Metrics per epoch")[0]
        return {name for name in ("reward_regression", "reward_decline") if f"`{name}`" in md}

    walk((1.0, 0.9, 0.8, 0.7))
    assert reward_flags() == {"reward_decline"}
    md = write_report(fake_run).read_text()
    assert "against" in md and "at epoch 1, its best" in md
    assert any("epoch 4 reward_decline" in line for line in health_lines(fake_run, fake_run.cfg, [4]))
    assert "reward_decline" in "\n".join(status_lines(fake_run)).split("health at epoch 4: ")[1]
    walk((0.7, 0.8, 0.9, 1.0))
    assert reward_flags() == set()


def _eval_dir(runner, epoch: int, update_fp: str, passes: list[float]) -> None:
    d = runner.epoch_dir(epoch) / f"eval-{epoch:08d}"
    d.mkdir(parents=True, exist_ok=True)
    save_table([{"source": "builtin:heldout", "problem_id": f"h{i}", "n": 8, "correct": int(p * 8), "pass@1": p,
                 "score": p, "ref_nll": 0.5, "texts": [], "finish_reasons": [], "values": [], "passed": []}
                for i, p in enumerate(passes)], d)
    write_manifest(d, {"stage": "eval", "fingerprint": f"{epoch:08d}" + "0" * 56, "figures": {}, "config": {},
                       "wall_s": 1.0, "inputs": {"update": update_fp}, "started_at": str(epoch)})


def test_an_eval_fall_inside_its_interval_reads_within_noise(fake_run):
    import random
    fake_run = Runner(fake_run.cfg, stages=STAGES + [Stage("eval", "1", (), ("update",), _noop, variant=True)])
    rng = random.Random(1)
    base = [rng.choice([0.0, 0.25, 0.5, 0.75, 1.0]) for _ in range(29)]
    later = [min(1.0, max(0.0, p + rng.choice([-0.25, 0.0, 0.25]))) for p in base]
    later[0], later[1] = max(0.0, later[0] - 0.5), max(0.0, later[1] - 0.5)  # a little worse on average
    _eval_dir(fake_run, 0, fake_run.base_policy_fp(), base)
    m4 = fake_run.chosen_update(4)[1]
    _eval_dir(fake_run, 4, m4["fingerprint"], later)
    md = write_report(fake_run).read_text()
    part = md.split("## Eval: signal or noise")[1].split("## Metrics per epoch")[0]
    assert "epoch 4 vs the base model (epoch 0): `eval/pass@1`" in part and "**within noise**" in part
    assert "problems at 8 sample(s)" in part  # how much eval would resolve a difference this size
    # improved on every problem: better, with the interval above 0
    _eval_dir(fake_run, 4, m4["fingerprint"], [min(1.0, p + 0.25) if p < 1 else 1.0 for p in base])
    md = write_report(fake_run).read_text()
    assert "`eval/pass@1`" in md and "**better**" in md.split("## Eval: signal or noise")[1]


def test_an_eval_that_falls_beyond_noise_is_flagged_everywhere_a_run_is_read(fake_run):
    """Epoch 4's held-out pass@1 against epoch 0's, paired by problem: a fall on many problems and a
    gain on none is eval_regression in the report, `rlaif status` and the end of `rlaif epoch`; the fall
    of the test above, inside its interval, is not."""
    import random
    from pipeline.cli.commands_train import health_lines
    fake_run = Runner(fake_run.cfg, stages=STAGES + [Stage("eval", "1", (), ("update",), _noop, variant=True)])
    rng = random.Random(1)
    base = [rng.choice([0.25, 0.5, 0.75, 1.0]) for _ in range(29)]
    _eval_dir(fake_run, 0, fake_run.base_policy_fp(), base)
    m4 = fake_run.chosen_update(4)[1]
    _eval_dir(fake_run, 4, m4["fingerprint"], [p - 0.25 if i % 2 else p for i, p in enumerate(base)])
    md = write_report(fake_run).read_text()
    health = md.split("## Health")[1].split("## ")[0]
    assert "`eval_regression`" in health and "at epoch 0 ->" in health and "over 29 problems" in health, health
    assert "eval_regression" in "\n".join(status_lines(fake_run))
    assert any("epoch 4 eval_regression" in line for line in health_lines(fake_run, fake_run.cfg, [4]))
    noisy = [min(1.0, max(0.0, p + rng.choice([-0.25, 0.0, 0.25]))) for p in base]
    _eval_dir(fake_run, 4, m4["fingerprint"], noisy)
    assert "eval_regression" not in write_report(fake_run).read_text().split("## Health")[1].split("## ")[0]


def test_an_eval_of_four_problems_that_falls_on_each_is_flagged(fake_run):
    """configs/ocaml.yaml evaluates 4 problems: below an eval interval's 5, a fall of any size had no interval,
    so eval_regression could never fire there. The plain paired t interval judges it (wide as 3 degrees of
    freedom make it); a fall on some problems and a gain on others stays noise."""
    fake_run = Runner(fake_run.cfg, stages=STAGES + [Stage("eval", "1", (), ("update",), _noop, variant=True)])
    _eval_dir(fake_run, 0, fake_run.base_policy_fp(), [0.875, 1.0, 0.75, 0.875])
    m4 = fake_run.chosen_update(4)[1]
    _eval_dir(fake_run, 4, m4["fingerprint"], [0.125, 0.25, 0.125, 0.0])
    health = write_report(fake_run).read_text().split("## Health")[1].split("## ")[0]
    assert "`eval_regression`" in health and "over 4 problems" in health, health
    _eval_dir(fake_run, 4, m4["fingerprint"], [0.375, 1.0, 1.0, 0.875])
    assert "eval_regression" not in write_report(fake_run).read_text().split("## Health")[1].split("## ")[0]


def test_the_wandb_tracker_logs_every_epoch_into_one_wandb_run(tmp_path, monkeypatch):
    """run.trackers=[wandb] through accelerate's WandBTracker, with a stand-in `wandb` module that records
    what wandb.init and run.log receive (the real package is not installed here): project "rlaif", the
    run's name, one run id for the run directory, resumed by each epoch."""
    import sys
    import types
    from pipeline.config.file import load_config
    from pipeline.metrics.trackers import log_epoch
    calls = []

    class Run:
        def log(self, values, step=None):
            calls.append(("log", step, values))

        def finish(self):
            calls.append(("finish",))

    def init(**kw):
        calls.append(("init", kw))
        return Run()
    import importlib.machinery
    fake = types.ModuleType("wandb")
    fake.init, fake.__spec__ = init, importlib.machinery.ModuleSpec("wandb", None)
    monkeypatch.setitem(sys.modules, "wandb", fake)
    cfg = load_config(None, ["run.trackers=[wandb]", "run.name=exp"])
    for e in (1, 2):
        log_epoch(cfg, tmp_path, e, {"reward/mean": 0.5 + e, "update/variant": "update-1234", "flag": True})
    inits = [c[1] for c in calls if c[0] == "init"]
    assert len(inits) == 2 and inits[0] == inits[1]
    assert inits[0]["project"] == "rlaif" and inits[0]["name"] == "exp" and inits[0]["resume"] == "allow"
    assert inits[0]["id"].startswith("rlaif-")
    assert [c[1:] for c in calls if c[0] == "log"] == [(1, {"reward/mean": 1.5}), (2, {"reward/mean": 2.5})]



def test_one_sources_figures_are_good_the_way_their_figure_is():
    """eval/<source>/ref_nll is an NLL: lower is better, as eval/ref_nll (the report once called its fall worse)."""
    from pipeline.metrics.doc import metric_info
    from pipeline.report.table import trend
    assert metric_info("eval/validation/ref_nll").good == metric_info("eval/hf:org/name/ref_nll").good == "lower"
    assert metric_info("eval/builtin:heldout/pass@1").good == metric_info("eval/bank:heldout/pass@5").good == "higher"
    assert trend("eval/validation/ref_nll", [0.9, 0.7])[1].endswith("better")
    assert trend("eval/validation/score", [0.9, 0.7])[1].endswith("worse")


def test_a_mix_components_breakdown_reads_as_json():
    """`rlaif samples` of a judge.mix: each component's nested breakdown as JSON (null, true), not a Python repr."""
    from pipeline.report.table import _fmt
    got = _fmt({"value": 0.5, "weight": 0.35, "breakdown": {"ok": True, "why": None}})
    assert json.loads(got) == {"value": 0.5, "weight": 0.35, "breakdown": {"ok": True, "why": None}}


def test_status_names_interrupted_updates(fake_run):
    """An update stopped before its end leaves its resume checkpoint, named by the update's fingerprint and its
    inputs' contents: status says which one this config's next update resumes, which was left over rows remade
    since (nothing resumes it), and which belongs to a variant made otherwise (its size, where to remove it)."""
    from pipeline.report.status import resumable_checkpoint
    assert "stopped before its end" not in "\n".join(status_lines(fake_run))
    fp = {st.name: fp for st, fp, _, _ in fake_run.plan(4)}["update"]
    want = resumable_checkpoint(fake_run, 4)
    assert want.startswith(f".ckpt-update-{fp[:8]}-") and len(want) == len(".ckpt-update-") + 17
    for name in (want, f".ckpt-update-{fp[:8]}-0badbeef", ".ckpt-update-0badc0de-12345678"):
        (fake_run.epoch_dir(4) / name).mkdir()
        (fake_run.epoch_dir(4) / name / "state.pt").write_bytes(b"x" * 2**20)
    lines = [x for x in status_lines(fake_run) if "stopped before its end" in x]
    assert len(lines) == 3
    mine = next(x for x in lines if want in x)
    assert "1.0 MB" in mine and "resumes it from its checkpoint" in mine and "rlaif epoch 4" in mine
    stale = next(x for x in lines if "0badbeef" in x)
    assert "over other rows" in stale and "nothing resumes it" in stale
    other = next(x for x in lines if "0badc0de" in x)
    assert "other settings" in other and f"remove {fake_run.epoch_dir(4) / '.ckpt-update-0badc0de-12345678'}" in other
    # the selected rows remade (other contents at the same fingerprint): the checkpoint to resume is another
    (fake_run.epoch_dir(4) / "select").mkdir()
    (fake_run.epoch_dir(4) / "select" / "manifest.json").write_text(json.dumps({"files": {"data.parquet": "0" * 64}}))
    assert resumable_checkpoint(fake_run, 4) not in ("", want)


def test_the_report_reads_each_epochs_sampling_from_its_sample_stage(fake_run):
    """sampler_mismatch for a truncated sampler reads the top_p each epoch's sample stage recorded, not the
    run's settings now: epoch 3 sampled at 0.9, the others (and the config) at 1.0."""
    fps = {st.name: fp for st, fp, _, _ in fake_run.plan(3)}
    for e, top_p in ((2, 1.0), (3, 0.9), (4, 1.0)):
        _stage_dir(fake_run.epoch_dir(e) / "sample", fps["sample"], config={"sample.top_p": top_p, "sample.top_k": 0})
    md = write_report(fake_run).read_text().split("## Health")[1].split("## Metrics per epoch")[0]
    assert "sample.top_p=0.9" in md and md.count("`sampler_mismatch`") == 1, md
