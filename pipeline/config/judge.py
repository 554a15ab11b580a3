"""The config's `teacher` and `judge` sections: who answers beside the student, and who scores
(the execution judge's sandbox, OCaml's, the LLM rubric, the batch APIs)."""
from __future__ import annotations

import math
import warnings
from typing import Literal

from pydantic import Field, field_validator, model_validator

from judges.base import check_library_names, check_weights
from judges.prices import PRICE_FIELDS
from pipeline.config.base import RUNTIME, HomePath, Section


class TeacherConfig(Section):
    kind: Literal["reference", "anthropic", "openai", "hf", "none"] = Field("reference", description="Who writes the teacher answer: the dataset reference, a model, or none (for reward.kind=direct).")
    model: str = Field("", description="Teacher model id when kind is a model (e.g. claude-sonnet-4-5, gpt-5-mini, or a local path for hf).")
    base_url: str = Field("", description="API base URL ('' = the SDK's ANTHROPIC_BASE_URL / OPENAI_BASE_URL or its default); the endpoint in use, set here or in that variable, is part of the stage's fingerprint and of every cache key, so another endpoint is asked anew.")
    max_tokens: int = Field(1024, ge=1, description="Length limit of a teacher answer.")
    temperature: float | None = Field(None, ge=0, description="Teacher sampling temperature for teacher.kind=openai (None = the API's default); unset for anthropic (its Messages API takes none) and hf (a local teacher answers greedily).")
    batch: bool = Field(False, description="anthropic/openai teachers: send the missing answers through the provider's batch API (half price, done within 24 h; polling and failures as judge.batch_*). Runtime only: a batch answer and a live one are interchangeable.")


class ExecutionJudgeConfig(Section):
    structure_weight: float = Field(0.05, ge=0, description="Weight: answer is well-formed (closed code block / END marker).")
    static_weight: float = Field(0.20, ge=0, description="Weight: code parses, graduated by static error count.")
    load_weight: float = Field(0.10, ge=0, description="Weight: module loads and defines the entry point.")
    tests_weight: float = Field(0.65, ge=0, description="Weight: fraction of test cases passed (only when it loads).")
    truncation_factor: float = Field(0.3, ge=0, le=1, description="Multiplier for a completion that hit max_new_tokens.")
    min_lines: int = Field(2, ge=0, description="Completions with fewer non-empty code lines score 0.")
    timeout_s: float = Field(10.0, gt=0, description="Wall-clock limit per program (all its tests).")
    memory_mb: int = Field(512, ge=64, description="Address-space limit of the sandboxed program.")

    @model_validator(mode="after")
    def _weights_sum_to_one(self) -> "ExecutionJudgeConfig":
        check_weights("judge.execution", self)
        return self


class OcamlJudgeConfig(Section):
    structure_weight: float = Field(0.05, ge=0, description="OCaml weight: answer is well-formed (closed ```ocaml block / END marker).")
    typecheck_weight: float = Field(0.20, ge=0, description="OCaml weight: `ocamlc -c` accepts the module; else 1 - error_penalty per compiler error (syntax error: 0).")
    compile_weight: float = Field(0.10, ge=0, description="OCaml weight: links with the test harness into an executable (0.5 when only the module compiles).")
    tests_weight: float = Field(0.65, ge=0, description="OCaml weight: fraction of test cases passed (only when it compiles).")
    truncation_factor: float = Field(0.3, ge=0, le=1, description="OCaml: multiplier for a completion that hit max_new_tokens without finishing.")
    min_lines: int = Field(8, ge=0, description="OCaml: completions with fewer non-empty lines of code score 0; comment lines count (docs/guides/ocaml.md).")
    error_penalty: float = Field(0.25, gt=0, le=1, description="OCaml: type-check credit lost per error the compiler reports.")
    compiler: Literal["ocamlc", "ocamlopt"] = Field("ocamlc", description="ocamlc: bytecode (fast to compile); ocamlopt: native code.")
    libraries: list[str] = Field(default_factory=list, description="Compiler libraries linked into the program (e.g. [str, unix]); none by default.")
    compile_timeout_s: float = Field(20.0, gt=0, description="OCaml: wall-clock limit per compiler run.")
    timeout_s: float = Field(10.0, gt=0, description="OCaml: wall-clock limit per program (all its tests).")
    memory_mb: int = Field(512, ge=64, description="OCaml: address-space limit of the program (the compiler gets twice this).")

    @model_validator(mode="after")
    def _weights_and_libraries(self) -> "OcamlJudgeConfig":
        check_weights("judge.ocaml", self)
        check_library_names(self.libraries)
        return self


