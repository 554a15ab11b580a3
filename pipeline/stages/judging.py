"""Judges and teachers built from the config, for the teacher, judge and eval stages.

Every judgement and every teacher answer goes through the judge cache, keyed by everything
that changes it, so a rerun, a replay or an update-only variant never pays twice. Judges:
execution (sandboxed tests), anthropic / openai (rubric through the official SDKs), hf (a
local model), mix (weighted sum of components, each cached on its own so changing a weight
re-pays nothing).
"""
from __future__ import annotations

import asyncio
import logging
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from tqdm import tqdm

from data.schema import Problem
from judges.base import Score
from judges.cache import JudgeCache, cache_key
from judges.hashing import sha256_text
from pipeline.store.artifacts import epoch_name
from pipeline.config.schema import Config
from pipeline.config.errors import RunError
from pipeline.stages.problems import require_compilers
from pipeline.stages import Ctx
from pipeline.stages.spend import settle, settled, spend_ledger, spent_usd

# The parts of an execution score, per language: the breakdown keys the judge stage reports per epoch
# (breakdown/<part>) and the eval table per problem (<part>_ok).
PARTS = {"python": ("structure", "static", "load", "tests"), "ocaml": ("structure", "typecheck", "compile", "tests")}


def execution_parts(breakdown: dict | None) -> dict:
    """The execution judge's breakdown inside a score's (a mixed judge nests it under `execution`)."""
    b = breakdown or {}
    return b["execution"] if isinstance(b.get("execution"), dict) else b


def full_credit_shares(breakdowns: list[dict], parts) -> dict[str, float]:
    """<part>_ok: the share of breakdowns with full credit (1.0) on each part."""
    return {f"{k}_ok": sum(float(b[k]) >= 1.0 for b in breakdowns) / len(breakdowns) for k in parts}

log = logging.getLogger("rlaif")
LLM = ("anthropic", "openai", "hf")


def cache_dir(cfg: Config) -> Path:
    return Path(cfg.judge.cache_dir) if cfg.judge.cache_dir else Path(cfg.run.dir) / ".judge-cache"


def as_answer(code: str, language: str = "python") -> str:
    """A reference solution written the way the student is asked to answer."""
    return f"```{language}\n{code.rstrip()}\n```"


# -- model judges and teachers -------------------------------------------------------------
def make_model(kind: str, model: str, cfg: Config, teacher: bool = False):
    """An API client (anthropic / openai) or a local model (hf) that judges and writes answers."""
    if kind == "hf":
        from judges.hf import HFJudge
        return HFJudge(model, load_local_model, max_new_tokens=cfg.judge.max_tokens,
                       teacher_max_new_tokens=cfg.teacher.max_tokens, device=cfg.run.device)
    from judges.anthropic import AnthropicJudge
    from judges.limits import RateLimiter
    from judges.llm import PRICES
    from judges.openai import OpenAIJudge
    jc = cfg.judge
    opts: dict[str, Any] = dict(
        base_url=(cfg.teacher.base_url if teacher else jc.base_url) or None, max_tokens=jc.max_tokens,
        teacher_max_tokens=cfg.teacher.max_tokens, timeout_s=jc.timeout_s, attempts=jc.attempts,
        prices={**PRICES, **jc.prices}, limiter=RateLimiter(jc.max_in_flight, jc.rpm, jc.tpm),
        batch=batching(cfg, teacher))
    if jc.mode == "replay":  # answers come from the cache only: no key needed, none is sent
        opts["api_key"] = "replay-needs-no-key"
    temperature = cfg.teacher.temperature if teacher else jc.temperature
    # (the Messages API takes no temperature: the config refuses one for anthropic)
    api = AnthropicJudge(model, **opts) if kind == "anthropic" else OpenAIJudge(model, temperature=temperature, **opts)
    api.role = "teacher" if teacher else "judge"
    return api


