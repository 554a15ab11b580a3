"""A panel of LLM judges (judge.mix with anthropic and openai, each its own model in judge.models) inside
real epochs, through the official SDKs against the local fake API server: each component called once
per answer with its own model, cached on its own, batched on its own."""
from __future__ import annotations

import json

import pytest

from pipeline.cli.main import main
from pipeline.config.file import load_config
from pipeline.run.runner import Runner
from pipeline.stages import JUDGE
from pipeline.store.tables import load_table
from tests.fakeapi import FakeAPI
from tests.fakeapi_replies import ANTHROPIC_PATH, OPENAI_PATH

pytestmark = pytest.mark.slow


@pytest.fixture
def api(monkeypatch):
    with FakeAPI(batch_delay=0.1) as a:
        # judge.base_url unset: each SDK reads its own base URL from the environment, as documented
        for name, url in (("ANTHROPIC", a.anthropic_url), ("OPENAI", a.openai_url)):
            monkeypatch.setenv(f"{name}_API_KEY", "test-key")
            monkeypatch.setenv(f"{name}_BASE_URL", url)
        yield a


def panel(tiny_config, claude: str = "fake-claude", gpt: str = "fake-gpt") -> list[str]:
    return tiny_config + [
        "judge.kind=mix", "judge.mix={execution: 0.5, anthropic: 0.25, openai: 0.25}",
        f"judge.models={{anthropic: {claude}, openai: {gpt}}}",
        "judge.prices={fake-claude: {input: 1.0, output: 5.0, batch_input: 0.5, batch_output: 2.5}, "
        "fake-gpt: {input: 0.25, output: 2.0, batch_input: 0.125, batch_output: 1.0}, "
        "fake-gpt-2: {input: 0.25, output: 2.0}}",
        "select.drop_zero_std=false", "select.advantage=mean", "reward.none_as=0.0"]


def through_judge(over: list[str]) -> dict:
    """Epoch 1's stages up to the judge (all a panel changes), one `--only` each; the judge's figures."""
    for stage in ("prompts", "sample", "teacher", "judge"):
        assert main(["epoch", "1", "--only", stage, *over]) == 0
    return json.loads((Runner(load_config(None, over)).epoch_dir(1) / "judge" / "manifest.json").read_text())["figures"]


def models_called(api: FakeAPI) -> dict[str, int]:
    out: dict[str, int] = {}
    for r in api.requests:
        if r.path in (ANTHROPIC_PATH, OPENAI_PATH):
            out[f"{r.path}:{r.body['model']}"] = out.get(f"{r.path}:{r.body['model']}", 0) + 1
    return out


def test_a_panel_calls_each_judge_with_its_own_model_once_and_caches_each_apart(tiny_config, api, capsys):
    over = panel(tiny_config)
    assert main(["epoch", "1", "--dry-run", *over]) == 0
    out = capsys.readouterr().out
    assert "judge (anthropic fake-claude): 12 of 12 judgements missing" in out
    assert "judge (openai fake-gpt): 12 of 12 judgements missing" in out and api.total == 0

    m = through_judge(over)
    # 9 student answers and 3 references, each judged once by each member of the panel
    assert models_called(api) == {f"{ANTHROPIC_PATH}:fake-claude": 12, f"{OPENAI_PATH}:fake-gpt": 12}
    r = Runner(load_config(None, over))
    assert all(0 <= m[f"judge/{k}_mean"] <= 1 for k in ("execution", "anthropic", "openai"))
    assert m["judge/cost_usd"] > 0 and m["judge/api_calls"] >= 24
    for row in load_table(r.epoch_dir(1) / "judge", json_cols=("breakdown",)):
        bd = row["breakdown"]
        assert {k: bd[k]["weight"] for k in ("execution", "anthropic", "openai")} == \
            {"execution": 0.5, "anthropic": 0.25, "openai": 0.25}
        assert row["value"] == pytest.approx(sum(bd[k]["weight"] * bd[k]["value"] for k in
                                                 ("execution", "anthropic", "openai")), abs=1e-12)

    # another model for one member: only that member is asked again; the other's judgements come from the cache
    before = api.total
    assert main(["epoch", "1", "--only", "judge", *panel(tiny_config, gpt="fake-gpt-2")]) == 0
    assert models_called(api)[f"{OPENAI_PATH}:fake-gpt-2"] == 12 and api.total == before + 12