class PythonRewardConfig(Section):
    function: str | list[str] = Field("", description="judge.kind=python (or a `python` component of judge.mix): your reward function, as path/to/file.py:name (a relative path is read from the working directory) or package.module:name, or a list of them (TRL's reward_funcs: [my_rewards.py:format_reward, my_rewards.py:accuracy_reward]), combined with judge.python.weights. TRL's contract: each is called as fn(prompts=[...], completions=[...], **columns) on a batch of answers, returning one float (or None: cannot score) per answer; the problem's columns (id, entry_point, reference, tests, difficulty, your data's own) and `truncated` come as keyword lists. Each function's scores are cached under its own keys (docs/guides/reward-functions.md).")
    weights: list[float] = Field(default_factory=list, description="TRL's reward_weights: one weight per function of judge.python.function, in its order ([] = 1.0 each). An answer's score is the sum over the functions of weight x value, leaving out a function that returned None (TRL's nansum); None only when every function returned None. The weights are in no cache key: changing them rescores every answer from the cache, calling no function again (the judge stage reruns).")
    version: str = Field("", description="Part of every cached score's key, beside the text of each function's file: change it when the scores change through anything else (an imported module, a data file, a model).")
    format: Literal["standard", "conversational"] = Field("standard", description="standard: prompts and completions are strings; conversational: message lists, prompts [{role: user, content}] (opened by {role: system, content: student.system_prompt} when that is set, the text the student reads; it then enters every cached score's key) and completions [{role: assistant, content}], as TRL passes for a conversational dataset (TRL's own trl.rewards functions read completion[0]['content']).")
    @field_validator("version", mode="before")
    @classmethod
    def _version_text(cls, v):
        return str(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else v

    batch_size: int = Field(64, ge=1, description="Answers per call of the function (each batch's scores are cached as it returns). Runtime only: each answer is scored on its own, so a function must not score an answer against the others of its call (a batch-relative score would change with this size, and the cache would keep whichever came first).", json_schema_extra=RUNTIME)


MIX_COMPONENTS = ("execution", "anthropic", "openai", "hf", "python")
"""The judges judge.mix may combine."""


class JudgeConfig(Section):
    kind: Literal["execution", "anthropic", "openai", "hf", "python", "mix", "length"] = Field("execution", description="Which judge scores student and teacher answers (python: your own reward function, judge.python.function; length: the toy 2 - words/16 score of configs/length_reward.yaml).")
    model: str = Field("", description="Judge model id for LLM judges (e.g. claude-haiku-4-5, gpt-5-mini, or a local path for hf).")
    models: dict[str, str] = Field(default_factory=dict, description="A panel of LLM judges: judge.mix with several LLM components (e.g. {execution: 0.5, anthropic: 0.25, openai: 0.25}) names each one's model here, e.g. {anthropic: claude-haiku-4-5, openai: gpt-5-mini}; a component it does not name takes judge.model. Each component is priced, budgeted (judge.budget_usd counts them all), cached and batched on its own; judge/<component>_mean is each one's mean score. With judge.base_url unset, each SDK reads its own ANTHROPIC_BASE_URL / OPENAI_BASE_URL.")
    base_url: str = Field("", description="API base URL ('' = the SDK's ANTHROPIC_BASE_URL / OPENAI_BASE_URL or its default); the endpoint in use, set here or in that variable, is part of the stage's fingerprint and of every cache key, so another endpoint is asked anew.")
    max_tokens: int = Field(512, ge=1, description="Length limit of an LLM judge's answer.")
    temperature: float | None = Field(None, ge=0, description="LLM judge temperature for an openai judge (None = the API's default); unset for anthropic (its Messages API takes none) and hf (a local judge answers greedily).")
    show_teacher: bool = Field(True, description="Show the LLM judge the teacher's answer as a reference when it grades the student's answers. The teacher's own answer is graded without one; false grades both alike, without it.")
    mix: dict[str, float] = Field(default_factory=lambda: {"execution": 0.65, "anthropic": 0.35}, description="judge.kind=mix: component judge -> weight (execution, anthropic, openai, hf, python).")
    prices: dict[str, dict[str, float]] = Field(default_factory=dict, description="Extra/overriding prices, model -> {input: $/Mtok, output: $/Mtok} (optional: batch_input, batch_output, cached_input, batch_cached_input); merged over the built-in table, an entry replacing its model's whole entry.")
    skip_missing: bool = Field(False, description="replay: skip (and count) items missing from the cache instead of failing.")
    max_in_flight: int = Field(16, ge=1, description="API requests in flight at once. Runtime only.")
    rpm: float = Field(0.0, ge=0, description="Requests-per-minute limit (0 = none). Runtime only.")
    tpm: float = Field(0.0, ge=0, description="Tokens-per-minute limit (0 = none). Runtime only.")
    attempts: int = Field(6, ge=1, description="Tries per API request (429/5xx/connection errors retried with jittered backoff honouring retry-after up to 600 s; a longer retry-after, a quota's, fails the request at once). Runtime only.")
    timeout_s: float = Field(120.0, gt=0, description="Per-request API timeout. Runtime only.")
    mode: Literal["live", "replay"] = Field("live", description="live: call judges on cache misses; replay: answer from the cache only (a miss is an error).")
    budget_usd: float = Field(0.0, ge=0, description="Stop the teacher and judge stages before the run (its API teacher and judges together) spends more than this (0 = no limit).")
    cache_dir: HomePath = Field("", description="Judge cache directory ('' = <run.dir>/.judge-cache, shared by runs; a leading ~ is your home).")
    workers: int = Field(0, ge=0, description="Parallel sandboxed programs (0 = number of cores). Runtime only.")
    batch: bool = Field(False, description="anthropic/openai judges: send the stage's cache misses through the provider's batch API (half price, done within 24 h; a killed run resumes polling). Runtime only: a batch answer and a live one are interchangeable.")
    batch_poll_s: float = Field(30.0, gt=0, description="First wait between batch status checks; it grows 1.5x per check up to batch_max_poll_s. Runtime only.")
    batch_max_poll_s: float = Field(300.0, gt=0, description="Longest wait between batch status checks. Runtime only.")
    batch_timeout: float = Field(0.0, ge=0, description="Stop waiting for batches after this many seconds (0 = until they end; the providers end them within 24 h). Answers that arrived are kept; the batches keep running, and a rerun resumes polling them. Runtime only.")
    batch_failed: Literal["live", "batch", "missing"] = Field("live", description="Batch items that come back expired, canceled or with a retryable error: ask them live (live price), in one more batch, or leave them missing and counted. Runtime only.")
    execution: ExecutionJudgeConfig = Field(default_factory=ExecutionJudgeConfig, description="Execution judge grading.")
    ocaml: OcamlJudgeConfig = Field(default_factory=OcamlJudgeConfig, description="Execution judge grading of OCaml problems.")
    python: PythonRewardConfig = Field(default_factory=PythonRewardConfig, description="Your own reward function (judge.kind=python).")

    @field_validator("models")
    @classmethod
    def _model_kinds(cls, v: dict[str, str]) -> dict[str, str]:
        bad = set(v) - {"anthropic", "openai", "hf"}
        if bad:
            raise ValueError(f"names {sorted(bad)}: judge.models maps LLM components (anthropic, openai, hf) to their "
                             "models, e.g. {anthropic: claude-haiku-4-5, openai: gpt-5-mini}")
        return v

    @field_validator("mix")
    @classmethod
    def _mix_components(cls, v: dict[str, float]) -> dict[str, float]:
        """A component judge.mix names must be one there is, whatever judge.kind: a typo (pyton) would
        otherwise wait unseen until judge.kind=mix, and then score without it."""
        import difflib
        bad = sorted(set(v) - set(MIX_COMPONENTS))
        if bad:
            close = difflib.get_close_matches(bad[0], MIX_COMPONENTS, n=1)
            raise ValueError(f"names {', '.join(bad)}: judge.mix's components are {', '.join(MIX_COMPONENTS)}"
                             + (f" (did you mean {close[0]}?)" if close else "")
                             + ", each with its weight, e.g. {execution: 0.65, anthropic: 0.35}")
        return v

    @field_validator("mix")
    @classmethod
    def _mix_weights(cls, v: dict[str, float]) -> dict[str, float]:
        """judge.mix's weights are shares of a score in [0, 1]: none negative nor infinite."""
        bad = {k: w for k, w in v.items() if not (math.isfinite(w) and w >= 0)}
        if bad:
            raise ValueError(f"weights {', '.join(f'{k}: {w:g}' for k, w in bad.items())} are not shares: each "
                             "component's weight is >= 0 (0 leaves it out), e.g. {execution: 0.65, anthropic: 0.35}")
        return v

    @model_validator(mode="after")
    def _python_in_use(self) -> "JudgeConfig":
        """judge.python.function set while no judge in use calls it: warned, since the run would score without it."""
        used = set(self.mix) if self.kind == "mix" else {self.kind}
        fn = self.python.function
        if fn and "python" not in used:
            warnings.warn(f"judge.python.function={fn if isinstance(fn, str) else '[' + ', '.join(fn) + ']'} is not "
                          f"called: judge.kind={self.kind}"
                          + (f" (judge.mix={{{', '.join(f'{k}: {w:g}' for k, w in self.mix.items())}}}, no python component)" if self.kind == "mix" else "")
                          + " scores without it. Set judge.kind=python to score with it alone, or judge.kind=mix with "
                          "a python component (judge.mix={execution: 0.5, python: 0.5}); or leave "
                          "judge.python.function unset", UserWarning)
        return self

    @model_validator(mode="after")
    def _one_url_one_provider(self) -> "JudgeConfig":
        """judge.base_url is every LLM component's: a panel of Anthropic and OpenAI components would send
        both to it, and one speaks the other's protocol at best (a 404 halfway through the judge stage)."""
        panel = [k for k in ("anthropic", "openai") if self.kind == "mix" and self.mix.get(k)]
        if self.base_url and len(panel) == 2:
            raise ValueError(f"judge.base_url={self.base_url} would send both the anthropic and the openai component of "
                             "judge.mix to one endpoint; leave judge.base_url unset and give each SDK its own: "
                             "ANTHROPIC_BASE_URL=... OPENAI_BASE_URL=... (each is part of its component's cache keys)")
        return self

    @field_validator("prices")
    @classmethod
    def _price_fields(cls, v: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
        for model, p in v.items():
            bad = set(p) - set(PRICE_FIELDS)
            if bad or not {"input", "output"} <= set(p):
                raise ValueError(f"judge.prices.{model}: give input and output (and for batches batch_input and "
                                 f"batch_output; optional cached_input and batch_cached_input, the price of input "
                                 f"tokens served by OpenAI's prompt caching), $ per million tokens; got {sorted(p)}")
        return v