def load_local_model(model_id: str, device: str):
    """(tokenizer, model) of an hf judge or teacher, loaded as the student is (no adapter)."""
    from pipeline.config.student import StudentConfig
    from pipeline.engines.model import load_student, load_tokenizer
    scfg = StudentConfig(model=model_id, system_prompt="")
    return load_tokenizer(scfg), load_student(scfg, device=device)


def batching(cfg: Config, teacher: bool = False) -> bool:
    """Whether misses go through the batch APIs (live mode only: replay never calls)."""
    return (cfg.teacher.batch if teacher else cfg.judge.batch) and cfg.judge.mode == "live"


def paid_for(ctx: Ctx, stage: str) -> str:
    """The name the spend ledger gives the stage's output at its fingerprint ('epoch-003/judge@1f2e...'): an
    attempt under other settings is another output's. The stage settles it once on disk (`settle_stage`)."""
    return f"{epoch_name(ctx.epoch)}/{stage}@{ctx.fingerprint[:16]}"


def settle_stage(ctx: Ctx, out: str, cost_usd: float, saved_usd: float) -> tuple[float, float]:
    """The stage's (cost, saved) dollars over every attempt that made output `out` (spend.settle), marked
    settled once the output is on disk (a kill before its manifest leaves them to the rerun)."""
    ctx.on_success.append(lambda: settled(ctx.run_dir, out))
    return settle(ctx.run_dir, out, cost_usd, saved_usd)


def work_dir(ctx: Ctx, stage: str) -> Path:
    """The stage's work directory, kept across runs (a killed stage's batch journal lives here)."""
    return ctx.run_dir / epoch_name(ctx.epoch) / ".work" / stage


class Sync:
    """Runs a local (hf) judge's blocking calls in a thread, as run_cached items."""

    def __init__(self, judge):
        self.judge = judge

    def score_item(self, problem, completion, reference):
        from judges.batch_records import BatchItem

        async def call() -> dict:
            return (await asyncio.to_thread(self.judge.score, problem, completion, reference)).to_json()
        return BatchItem(self.judge.key(problem, completion, reference), {}, "judge", call)

    def generate_item(self, problem):
        from judges.batch_records import BatchItem

        async def call() -> dict:
            return (await asyncio.to_thread(self.judge.generate, problem)).to_json()
        return BatchItem(self.judge.teacher_key(problem), {}, "teacher", call)

    def estimate_body_usd(self, body: dict, batch: bool = False) -> float:
        return 0.0