def test_a_panel_batches_each_provider_apart(tiny_config, api):
    over = panel(tiny_config) + ["judge.batch=true", "judge.batch_poll_s=0.02", "judge.batch_max_poll_s=0.05"]
    m = through_judge(over)
    assert api.batch_creates["anthropic"] == 1 and api.batch_creates["openai"] == 1
    assert not models_called(api)                     # every judgement through the batches, none live
    assert m["judge/batches"] == 2 and all(f"judge/{k}_mean" in m for k in ("anthropic", "openai"))


def test_a_panel_names_every_members_model_and_moves_no_earlier_fingerprint():
    with pytest.raises(Exception, match=r"several LLM components \(anthropic, openai\): name each one's model in "
                                        r"judge.models, e.g. judge.models=\{anthropic: claude-haiku-4-5"):
        load_config(None, ["judge.kind=mix", "judge.mix={execution: 0.5, anthropic: 0.25, openai: 0.25}",
                           "judge.model=x"])
    with pytest.raises(Exception, match=r"judge.models maps LLM components"):
        load_config(None, ["judge.models={claude: x}"])
    one = load_config(None, ["judge.kind=anthropic", "judge.models={anthropic: m}"])   # judge.models alone names it
    assert one.judge.model == "" and one.judge.models == {"anthropic": "m"}
    # unset (every run before it), or naming only what judge.model already says or a component not in use,
    # judge.models moves no fingerprint
    assert "judge_panel" not in load_config(None, []).stage_config(JUDGE)
    same = ["judge.kind=anthropic", "judge.model=X"]
    for extra in (["judge.models={anthropic: X}"], ["judge.models={openai: Y}"]):
        assert load_config(None, same + extra).stage_config(JUDGE) == load_config(None, same).stage_config(JUDGE)
    assert load_config(None, same + ["judge.models={anthropic: Z}"]).stage_config(JUDGE)["judge_panel"] == {"anthropic": "Z"}


def test_an_endpoint_the_sdk_reads_from_the_environment_moves_the_api_stages_fingerprints(monkeypatch):
    """OPENAI_BASE_URL / ANTHROPIC_BASE_URL (where judge.base_url / teacher.base_url are unset) change who answers:
    the teacher's and the judge's fingerprints hold them, as their cache keys do; the SDK's own default, unset,
    an explicit base_url or a provider not in use moves nothing."""
    from pipeline.stages import TEACHER
    over = ["teacher.kind=openai", "teacher.model=m", "judge.kind=mix", "judge.mix={execution: 0.5, openai: 0.5}",
            "judge.model=m"]
    for name in ("OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    before = load_config(None, over)
    unset = (before.stage_config(TEACHER), before.stage_config(JUDGE))
    assert "teacher_endpoint" not in unset[0] and "judge_endpoints" not in unset[1]
    for url in ("https://api.openai.com/v1", "https://api.openai.com/v1/", ""):
        monkeypatch.setenv("OPENAI_BASE_URL", url)
        assert (before.stage_config(TEACHER), before.stage_config(JUDGE)) == unset, url
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9/")            # not in use: nothing moves
    assert (before.stage_config(TEACHER), before.stage_config(JUDGE)) == unset
    monkeypatch.setenv("OPENAI_BASE_URL", "http://localhost:8000/v1/")
    assert before.stage_config(TEACHER)["teacher_endpoint"] == {"openai": "http://localhost:8000/v1"}
    assert before.stage_config(JUDGE)["judge_endpoints"] == {"openai": "http://localhost:8000/v1"}
    pinned = load_config(None, over + ["teacher.base_url=http://a/v1", "judge.base_url=http://a/v1"])
    assert "teacher_endpoint" not in pinned.stage_config(TEACHER) and "judge_endpoints" not in pinned.stage_config(JUDGE)


def test_one_base_url_for_a_panel_of_two_providers_is_refused():
    """judge.base_url is every LLM component's: Anthropic's and OpenAI's protocols at one endpoint failed
    halfway through the judge stage (a 404 on the second); refused when the config loads, with the way."""
    over = ["judge.kind=mix", "judge.mix={execution: 0.5, anthropic: 0.25, openai: 0.25}",
            "judge.models={anthropic: a, openai: b}"]
    with pytest.raises(Exception, match=r"judge.base_url=http://h would send both the anthropic and the openai "
                                        r"component .* ANTHROPIC_BASE_URL=\.\.\. OPENAI_BASE_URL=\.\.\."):
        load_config(None, [*over, "judge.base_url=http://h"])
    assert load_config(None, over).judge.base_url == ""                 # unset: each SDK reads its own
    assert load_config(None, ["judge.kind=mix", "judge.mix={execution: 0.5, openai: 0.5}", "judge.model=b",
                              "judge.base_url=http://h"]).judge.base_url == "http://h"   # one provider: its URL
