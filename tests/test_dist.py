"""Several processes (`rlaif epoch N --processes 2`, i.e. `accelerate launch`): on the CPU over gloo,
real processes. The same epoch on 2 processes as on 1; kill -9 of one rank, rerun, same epoch; the
run lock holds for every rank. And the sampler that makes samples independent of the process count."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from pipeline.store import dist

SHARED_TABLES = ("prompts", "sample", "teacher", "judge", "reward", "select")


@pytest.fixture(autouse=True, scope="module")
def _own_tmpdir(tmp_path_factory):
    """The launched processes' temporary files (torchelastic's, a killed rank's scratch) in pytest's
    directory, not left in the machine's /tmp."""
    before = os.environ.get("TMPDIR")
    os.environ["TMPDIR"] = str(tmp_path_factory.mktemp("tmpdir"))
    yield
    if before is None:
        os.environ.pop("TMPDIR", None)
    else:
        os.environ["TMPDIR"] = before


def run_cli(*args, env_extra: dict | None = None, timeout: int = 400) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONUNBUFFERED": "1", **(env_extra or {})}
    return subprocess.run([sys.executable, "-m", "pipeline.cli", "--config", "configs/length_reward.yaml", *args],
                          capture_output=True, text=True, env=env, timeout=timeout)


def overrides(root: Path, model: str, **extra) -> list[str]:
    """The length preset on the brevity model (rewards that vary within a group), cut small, with
    sizes that do not divide evenly over 2 ranks: 5 prompts, global micro-batches of 6 rows over
    20 rows (4 micro-batches, the last of 2 rows), 2 micro-batches a step, 2 passes, several
    forward/backward passes per micro-batch, a checkpoint every step, adaptive KL."""
    over = {"run.dir": root / "runs", "student.model": model, "student.lora.r": 4, "student.lora.alpha": 8,
            "data.prompts_per_epoch": 5, "sample.num_samples": 4, "sample.max_new_tokens": 24,
            "update.micro_batch_size": 6, "update.grad_accum": 2, "update.epochs": 2, "update.lr": 1e-3,
            "run.checkpoint_every": 1, "update.warm_start": "false",
            # a rank's share of 3 rows (about 70 tokens each) takes 2 passes, of 2 or 1 rows: ranks whose
            # shares split differently still make as many passes each
            "update.max_batch_tokens": 150, **extra}
    return [f"{k}={v}" for k, v in over.items()]


def epoch_dir(root: Path) -> Path:
    return root / "runs" / "length_reward" / "epoch-001"


def manifests(edir: Path) -> dict[str, dict]:
    return {p.name: json.loads((p / "manifest.json").read_text()) for p in sorted(edir.iterdir())
            if (p / "manifest.json").exists()}


def adapter(edir: Path) -> dict[str, torch.Tensor]:
    from safetensors.torch import load_file
    (path,) = edir.glob("update-*/adapter/adapter_model.safetensors")
    return load_file(path)


def adapter_bound(a: dict, tokens: int = 400, keys: int = 64) -> float:
    """The derived bound on two float32 trainings' adapters that differ in summation order only (an
    all-reduce, a resumed run): adapter_tolerance at the largest parameter, an upper bound on how far
    any moved (B starts at 0; A's values bound its movement)."""
    from transformers import AutoConfig

    from tests.conftest import brevity_model_path
    from tests.tolerance import adapter_tolerance
    moved = max(float(v.abs().max()) for v in a.values())
    return adapter_tolerance(AutoConfig.from_pretrained(brevity_model_path()), keys, tokens, moved,
                             sum(v.numel() for v in a.values()))


def max_diff(a: dict, b: dict) -> float:
    assert a.keys() == b.keys()
    return max(float((a[k] - b[k]).abs().max()) for k in a)