def run_items(cfg: Config, cache: JudgeCache, api, items: list, desc: str, run_dir: Path,
              journal_dir: Path | None = None, out: str | None = None, names: list[str] | None = None):
    """Answer items live (run_cached) or, with journal_dir, through the batch APIs (run_batched), with
    the run's budget and mode; budget, replay misses and batch timeouts become RunErrors. out: the
    output the calls are paid for, as the spend ledger records them ('epoch-003/judge@<fingerprint[:16]>'); names: each
    item's problem id, for a replay miss to name."""
    from judges.batch import run_batched
    from judges.batch_records import BatchTimeout, Journal
    from judges.cached import BudgetExceeded, ReplayMiss, run_cached
    from judges.retries import JudgeAPIError
    jc = cfg.judge
    bar = tqdm(total=len(items), desc=desc, unit="call", dynamic_ncols=True)
    try:
        if journal_dir is not None:
            return asyncio.run(run_batched(
                cache, api, items, Journal(journal_dir), budget_usd=jc.budget_usd, spent_usd=spent_usd(run_dir),
                poll_s=jc.batch_poll_s, max_poll_s=jc.batch_max_poll_s, timeout_s=jc.batch_timeout,
                failed=jc.batch_failed, max_in_flight=jc.max_in_flight, progress=bar.update,
                status=bar.set_postfix_str, on_paid=spend_ledger(run_dir, desc.split()[0], out)))
        return asyncio.run(run_cached(cache, [(it.key, it.live) for it in items], mode=jc.mode,
                                      budget_usd=jc.budget_usd, spent_usd=spent_usd(run_dir),
                                      estimate_usd=lambda i: api.estimate_body_usd(items[i].body),
                                      max_in_flight=jc.max_in_flight, skip_missing=jc.skip_missing,
                                      progress=bar.update, on_paid=spend_ledger(run_dir, desc.split()[0], out)))
    except BatchTimeout as e:
        raise RunError(f"judge.batch_timeout={e.timeout_s:g}s reached: {len(e.pending)} batches still running at "
                       f"the provider ({', '.join(e.pending)}); every answer that arrived is in the cache. Run the "
                       "same command again to resume polling them (nothing is submitted or paid again)") from None
    except BudgetExceeded as e:
        who = "teacher" if desc.startswith("teacher") else "judge"
        worst = (f"; the next call's worst case, ${e.next_usd:.4f} ({who}.max_tokens of output at its model's price), is "
                 f"more than the ${max(e.budget - e.spent, 0.0):.4f} left" if e.next_usd else "")
        raise RunError(f"judge.budget_usd=${e.budget:g} reached: the run has spent ${e.spent:.4f}{worst}; {e.done} "
                       f"answers of this stage are paid and kept in the cache, {e.remaining} remain. Raise "
                       "judge.budget_usd and rerun: nothing paid is asked for again") from None
    except JudgeAPIError as e:
        raise RunError(f"{desc}: {e}. Every answer that arrived before it is in the cache: fix the cause and rerun "
                       "the same command (nothing paid is asked for again)") from None
    except ReplayMiss as e:
        which = list(dict.fromkeys(names[i] for i in e.missing)) if names else []
        said = (f" (of problem{'s' if len(which) > 1 else ''} {', '.join(map(str, which[:5]))}"
                f"{f' and {len(which) - 5} more' if len(which) > 5 else ''})" if which else "")
        raise RunError(f"judge.mode=replay: {e.count} of {e.total} answers are not in the cache {cache.directory}{said}; "
                       "judge them live (`rlaif epoch N` in place of `rlaif replay N`: judge.mode=live), "
                       "import a teammate's cache (rlaif cache import FILE), "
                       "or set judge.skip_missing=true to skip and count them") from None
    finally:
        bar.close()


def batch_figures(prefix: str, stats, batch: bool) -> dict[str, Any]:
    if not batch:
        return {}
    return {f"{prefix}/batches": stats.batches, f"{prefix}/batches_resumed": stats.resumed,
            f"{prefix}/batch_failed": stats.failed}


# -- the judges' code versions (Stage.code) ---------------------------------------------------
def harness_code(cfg: Config) -> dict[str, str]:
    """The execution harnesses' versions (the eval's answers, an execution judge's judgements)."""
    from judges.execution import HARNESS_VERSION
    from judges.ocaml import OCAML_HARNESS_VERSION
    return {"python harness": HARNESS_VERSION, "ocaml harness": OCAML_HARNESS_VERSION}


def judge_code(cfg: Config) -> dict[str, str]:
    """What the configured judges' scores depend on: the harnesses, the rubric and its parser."""
    from judges import rubric
    kinds = components(cfg)
    out = harness_code(cfg) if "execution" in kinds else {}
    if kinds.keys() & {"anthropic", "openai", "hf"}:
        out.update({"rubric": rubric.rubric_hash()[:12], "parser": rubric.PARSER_VERSION})
    if "python" in kinds:   # the reward functions' files: an edit warns that finished judge stages are older
        from judges.python_rewards import RewardFunctionError, configured
        try:   # each function's file named and, when another, the one that defines it: as the cache keys have them
            out["reward function"] = configured(cfg.judge.python, cfg.student.system_prompt).code
        except RewardFunctionError as e:
            raise RunError(str(e)) from None
    return out


def eval_code(cfg: Config) -> dict[str, str]:
    """The eval's: the harnesses', and the run's judge's where the eval scores with it (Config.eval_judge)."""
    return {**harness_code(cfg), **(judge_code(cfg) if cfg.eval_judge else {})}


