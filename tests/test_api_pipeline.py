"""Claude/GPT as teacher and judge inside real epochs, against the local fake API server:
paid once, replayable offline, budgeted, and safe to kill."""
from __future__ import annotations

import json
import re
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from judges.cache import JudgeCache
from pipeline.cli.main import main
from pipeline.config.file import load_config
from pipeline.run.runner import Runner
from pipeline.store.artifacts import read_manifest
from pipeline.store.tables import load_table
from tests.fakeapi import FakeAPI

PRICES = "judge.prices={fake-model: {input: 3.0, output: 15.0}}"


@pytest.fixture
def api(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    with FakeAPI() as a:
        yield a


def api_run(tiny_config, api: FakeAPI) -> list[str]:
    return tiny_config + [
        "teacher.kind=openai", "teacher.model=fake-model", f"teacher.base_url={api.openai_url}",
        "judge.kind=mix", "judge.model=fake-model", f"judge.base_url={api.anthropic_url}",
        "judge.mix={execution: 0.65, anthropic: 0.35}", PRICES, "judge.attempts=3",
        "select.drop_zero_std=false", "select.advantage=mean", "reward.none_as=0.0"]


def judge_values(r: Runner, n: int) -> list:
    return [(x["role"], x["problem_id"], x["sample_idx"], x["value"]) for x in load_table(r.epoch_dir(n) / "judge")]


def test_api_epoch_pays_once_and_replays_offline(tiny_config, api, capsys, monkeypatch):
    over = api_run(tiny_config, api)
    assert main(["epoch", "1", "--dry-run", *over]) == 0
    out = capsys.readouterr().out
    assert "teacher (openai fake-model): 3 of 3 answers missing" in out and "judge (anthropic fake-model)" in out
    assert api.total == 0  # a dry run calls nothing

    assert main(["epoch", "1", *over]) == 0
    r = Runner(load_config(None, over))
    m = json.loads((r.epoch_dir(1) / "metrics.json").read_text())
    assert m["teacher/api_calls"] == 3 and m["teacher/cost_usd"] > 0
    assert m["judge/cost_usd"] > 0 and m["judge/api_calls"] >= 12  # 9 student + 3 teacher LLM judgements (+ sandbox runs)
    assert 0 <= m["judge/execution_mean"] <= 1 and 0 <= m["judge/anthropic_mean"] <= 1   # each mix component's own
    paid = api.total
    assert paid == 3 + 12
    judged = judge_values(r, 1)
    bd = load_table(r.epoch_dir(1) / "judge", json_cols=("breakdown",))[0]["breakdown"]
    assert set(bd) >= {"execution", "anthropic"} and bd["anthropic"]["weight"] == 0.35

    # unchanged rerun and an update-only variant: no request reaches the server
    assert main(["epoch", "1", *over]) == 0
    first = r.chosen_update(1)[0].name
    capsys.readouterr()
    assert main(["update", "1", *over, "update.lr=5e-6"]) == 0
    made = r.chosen_update(1)[0].name
    assert f"policy: {made[7:]} -> " in capsys.readouterr().out and made != first   # the last made: chosen
    assert main(["update", "1", *over]) == 0     # the first variant again, reused: not the policy
    out = capsys.readouterr().out
    assert "policy: " not in out and f"update variant {first[7:]} -> " in out, out
    assert f"epoch 1's chosen policy is {made} (the last made)" in out and f"`rlaif promote 1 {first}`" in out
    assert api.total == paid

    # replay offline: no server, no API key, identical scores bit for bit
    api.offline = True   # out of reach: every connection closed unanswered (the port kept for the live run below)
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    monkeypatch.delenv("OPENAI_API_KEY")
    import shutil
    for stage in ("teacher", "judge"):
        shutil.rmtree(r.epoch_dir(1) / stage)
    capsys.readouterr()
    assert main(["replay", "1", *over]) == 0
    assert judge_values(r, 1) == judged
    capsys.readouterr()   # replayed: its dry run names the replay that remakes it, not a live `rlaif epoch`
    assert main(["replay", "1", "--dry-run", *over]) == 0
    assert "(`rlaif replay 1 --force` would remake it from the cache; then judge (" in capsys.readouterr().out
    # which it does: every stage again, every judgement from the cache
    assert main(["replay", "1", "--force", *over]) == 0 and judge_values(r, 1) == judged

    # a replay that would replace the epoch's answers (another sampling config) refuses before any work: the
    # cache cannot hold judgements of answers not drawn yet, and the epoch would be left half replaced
    sampled = json.loads((r.epoch_dir(1) / "sample" / "manifest.json").read_text())["fingerprint"]
    capsys.readouterr()
    for dry in ([], ["--dry-run"]):
        assert main(["replay", "1", *dry, *over, "sample.temperature=0.9"]) == 2
        err = capsys.readouterr().err
        assert "would remake its finished stage(s) sample (sample.temperature 0.7 -> 0.9)" in err, err
        assert "`rlaif epoch 1` remakes it live" in err and "`rlaif replay 1 --force`" in err
    assert json.loads((r.epoch_dir(1) / "sample" / "manifest.json").read_text())["fingerprint"] == sampled

    # a replay miss is a clear error with the count, or skipped and counted when asked; its dry run says so, no price
    assert main(["replay", "1", "--dry-run", *over, "judge.show_teacher=false"]) == 0
    assert ("judge (anthropic fake-model): 9 of 12 judgements missing: judge.mode=replay stops on them"
            in capsys.readouterr().out)
    assert main(["replay", "1", "--dry-run", *over, "judge.show_teacher=false", "judge.skip_missing=true"]) == 0
    assert "9 of 12 judgements missing: the replay skips and counts them" in capsys.readouterr().out
    assert main(["replay", "1", *over, "judge.show_teacher=false"]) == 2
    out, err = capsys.readouterr()
    assert "judge    running  epoch-001/judge (remade: judge.show_teacher True -> False)" in out  # why it asks again
    assert "judge.mode=replay" in err and "9 of 24 judgements are not in the cache" in err  # the teacher judgements never see a reference
    import re
    assert re.search(r"not in the cache \S+ \(anthropic 9 of 12\), of problems [^,;]+, [^,;]+, [^,;]+; judge them live \(`rlaif epoch N` in place of `rlaif replay N`: judge.mode=live\)", err), err
    assert main(["replay", "1", *over, "judge.show_teacher=false", "judge.skip_missing=true",
                 "run.name=skipping"]) == 0
    # docs/guides/judges-and-cost.md: such an epoch lacks answers (a live run reusing it says so: test_cli_front.py),
    # and `rlaif epoch N --force` asks for them (the rest come from the cache): the 9, and nothing more
    skipping = Runner(load_config(None, [*over, "judge.show_teacher=false", "run.name=skipping"]))
    assert read_manifest(skipping.epoch_dir(1) / "judge")["figures"]["judge/skipped"] == 9
    assert api.total == paid   # every replay above: no request
    api.offline = False
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    before = api.total
    assert main(["epoch", "1", "--force", *over, "judge.show_teacher=false", "run.name=skipping"]) == 0
    assert api.total - before == 9
    assert not read_manifest(skipping.epoch_dir(1) / "judge")["figures"].get("judge/skipped")


def test_the_spend_ledger_survives_a_line_cut_by_a_kill(tmp_path):
    from pipeline.stages.spend import SPEND_LEDGER, run_spend, spend_ledger
    paid = spend_ledger(tmp_path, "judge")
    paid("k1", 0.25)
    with open(tmp_path / SPEND_LEDGER, "a") as f:
        f.write('{"stage": "judge", "key": "k2", "u')   # killed mid-write
    paid("k3", 0.5)
    spend_ledger(tmp_path, "teacher")("k4", 0.125)
    assert run_spend(tmp_path) == {"judge": 0.75, "teacher": 0.125}


def test_an_api_error_that_is_not_retried_is_an_error_line_not_a_traceback(tiny_config, api, capsys):
    api.fail(401, times=50)
    assert main(["epoch", "1", *api_run(tiny_config, api)]) == 2
    err = capsys.readouterr().err
    assert "error: teacher: " in err and "HTTP 401" in err and "rerun the same command" in err
    assert "Traceback" not in err and api.total == 3  # the 3 teacher requests, none retried (an auth error)


def test_teacher_answers_cut_off_at_max_tokens_say_which_limit_and_a_new_limit_asks_again(tiny_config, api, caplog):
    """A reasoning teacher that spends teacher.max_tokens on reasoning answers nothing: the stage says
    which limit to raise; the cut-off answers are cached under their limit, so a new one asks again."""
    over = api_run(tiny_config, api) + ["teacher.max_tokens=64"]
    assert main(["epoch", "1", "--only", "prompts", *over]) == 0
    api.fail("cut_off", times=3)
    with caplog.at_level("WARNING", logger="rlaif"):
        assert main(["epoch", "1", "--only", "teacher", *over]) == 0
    said = " ".join(r.getMessage() for r in caplog.records)
    assert "3 answers were cut off at teacher.max_tokens=64" in said and "raise teacher.max_tokens" in said
    r = Runner(load_config(None, over))
    assert [x["text"] for x in load_table(r.epoch_dir(1) / "teacher")] == ["", "", ""] and api.total == 3
    assert main(["epoch", "1", "--only", "teacher", *over]) == 0 and api.total == 3   # cached as asked
    assert main(["epoch", "1", "--only", "teacher", *over[:-1], "teacher.max_tokens=256"]) == 0
    assert api.total == 6 and all(x["text"] for x in load_table(r.epoch_dir(1) / "teacher"))
    # an answer cut off with its text is judged as a student's cut-off answer is (judge.*.truncation_factor)
    api.fail("cut_text", times=3)
    over[-1] = "teacher.max_tokens=128"
    assert main(["epoch", "1", "--only", "teacher", *over]) == 0 and api.total == 9
    assert [x["truncated"] for x in load_table(r.epoch_dir(1) / "teacher")] == [True] * 3
    assert main(["epoch", "1", "--only", "sample", *over]) == 0 and main(["epoch", "1", "--only", "judge", *over]) == 0
    teacher = [j["breakdown"]["execution"] for j in load_table(r.epoch_dir(1) / "judge", json_cols=("breakdown",))
               if j["role"] == "teacher"]
    assert len(teacher) == 3 and all(t["truncated"] for t in teacher)


def test_budget_stops_the_judge_stage_and_keeps_what_was_paid(tiny_config, api, capsys):
    over = api_run(tiny_config, api) + ["judge.max_in_flight=1", "teacher.max_tokens=200", "judge.max_tokens=200"]
    # a call is reserved at its worst case (max_tokens of output) and costs ~$0.002; the teacher's
    # 3 answers fit in the budget, the 12 judgements do not
    assert main(["epoch", "1", "--dry-run", *over, "judge.budget_usd=0.015"]) == 0   # said before any call
    assert ("judge.budget_usd=$0.015 is less than this run has spent ($0.0000) and this estimate (~$"
            in capsys.readouterr().out) and api.total == 0
    assert main(["epoch", "1", "--dry-run", *over, "judge.budget_usd=1.0"]) == 0
    assert "judge.budget_usd" not in capsys.readouterr().out
    assert main(["epoch", "1", *over, "judge.budget_usd=0.015"]) == 2
    err = capsys.readouterr().err
    assert "judge.budget_usd=$0.015 reached" in err and "Raise judge.budget_usd" in err, err[-600:]
    assert re.search(r"the next call's worst case, \$0\.\d{4} \(judge\.max_tokens of output at its model's price\), "
                     r"is more than the \$0\.\d{4} left", err), err[-600:]
    r = Runner(load_config(None, over))
    assert (r.epoch_dir(1) / "teacher" / "manifest.json").exists()
    assert not (r.epoch_dir(1) / "judge").exists()
    first = api.total
    assert 3 < first < 15
    cache = JudgeCache(Path(r.cfg.run.dir) / ".judge-cache")
    kept = len(cache)
    cache.close()
    # the stopped stage's answers were paid: the same budget again asks for nothing more
    capsys.readouterr()
    assert main(["epoch", "1", *over, "judge.budget_usd=0.015"]) == 2
    assert api.total == first and "judge.budget_usd=$0.015 reached" in capsys.readouterr().err
    from pipeline.report.status import status_lines
    from pipeline.stages.spend import spent_usd
    stopped = spent_usd(r.run_dir)
    from pipeline.stages.spend import SPEND_LEDGER
    paid = [x for x in map(json.loads, (r.run_dir / SPEND_LEDGER).read_text().splitlines()[1:]) if "done" not in x]
    assert len(paid) == first and all(p["usd"] > 0 for p in paid) and 0 < stopped <= 0.015
    assert "outside the finished stages' figures (stages stopped" in "\n".join(status_lines(r))
    assert main(["epoch", "1", *over, "judge.budget_usd=1.0"]) == 0
    assert max(api.by_body.values()) == 1  # nothing paid was asked for again
    assert api.total == 15
    assert kept >= first  # every paid answer was cached (plus the sandbox's judgements)
    # the run's spend: every paid call once, the stopped attempts' in the stage's own figure (their
    # answers came back to the last attempt as cache hits: paid, not saved)
    m = json.loads((r.epoch_dir(1) / "judge" / "manifest.json").read_text())["figures"]
    t = json.loads((r.epoch_dir(1) / "teacher" / "manifest.json").read_text())["figures"]
    total = spent_usd(r.run_dir)
    assert total > stopped and m["judge/cost_usd"] > stopped - t["teacher/cost_usd"]
    assert abs(total - m["judge/cost_usd"] - t["teacher/cost_usd"]) <= 64 * sys.float_info.epsilon * total
    assert m["judge/saved_usd"] == 0 and m["judge/cache_hits"] >= first - 3
    text = "\n".join(status_lines(r))
    assert f"money spent so far: ${total:.4f}" in text and "outside the finished" not in text


@pytest.mark.slow
def test_kill_during_judge_stage_repeats_no_answered_request(tiny_config, api, tmp_path, capsys):
    api.latency = 0.3
    over = api_run(tiny_config, api) + ["judge.max_in_flight=2"]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "pipeline.cli", "epoch", "1", *over], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 600   # (on a loaded machine its start alone takes minutes)
    while api.total < 3 + 5 and time.time() < deadline and proc.poll() is None:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert 3 + 5 <= api.total < 15, api.total
    before = dict(api.by_body)
    r = Runner(load_config(None, over))
    assert not (r.epoch_dir(1) / "judge").exists()
    assert main(["update", "1", *over]) == 2   # (it said the judge stage's inputs "changed")
    assert "stage judge of epoch 1 is not up to date for this config (it is not done: it failed or never ran)" \
        in capsys.readouterr().err and api.total < 15
    # the judge stage alone (its inputs finished before the kill): what follows it asks the API nothing
    res = subprocess.run([sys.executable, "-m", "pipeline.cli", "epoch", "1", "--only", "judge", *over], env=env,
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    assert "HTTP Request" not in res.stderr   # the SDK client's line per request, at INFO: hundreds an epoch
    # at most the requests in flight at the kill (max_in_flight=2) are asked again
    again = [b for b, n in api.by_body.items() if n > 1]
    assert len(again) <= 2, again
    assert set(api.by_body) >= set(before) and len(api.by_body) == 15


def test_batch_epoch_half_price_stops_at_batch_timeout_and_resumes_the_same_batch(tiny_config, api, capsys):
    """teacher (openai) and judge (anthropic) through the batch APIs inside real epochs: dry-run shows both
    prices; a judge.batch_timeout stops the stage cleanly, the rerun polls the journaled batch (kept in
    the epoch's .work/judge/) instead of submitting another; no request goes live."""
    # the teacher's batch ends well inside the timeout even on a loaded machine, the judge's well after it
    api.batch_delay = lambda provider: 0.1 if provider == "openai" else 4.0
    over = api_run(tiny_config, api) + [
        "judge.prices={fake-model: {input: 3.0, output: 15.0, batch_input: 1.5, batch_output: 7.5}}",
        "teacher.batch=true", "judge.batch=true", "judge.batch_poll_s=0.02", "judge.batch_max_poll_s=0.05"]
    assert main(["epoch", "1", "--dry-run", *over]) == 0
    out = capsys.readouterr().out
    for line in [ln for ln in out.splitlines() if "fake-model):" in ln]:
        live, batch = (float(x.split()[0]) for x in line.split("~$")[1:3])
        assert batch == pytest.approx(live / 2, abs=1e-4) and "(this run: batch)" in line, line
    assert api.total == 0

    assert main(["epoch", "1", *over, "judge.batch_timeout=1.5"]) == 2
    err = capsys.readouterr().err
    assert "judge.batch_timeout=1.5s reached" in err and "resume polling" in err, err[-800:]
    r = Runner(load_config(None, over))
    assert (r.epoch_dir(1) / "teacher" / "manifest.json").exists() and not (r.epoch_dir(1) / "judge").exists()
    assert '"created"' in (r.epoch_dir(1) / ".work" / "judge" / "batches.jsonl").read_text()
    assert dict(api.batch_creates) == {"openai": 1, "anthropic": 1}

    assert main(["epoch", "1", *over]) == 0
    assert dict(api.batch_creates) == {"openai": 1, "anthropic": 1}
    assert sorted(api.batch_items.values()) == [1] * 15  # 3 teacher answers, 12 judgements, each submitted once
    assert api.by_path["/v1/messages"] == api.by_path["/v1/chat/completions"] == 0  # nothing went live
    m = json.loads((r.epoch_dir(1) / "metrics.json").read_text())
    assert (m["teacher/batches"], m["judge/batches"], m["judge/batches_resumed"]) == (1, 0, 1)
    assert m["judge/api_calls"] >= 12 and m["judge/cost_usd"] > 0 and m["teacher/cost_usd"] > 0
    paid = api.total
    assert main(["epoch", "1", *over]) == 0 and api.total == paid


def test_a_kill_between_the_judge_stages_outputs_and_its_manifest_keeps_its_cost(tiny_config, api, monkeypatch):
    """Killed at the worst moment (the stage's rows written, its manifest not yet): the rerun finds every
    answer in the cache, and its figures still count what the killed attempt paid (not as saved)."""
    import pipeline.run.runner as runner
    from pipeline.stages.spend import spent_usd
    over = api_run(tiny_config, api)
    real, killed = runner._fault_point, []

    def fault(stage):
        if stage == "judge" and not killed:
            killed.append(stage)
            raise KeyboardInterrupt
        real(stage)
    monkeypatch.setattr(runner, "_fault_point", fault)
    assert main(["epoch", "1", *over]) != 0 and killed
    paid = api.total
    assert main(["epoch", "1", *over]) == 0 and api.total == paid   # nothing asked again
    r = Runner(load_config(None, over))
    m = json.loads((r.epoch_dir(1) / "judge" / "manifest.json").read_text())["figures"]
    t = json.loads((r.epoch_dir(1) / "teacher" / "manifest.json").read_text())["figures"]
    total = spent_usd(r.run_dir)
    assert m["judge/cost_usd"] > 0 and m["judge/saved_usd"] == 0
    assert abs(total - m["judge/cost_usd"] - t["teacher/cost_usd"]) <= 64 * sys.float_info.epsilon * total


def test_the_dry_run_prices_one_call_per_distinct_answer_as_the_run_pays(tiny_config, api, capsys):
    """Near-greedy sampling gives a prompt's answers alike: the judge pays one call per distinct answer
    (the rest are cache hits), and the dry run counts and prices those calls, not every answer."""
    over = tiny_config + ["sample.temperature=0.01", "sample.max_new_tokens=4"]
    for stage in ("prompts", "sample", "teacher"):
        assert main(["epoch", "1", "--only", stage, *over]) == 0
    llm = over + ["judge.kind=anthropic", "judge.model=fake-model", f"judge.base_url={api.anthropic_url}", PRICES]
    capsys.readouterr()
    assert main(["epoch", "1", "--only", "judge", "--dry-run", *llm]) == 0
    out = capsys.readouterr().out
    line = next((x for x in out.splitlines() if "judge (anthropic" in x), out)
    import re
    found = re.search(r"(\d+) of (\d+) judgements missing \((\d+) calls: the rest repeat an answer\)", line)
    assert found, line
    assert main(["epoch", "1", "--only", "judge", *llm]) == 0
    assert api.total == int(found[3]) < int(found[1])