def assert_same_rows(a: Path, b: Path) -> None:
    """Two processes batch the decode loop's rows otherwise than one: float32 matmul kernels that change
    with the row count (MKL's on AVX2) round the sampler's logprobs otherwise, in the last places, and
    every other column (the tokens drawn, the texts, the rewards) is the same. The bound: two roundings
    of the forward to a log-probability in the sampling dtype (bf16 where the CPU has it, its sums in
    float32) at the rows' length."""
    from transformers import AutoConfig

    from pipeline.engines.sampling_weights import cpu_has_bf16
    from pipeline.store.tables import load_table
    from tests.conftest import brevity_model_path
    from tests.tolerance import assert_close, llama_stores, model_chain, tolerance
    t1, t2 = load_table(a), load_table(b)
    assert len(t1) == len(t2), a.name
    for r1, r2 in zip(t1, t2):
        assert r1.keys() == r2.keys() and {k: v for k, v in r1.items() if k != "sampler_logprobs"} == \
            {k: v for k, v in r2.items() if k != "sampler_logprobs"}, a.name
    lp1, lp2 = ([torch.tensor(r["sampler_logprobs"], dtype=torch.float64) for r in t] for t in (t1, t2))
    assert [len(x) for x in lp1] == [len(x) for x in lp2], a.name
    config = AutoConfig.from_pretrained(brevity_model_path())
    dtype = torch.bfloat16 if cpu_has_bf16() else torch.float32
    keys = max(len(x) + len(r["prompt_ids"]) for x, r in zip(lp1, t1))
    scale = max(float(x.abs().max()) for x in lp1 if x.numel())   # the log-softmax's terms reach |logp|
    bound = tolerance(dtype, scale, model_chain(config, keys, logprobs=True), accumulate=torch.float32,
                      stores=llama_stores(config.num_hidden_layers) if dtype != torch.float32 else 0,
                      elements=sum(x.numel() for x in lp1))
    assert_close(torch.cat(lp1), torch.cat(lp2), bound, f"{a.name} sampler_logprobs")


@pytest.fixture(scope="module")
def one_process(tmp_path_factory, brevity_model) -> Path:
    """The reference: one process, with the padded batch layout DDP uses (update.share_prompt=false)."""
    root = tmp_path_factory.mktemp("one")
    r = run_cli("epoch", "1", *overrides(root, brevity_model, **{"update.share_prompt": "false"}))
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return epoch_dir(root)


@pytest.fixture(scope="module")
def two_processes(tmp_path_factory, brevity_model) -> tuple[Path, str]:
    root = tmp_path_factory.mktemp("two")
    r = run_cli("epoch", "1", "--processes", "2", *overrides(root, brevity_model))
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return epoch_dir(root), r.stdout


@pytest.mark.slow
def test_two_processes_make_the_epoch_one_process_makes(one_process, two_processes):
    two, out = two_processes
    assert "rank 1/2" in out and "on 2 processes" in out
    m1, m2 = manifests(one_process), manifests(two)
    assert m1.keys() == m2.keys()
    for name in SHARED_TABLES:  # prompts, samples, judgements, rewards: the same rows
        assert m1[name]["fingerprint"] == m2[name]["fingerprint"], name
        if m1[name]["files"] != m2[name]["files"]:   # the same tokens; the sampler's logprobs to rounding
            assert_same_rows(one_process / name, two / name)
    assert m1["select"]["rows"] == 20 and m2["sample"]["rows"] == 20
    # the process count is in no fingerprint: the update and eval variants have the same names
    (u1,) = [n for n in m1 if n.startswith("update-")]
    assert u1 in m2
    # logprobs and the update: float tolerance (gradients all-reduced over the same micro-batches)
    lp1, lp2 = (torch.load(d / "logprobs" / "logprobs.pt") for d in (one_process, two))
    assert lp1["old"].keys() == lp2["old"].keys() and len(lp1["old"]) == 20
    from transformers import AutoConfig

    from tests.conftest import brevity_model_path
    from tests.tolerance import gradient_tolerance, logits_tolerance, tolerance
    config = AutoConfig.from_pretrained(brevity_model_path())
    scale = max(float(v.abs().max()) for v in lp1["old"].values())   # the log-softmax's terms reach |logp|
    bound = logits_tolerance(config, 64, scale, sum(v.numel() for v in lp1["old"].values()), logprobs=True)
    assert max(float((lp1["old"][i] - lp2["old"][i]).abs().max()) for i in lp1["old"]) <= bound
    f1, f2 = m1[u1]["figures"], m2[u1]["figures"]
    assert f1["optim/steps"] == f2["optim/steps"] == 4
    assert f1["update/trained_tokens"] == f2["update/trained_tokens"]
    rel = gradient_tolerance(config, 64, 400)   # the figures come out of the forward and backward chain
    for k in ("loss/total", "loss/policy", "kl/k3", "optim/grad_norm", "policy/entropy", "kl/coef"):
        # abs: a figure near 0 (k3 near the reference) is a mean over the tokens of terms up to ~1
        assert f2[k] == pytest.approx(f1[k], rel=rel, abs=tolerance(torch.float32, 1.0, [400])), k
    a1, a2 = adapter(one_process), adapter(two)
    assert max(float(v.abs().max()) for v in a1.values()) > 1e-2  # the adapter really moved
    assert max_diff(a1, a2) <= adapter_bound(a1)