def teacher_code(cfg: Config) -> dict[str, str]:
    """A model teacher's prompt version (a reference teacher's answers are the data's)."""
    if cfg.teacher.kind in ("reference", "none"):
        return {}
    from judges.llm import TEACHER_VERSION
    return {"teacher prompt": TEACHER_VERSION}


# -- execution judge -----------------------------------------------------------------------
class Judging:
    """The execution judges (Python, OCaml: by each problem's language) behind the cache, run in
    parallel up to the core count."""

    def __init__(self, cfg: Config):
        from judges.execution import HARNESS_VERSION
        from judges.ocaml import OCAML_HARNESS_VERSION
        self.cfg = cfg
        self.judges = language_judges(cfg)
        self.judge = self.judges["python"]
        self.base_ingredients = {"kind": "execution", "model": "", "base_url": "", "harness": HARNESS_VERSION,
                                 "grading": cfg.judge.execution.model_dump(), "params": {}}
        # OCaml judgements: their own harness version and grading in the key (Python keys are unchanged)
        self.ocaml_ingredients = {**self.base_ingredients, "language": "ocaml", "harness": OCAML_HARNESS_VERSION,
                                  "grading": cfg.judge.ocaml.model_dump()}
        self.cache = JudgeCache(cache_dir(cfg))
        self.calls = self.hits = self.skipped = 0
        self._count = threading.Lock()

    def key(self, problem: Problem, completion: str, truncated: bool) -> str:
        # what runs: the tests, or with none (None or []) the test code (judges/execution.run_tests)
        tests = problem.tests if problem.tests else problem.test_code
        if problem.language == "ocaml":  # the harness is generated from the signature
            return cache_key({**self.ocaml_ingredients, "completion": sha256_text(completion), "truncated": truncated,
                              "problem": sha256_text(repr((problem.entry_point, tests, problem.signature)))})
        # the context runs before the answer (judges/execution.py), so it is part of the problem
        return cache_key({**self.base_ingredients, "problem": sha256_text(repr((problem.entry_point, tests, problem.context))),
                          "completion": sha256_text(completion), "truncated": truncated})

    def score_one(self, problem: Problem, completion: str, truncated: bool = False) -> Score:
        return self.judges[problem.language].score(problem, completion, truncated)

    def score_all(self, items: list[tuple[Problem, str, bool]], desc: str = "judge") -> list[Score]:
        require_compilers(self.cfg, [p for p, *_ in items])
        items = [(p, judged_text(self.cfg, p, c), tr) for p, c, tr in items]
        keys = [self.key(*it) for it in items]
        found = [self.cache.get(k) for k in keys]
        todo = [i for i, v in enumerate(found) if v is None]
        self.hits += len(items) - len(todo)
        if todo and self.cfg.judge.mode == "replay":
            if not self.cfg.judge.skip_missing:
                raise RunError(f"judge.mode=replay: {len(todo)} of {len(items)} judgements are not in the cache "
                               f"{cache_dir(self.cfg)}; judge them live (`rlaif epoch N` in place of `rlaif replay N`: "
                               "judge.mode=live), import a teammate's cache "
                               "(rlaif cache import FILE), or set judge.skip_missing=true to skip and count them")
            self.skipped += len(todo)   # unscored, counted (judge/skipped), as the API judges' misses are
            return [Score.from_json(v) if v is not None else
                    Score(value=None, breakdown={"unanswered": "skipped: not in the cache"}, raw="skipped: not in the cache")
                    for v in found]
        bar = tqdm(total=len(todo), desc=desc, unit="ans", dynamic_ncols=True, disable=not todo)

        def one(i: int) -> None:
            # a judge error (the sandbox could not run it: judges/execution.py) is not kept: the next run retries
            value, hit = self.cache.get_or_compute(keys[i], lambda: self.score_one(*items[i]).to_json(),
                                                   keep=lambda v: v.get("value") is not None)
            found[i] = value
            with self._count:
                self.hits += hit
                self.calls += not hit
            bar.update(1)

        with ThreadPoolExecutor(max_workers=self.cfg.judge.workers or os.cpu_count() or 1) as pool:
            list(pool.map(one, todo))
        bar.close()
        return [Score.from_json(v) for v in found]


