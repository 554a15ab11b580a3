"""judge.mode=replay with judgements missing: one error counting every component's misses (a judge.mix stopped
at its first component and named none), with the ways on, teammates' caches included."""
from __future__ import annotations

from data.loaders import load_source
from pipeline.cli.main import main


def test_a_mix_replay_miss_counts_each_component(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    p = load_source("bank")[0]
    (tmp_path / "ref.md").write_text(f"```python\n{p.reference}\n```\n")
    (tmp_path / "rw.py").write_text("def reward(completions, **kw):\n    return [0.5 for _ in completions]\n")
    base = ["judge", "--problem", p.id, "--completion", "ref.md", f"run.dir={tmp_path / 'runs'}",
            f"judge.cache_dir={tmp_path / 'cache'}", f"judge.python.function={tmp_path / 'rw.py'}:reward"]
    assert main([*base, "judge.kind=python"]) == 0   # the python component's judgement, live, cached
    capsys.readouterr()
    mix = [*base, "judge.kind=mix", "judge.mix={execution: 0.5, python: 0.5}", "judge.mode=replay"]
    assert main(mix) == 2
    err = capsys.readouterr().err
    assert f"judge.mode=replay: 1 of 2 judgements are not in the cache {tmp_path / 'cache'} (execution 1 of 1), " \
           f"of problem {p.id}; judge them live" in err, err
    assert "another sample.dtype or CPU draws others" in err and "`rlaif replay N --force`" in err
    assert main([*mix[:-1], "judge.mode=live"]) == 0 and main(mix) == 0   # judged live once: the replay finds both