@pytest.mark.slow
def test_kill_one_rank_mid_sample_then_mid_update_then_rerun(tmp_path, brevity_model, two_processes):
    """kill -9 of rank 1 inside sample; rerun, kill -9 of rank 1 after the update's second optimizer
    step; rerun: the same artifacts as the uninterrupted 2-process epoch, the judge not run again."""
    ref, _ = two_processes
    over = overrides(tmp_path, brevity_model)
    edir = epoch_dir(tmp_path)
    r = run_cli("epoch", "1", "--processes", "2", *over, env_extra={"RLAIF_KILL_AT": "sample"})
    assert r.returncode != 0 and "rank 1 killing itself at sample" in r.stdout, r.stdout[-2000:]
    assert "sample" not in manifests(edir)

    r = run_cli("epoch", "1", "--processes", "2", *over, env_extra={"RLAIF_KILL_AT": "update-step-2"})
    assert r.returncode != 0 and "rank 1 killing itself at update-step-2" in r.stdout, r.stdout[-2000:]
    done = manifests(edir)
    assert "judge" in done and not any(n.startswith("update-") for n in done)
    assert list(edir.glob(".ckpt-update-*/state.pt")), "rank 0 wrote no checkpoint before the kill"
    judged_at = done["judge"]["finished_at"]

    r = run_cli("epoch", "1", "--processes", "2", *over)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert "resuming from" in r.stderr and "judge    reused" in r.stdout
    got, want = manifests(edir), manifests(ref)
    assert got.keys() == want.keys()
    assert got["judge"]["finished_at"] == judged_at  # no judge request repeated
    for name in SHARED_TABLES:
        assert got[name]["files"] == want[name]["files"], name
    assert max_diff(adapter(edir), adapter(ref)) <= adapter_bound(adapter(ref))
    assert not list(edir.glob(".ckpt-update-*")) and not list(edir.glob(".tmp-*"))


@pytest.mark.slow   # 14 s, and where it is the first to want the brevity model, its 45 s build too
def test_the_run_lock_covers_every_rank(tmp_path, brevity_model):
    """While a 2-process epoch works on a run, another rlaif process on it fails at once, with one
    process or with two (refused once by the launcher, exit 2, before any rank starts)."""
    over = overrides(tmp_path, brevity_model)
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "RLAIF_STALL_IN": "prompts"}
    first = subprocess.Popen([sys.executable, "-m", "pipeline.cli", "--config", "configs/length_reward.yaml",
                              "epoch", "1", "--processes", "2", *over], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, env=env, start_new_session=True)
    try:
        seen, deadline = "", time.time() + 300
        while "stalled in prompts" not in seen and time.time() < deadline:
            line = first.stdout.readline()
            if not line:
                break
            seen += line
        assert "stalled in prompts" in seen, seen[-2000:]
        one = run_cli("epoch", "1", *over, timeout=120)
        assert one.returncode == 2 and "another rlaif process" in one.stderr, one.stderr[-2000:]
        two = run_cli("epoch", "1", "--processes", "2", *over, timeout=200)
        assert two.returncode == 2 and two.stderr.count("error: another rlaif process") == 1, two.stderr[-2000:]
        assert "launching" not in two.stdout and "Traceback" not in two.stderr
    finally:
        # SIGTERM, as a user's kill would send: torchrun's agent stops the ranks, which run in sessions
        # of their own (a SIGKILL of the launcher's group would leave them running)
        os.killpg(first.pid, signal.SIGTERM)
        first.wait(timeout=120)
        assert first.returncode == 143   # the launcher passed it on, and says it as the shell would
        deadline = time.time() + 60
        while time.time() < deadline and ranks_left(tmp_path):
            time.sleep(1)
        left = ranks_left(tmp_path)
        subprocess.run(["pkill", "-9", "-f", str(tmp_path)])
        assert not left, f"ranks still running after the launcher was stopped: {left}"


def ranks_left(root: Path) -> list[str]:
    """pids of processes whose command line names this test's run directory."""
    return subprocess.run(["pgrep", "-f", str(root)], capture_output=True, text=True).stdout.split()


# -- the pieces, in one process ---------------------------------------------------------------------

def test_shards_cover_every_item_once_in_order(monkeypatch):
    for world in (1, 2, 3, 4):
        for n in range(0, 9):
            got = []
            for r in range(world):
                monkeypatch.setenv("WORLD_SIZE", str(world))
                monkeypatch.setenv("RANK", str(r))
                got.append(dist.shard(list(range(n))))
            assert dist.merge(got) == list(range(n)), (world, n)
            assert max(map(len, got)) - min(map(len, got)) <= 1