def judged_text(cfg: Config, problem: Problem, completion: str) -> str:
    """What the execution and LLM judges score for an answer: under student.prompt_format=raw, a Python
    answer continuing its prompt's own def (a body) as the whole function (judges/pycode.continue_prompt);
    any other answer as it is."""
    if cfg.student.prompt_format != "raw" or problem.language != "python":
        return completion
    from judges.pycode import continue_prompt
    return continue_prompt(problem.prompt, problem.entry_point, completion)


def language_judges(cfg: Config) -> dict:
    """The execution judge of each problem language (python, ocaml), as cfg sets them; no cache."""
    from judges.execution import ExecutionJudge
    from judges.ocaml import OcamlJudge
    return {"python": ExecutionJudge(execution_settings(cfg)), "ocaml": OcamlJudge(ocaml_settings(cfg))}


def execution_settings(cfg: Config):
    from judges.execution import ExecutionSettings
    return ExecutionSettings(**cfg.judge.execution.model_dump(), hide=_hidden(cfg))


def ocaml_settings(cfg: Config):
    from judges.ocaml import OcamlSettings
    oc = cfg.judge.ocaml.model_dump()
    return OcamlSettings(**{**oc, "libraries": tuple(oc["libraries"]), "compile_memory_mb": 2 * oc["memory_mb"]},
                         hide=_hidden(cfg))


def _hidden(cfg: Config) -> tuple[str, ...]:
    return (str(Path(cfg.run.dir).resolve()), str(cache_dir(cfg).resolve()))


def length_score(completion: str) -> Score:
    """The toy reward of configs/length_reward.yaml: 2 - words/16 (shorter is better)."""
    words = len(completion.split())
    return Score(value=2.0 - words / 16, breakdown={"words": words})


# -- judge components ----------------------------------------------------------------------
def components(cfg: Config) -> dict[str, float]:
    """Component judge -> weight."""
    return dict(cfg.judge.mix) if cfg.judge.kind == "mix" else {cfg.judge.kind: 1.0}


def judge_model(cfg: Config, kind: str) -> str:
    """The model of an LLM judge component: judge.models' entry for it, else judge.model."""
    return cfg.judge.models.get(kind) or cfg.judge.model




def check_api(cfg: Config, teacher: bool, judge: bool, missing: list[str] | None = None) -> None:
    """Before any work: each API model the epoch will call has a price (its cost and the budget are
    tracked) and its key in the environment (live mode; replay sends none). RunError says what to set;
    `missing` (a dry run's) collects the keys' messages instead: a cost can be known before a key."""
    import os
    wanted = ([(cfg.teacher.kind, cfg.teacher.model, "teacher")] if teacher else []) + (
        [(kind, judge_model(cfg, kind), "judge") for kind in components(cfg)] if judge else [])
    for kind, model, role in wanted:
        if kind not in ("anthropic", "openai"):
            continue
        try:
            m = make_model(kind, model, cfg, teacher=role == "teacher")
        except ValueError as e:
            raise RunError(f"{role}: {e}") from None
        if cfg.judge.mode == "live" and not os.environ.get(m.key_env):
            who = (f"judge.mix's {kind} component" if role == "judge" and cfg.judge.kind == "mix"
                   else f"{role}.kind={kind}")
            why = (f"{who} calls the API, and {m.key_env} is not set: export {m.key_env}=... "
                   f"(a local server that speaks the protocol takes any value, with {role}.base_url), or "
                   "use only the judge cache with judge.mode=replay")
            if missing is None:
                raise RunError(why)
            missing.append(why)