def test_the_seeded_sampler_draws_from_the_warped_distribution():
    """40,000 rows over one 6-token distribution: frequencies within 4 sigma of softmax(logits / T);
    top-k and top-p never draw outside their set."""
    from pipeline.engines.hf import SeededSampler
    logits = torch.tensor([2.0, 1.0, 0.5, 0.0, -1.0, -3.0])
    n = 40_000
    scores = logits.expand(n, -1).clone()
    ids = torch.zeros(n, 5, dtype=torch.long)  # width 4: step 1
    sampler = SeededSampler(list(range(n)), 4, 8, 0.7, 1.0, 0, "cpu")
    out = sampler(ids, scores)
    assert torch.isinf(out).sum(-1).eq(5).all()  # one token left per row
    counts = torch.bincount(out.argmax(-1), minlength=6).float()
    p = torch.softmax(logits / 0.7, -1)
    sigma = (n * p * (1 - p)).sqrt()
    assert ((counts - n * p).abs() < 4 * sigma + 1).all(), (counts / n, p)
    topk = SeededSampler(list(range(n)), 4, 8, 1.0, 1.0, 2, "cpu")(ids, scores).argmax(-1)
    assert set(topk.tolist()) == {0, 1}
    topp = SeededSampler(list(range(n)), 4, 8, 1.0, 0.5, 0, "cpu")(ids, scores).argmax(-1)
    assert set(topp.tolist()) == {0}  # token 0 alone holds 0.59 of the mass
    # the next step draws anew; the same seeds and step draw the same
    again = SeededSampler(list(range(n)), 4, 8, 0.7, 1.0, 0, "cpu")
    assert torch.equal(again(ids, scores).argmax(-1), out.argmax(-1))
    assert not torch.equal(again(torch.zeros(n, 6, dtype=torch.long), scores).argmax(-1), out.argmax(-1))


def test_a_completion_does_not_depend_on_its_batch_or_its_shard(tiny_model):
    """The same prompts sampled one group per batch, all in one batch, and the last two alone (as a
    second rank would): the same completions, token for token."""
    from pipeline.config.file import load_config
    from pipeline.engines.model import load_tokenizer, student_model
    from pipeline.engines.hf import chat_prompt, generate
    cfg = load_config(None, [f"student.model={tiny_model}", "sample.num_samples=3", "sample.max_new_tokens=12",
                             "sample.temperature=1.0"])
    tok = load_tokenizer(cfg.student)
    model = student_model(cfg)
    texts = ["Write add(a, b).", "Reverse a string s.", "Return the max of a list xs, or None.", "Sum 1..n."]
    prompts, keys = [chat_prompt(tok, cfg, t) for t in texts], ["p0", "p1", "p2", "p3"]
    small = generate(model, tok, prompts, cfg.model_copy(update={"sample": cfg.sample.model_copy(update={"batch_size": 3})}),
                     seed=7, keys=keys)
    big = generate(model, tok, prompts, cfg.model_copy(update={"sample": cfg.sample.model_copy(update={"batch_size": 12})}),
                   seed=7, keys=keys)
    tail = generate(model, tok, prompts[2:], cfg, seed=7, keys=keys[2:])
    ids = [r["completion_ids"] for r in small]
    assert ids == [r["completion_ids"] for r in big]
    assert ids[6:] == [r["completion_ids"] for r in tail]
    assert len({tuple(i) for i in ids}) > 6  # really sampled: the completions differ
    other = generate(model, tok, prompts, cfg, seed=8, keys=keys)
    assert [r["completion_ids"] for r in other] != ids


@pytest.mark.parametrize("rank, warned", [("0", True), ("1", False)])
def test_only_rank_0_prints_the_warnings_every_rank_would_repeat(tmp_path, rank, warned):
    """A config warning (an unused judge.python.function) and this tool's logged warnings come once, from
    rank 0; the other ranks keep their errors and other libraries' warnings."""
    code = ("import logging, sys; from pipeline.cli.main import main; "
            "logging.basicConfig(format='%(levelname)s %(message)s'); "
            "logging.getLogger('rlaif').warning('a logged warning'); logging.getLogger('rlaif').error('an error'); "
            f"rc = main(['config', 'show', 'run.dir={tmp_path}', 'judge.python.function=x.py:f']); "
            "logging.getLogger('pipeline.store.dist').warning('a module warning'); "
            "logging.getLogger('urllib3').warning('a library warning'); sys.exit(rc)")
    env = {**os.environ, "RANK": rank}
    env.pop("WORLD_SIZE", None)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "an error" in r.stderr and "a library warning" in r.stderr and ("a module warning" in r.stderr) == warned
    assert ("a logged warning" in r.stderr) == warned and ("judge.python.function=x.py:f is not" in r.stderr) == warned


def test_a_deepspeed_accelerate_config_is_refused_before_any_process_starts(tmp_path, capsys, monkeypatch):
    """The update refuses DeepSpeed: `--processes 2 --accelerate-config` naming it says so at once, as does
    a file that is not there, instead of launching ranks that fail when the update stage begins. Launched by
    hand (`accelerate launch --config_file ds.yaml -m pipeline.cli epoch 1`), each rank refuses before any
    work too: it sampled and judged first, then stopped at the update."""
    import torch
    from pipeline.cli.main import main
    with monkeypatch.context() as m:
        m.setenv("ACCELERATE_USE_DEEPSPEED", "true")   # what accelerate launch sets for a DeepSpeed config
        assert main(["epoch", "1", f"run.dir={tmp_path / 'by-hand'}"]) == 2
        assert "launched with a DeepSpeed accelerate config" in capsys.readouterr().err
        assert not (tmp_path / "by-hand").exists()   # (nothing written: no run directory)
        assert main(["epoch", "1", "--dry-run", f"run.dir={tmp_path / 'by-hand'}"]) == 0   # (it trains nothing)
    ds = tmp_path / "ds.yaml"
    ds.write_text("compute_environment: LOCAL_MACHINE\ndistributed_type: DEEPSPEED\ndeepspeed_config:\n  zero_stage: 2\n")
    assert main(["epoch", "1", "--processes", "2", "--accelerate-config", str(ds), f"run.dir={tmp_path}"]) == 2
    said = capsys.readouterr()
    assert f"--accelerate-config {ds}: DeepSpeed" in said.err and "FSDP" in said.err and "launching" not in said.out
    if not torch.cuda.is_available():
        (tmp_path / "fsdp.yaml").write_text("distributed_type: FSDP\nfsdp_config:\n  fsdp_version: 1\nuse_cpu: false\n")
        assert main(["epoch", "1", "--processes", "2", "--accelerate-config", str(tmp_path / "fsdp.yaml")]) == 2
        assert "FSDP shards the model over GPUs, and this machine has none" in capsys.readouterr().err
    assert main(["epoch", "1", "--processes", "2", "--accelerate-config", str(tmp_path / "none.yaml")]) == 2
    assert "cannot read it (No such file or directory)" in capsys.readouterr().err
    # a .json config is read as accelerate reads it (json: a tab-indented file is no YAML)
    from pipeline.store.dist import _refused
    for kind, refused in (("FSDP", not torch.cuda.is_available()), ("DEEPSPEED", True)):
        (tmp_path / "a.json").write_text('{\n\t"distributed_type": "%s",\n\t"num_processes": 2\n}\n' % kind)
        assert (_refused(str(tmp_path / "a.json")) is not None) == refused, kind


def test_an_accelerate_config_without_processes_and_fewer_than_one_process_are_refused(tmp_path):
    """`--accelerate-config FILE` alone ran on one process, the file unread, and `--processes 0` or `-3` were
    taken: each is an error of the command line, naming the option, before anything runs."""
    nope = str(tmp_path / "nope.yaml")
    for args, said in ((["--accelerate-config", nope], f"--accelerate-config {nope} is read only when launching"),
                       (["--processes", "1", "--accelerate-config", nope], "add --processes N"),
                       (["--processes", "0"], "argument --processes: 0 is less than 1"),
                       (["--processes", "-3"], "argument --processes: -3 is less than 1"),
                       # what every rank would refuse, refused once by the launcher (exit 2, no torchrun trace)
                       (["--processes", "2", "update.lrr=1"], "update.lrr: unknown key"),
                       (["--processes", "2", "sample.engine=vllm"], "do not run with several processes")):
        r = run_cli("epoch", "1", *args, f"run.dir={tmp_path}", timeout=60)
        assert r.returncode == 2 and r.stderr.count(said) == 1 and "Traceback" not in r.stderr, (args, r.stderr)
        assert r.stderr.startswith("usage: rlaif epoch") or "=" in args[-1], r.stderr   # the command's usage
        assert "launching" not in r.stdout and not any(tmp_path.iterdir())
