"""One typed config for the whole pipeline.

Loaded from `config.yaml` (or `--config FILE`) by `load_config` (pipeline/config/file.py),
overridden from the command line with `key.sub=value`. Unknown keys and invalid values fail
before any work, naming the key path.
Every field has a type, a default and a one-line doc (`rlaif config show --doc` prints them).
"""
from __future__ import annotations

import functools
import json
import os
import warnings
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, model_validator

from curriculum.config import CurriculumConfig
from pipeline.config.base import Section
from pipeline.config.epoch import DataConfig, EvalConfig, ReportConfig, RewardConfig, SampleConfig, SelectConfig
from pipeline.config.judge import JudgeConfig, TeacherConfig
from pipeline.config.student import RunConfig, StudentConfig
from pipeline.config.update import SEQUENCE_CLIP_WARN, UpdateConfig


NEUTRAL: dict[str, Any] = {"student.prompt_format": "chat", "data.validation_size": 0, "data.validation": None, "sample.stop_after_code": False,
                           "select.scale_rewards": "group", "select.std": "population", "data.warm_start_sources": [],
                           "data.rl_sources": [], "update.weight_decay": 0.0, "eval_reading": None,
                           "student.chat_template_kwargs": {}, "judge_panel": None,
                           "teacher_endpoint": None, "judge_endpoints": None,
                           "judge.python": {"function": "", "version": "", "format": "standard"}, "eval_judge": None}
"""Stage fields added after runs existed, with the value every earlier run had: a fingerprint leaves
such a field out while it holds that value (`Config.stage_config`), so adding it recomputes nothing."""

NEUTRAL_IN_SECTION: dict[str, Any] = {"update.delta": None, "update.sapo_temperature_pos": 1.0,
                                      "update.sapo_temperature_neg": 1.05, "update.top_entropy_quantile": 1.0,
                                      "judge.python.weights": []}
"""The same for fields added to a section that a stage reads whole (the update reads `update`): left
out of the section's dict while at these values (`Config.fingerprinted`). Fields added before this
existed stay in (moving them out would move those fingerprints)."""


JUDGE_FIELDS = ("judge.kind", "judge.model", "judge_panel", "judge.base_url", "judge_endpoints", "judge.max_tokens",
                "judge.temperature", "judge.show_teacher", "judge.mix", "judge.execution", "judge.ocaml", "judge.python")
"""What changes a judgement (runtime knobs such as judge.max_in_flight are left out): the judge stage's fingerprint."""


SDK_ENDPOINTS = {"anthropic": ("ANTHROPIC_BASE_URL", "https://api.anthropic.com"),
                 "openai": ("OPENAI_BASE_URL", "https://api.openai.com/v1")}


def env_endpoints(kinds: set[str]) -> dict | None:
    """{provider: the base URL its SDK takes from the environment} for the API providers among `kinds` whose
    variable is set to another endpoint than the SDK's default; None for none."""
    own = {k: url for k in sorted(kinds & SDK_ENDPOINTS.keys())
           if (url := os.environ.get(SDK_ENDPOINTS[k][0], "").rstrip("/")) and url != SDK_ENDPOINTS[k][1]}
    return own or None


class Config(Section):
    run: RunConfig = Field(default_factory=RunConfig)
    student: StudentConfig = Field(default_factory=StudentConfig)
    teacher: TeacherConfig = Field(default_factory=TeacherConfig)
    judge: JudgeConfig = Field(default_factory=JudgeConfig)
    data: DataConfig = Field(default_factory=DataConfig)
    sample: SampleConfig = Field(default_factory=SampleConfig)
    reward: RewardConfig = Field(default_factory=RewardConfig)
    select: SelectConfig = Field(default_factory=SelectConfig)
    curriculum: CurriculumConfig = Field(default_factory=CurriculumConfig)
    update: UpdateConfig = Field(default_factory=UpdateConfig)
    eval: EvalConfig = Field(default_factory=EvalConfig)
    report: ReportConfig = Field(default_factory=ReportConfig)

    @property
    def judge_panel(self) -> dict | None:
        """judge.models as the judge's fingerprint sees it: the models of the LLM components in use that
        differ from judge.model (what the judges are), None when there are none (every run before it)."""
        used = set(self.judge.mix) if self.judge.kind == "mix" else {self.judge.kind}
        own = {k: v for k, v in sorted(self.judge.models.items()) if k in used and v and v != self.judge.model}
        return own or None

    @property
    def teacher_endpoint(self) -> dict | None:
        """The API endpoint the teacher's SDK reads from its environment (ANTHROPIC_BASE_URL, OPENAI_BASE_URL)
        where teacher.base_url is unset, for its fingerprint: another endpoint writes other answers. None for
        the SDK's own default (every run before it)."""
        return env_endpoints({self.teacher.kind} if not self.teacher.base_url else set())

    @property
    def judge_endpoints(self) -> dict | None:
        """The same for the judge's API components, where judge.base_url is unset."""
        used = set(self.judge.mix) if self.judge.kind == "mix" else {self.judge.kind}
        return env_endpoints(used if not self.judge.base_url else set())

    @property
    def eval_reading(self) -> dict | None:
        """How the eval reads the user's own eval sources (data.mapping, data.language), for its
        fingerprint: None for shipped sets and `validation` (data.validation holds it), and at what every
        earlier version read them with (no mapping, Python), so those fingerprints stay."""
        from data.loaders import FIXED
        own = [s for s in self.eval.sources or [] if s not in FIXED and s != "validation"]
        if not own or (not self.data.mapping and self.data.language == "python"):
            return None
        return {"mapping": self.data.mapping, "language": self.data.language}

    @property
    def eval_judge(self) -> dict | None:
        """The run's judge as the eval's fingerprint sees it where the eval scores with it: an eval source with
        problems without tests (validation: data.source's; the shipped sets all have tests) under a judge that
        needs none (no execution component). None where the eval scores with the execution judge alone (as
        every eval before it did, so their fingerprints stay)."""
        from data.loaders import FIXED
        specs = [self.data.source if s == "validation" else s for s in self.eval.sources or []]
        if self.uses_execution or not any(s not in FIXED and lacks_tests(s, self.data.mapping, self.data.language)
                                          for s in specs):
            return None
        return {f: v for f in JUDGE_FIELDS if f not in ("judge.execution", "judge.ocaml")
                and (v := self.fingerprinted(f)) != NEUTRAL.get(f, ...)}

    @property
    def uses_execution(self) -> bool:
        """Whether the execution judge is the judge (judge.kind) or a component of judge.mix."""
        return "execution" in (self.judge.mix if self.judge.kind == "mix" else {self.judge.kind})

    @model_validator(mode="after")
    def _consistent(self) -> "Config":
        example = {"anthropic": ("claude-sonnet-4-5", "claude-haiku-4-5"), "openai": ("gpt-5-mini", "gpt-5-mini"),
                   "hf": ("Qwen/Qwen2.5-Coder-7B-Instruct", "Qwen/Qwen2.5-Coder-7B-Instruct")}   # (teacher, judge)
        if self.teacher.kind not in ("reference", "none") and not self.teacher.model:
            raise ValueError(f"teacher.kind={self.teacher.kind} needs teacher.model "
                             f"(e.g. teacher.model={example[self.teacher.kind][0]})")
        llm = {"anthropic", "openai", "hf"}
        if self.judge.kind in llm and not (self.judge.models.get(self.judge.kind) or self.judge.model):
            raise ValueError(f"judge.kind={self.judge.kind} needs judge.model "
                             f"(e.g. judge.model={example[self.judge.kind][1]})")
        if self.judge.kind == "mix":
            bad = set(self.judge.mix) - {"execution", "python"} - llm
            if bad or not self.judge.mix or sum(self.judge.mix.values()) <= 0:
                raise ValueError(f"judge.mix={self.judge.mix}: components must be among execution, anthropic, "
                                 "openai, hf, python with positive total weight, e.g. {execution: 0.65, anthropic: 0.35}")
            panel = sorted(set(self.judge.mix) & llm)
            unnamed = [k for k in panel if not self.judge.models.get(k)]
            if len(panel) > 1 and len(unnamed) > 1:
                raise ValueError(f"judge.mix has several LLM components ({', '.join(panel)}): name each one's model in "
                                 "judge.models, e.g. judge.models={" + ", ".join(f"{k}: {example[k][1]}" for k in panel)
                                 + "}")
            if unnamed and not self.judge.model:
                raise ValueError(f"judge.mix has an LLM component ({unnamed[0]}), so judge.model (or judge.models."
                                 f"{unnamed[0]}) must name its model")
        if "python" in ({self.judge.kind} | set(self.judge.mix if self.judge.kind == "mix" else ())) \
                and not self.judge.python.function:
            raise ValueError("judge.kind=python (or a python component of judge.mix) needs judge.python.function, "
                             "e.g. judge.python.function=my_rewards.py:reward")
        _check_reward_functions(self.judge.python.function, self.judge.python.weights)
        api = {"anthropic", "openai"}
        if self.judge.batch and not ({self.judge.kind} | set(self.judge.mix if self.judge.kind == "mix" else ())) & api:
            raise ValueError(f"judge.batch=true needs an anthropic or openai judge (judge.kind={self.judge.kind}); "
                             "set judge.kind (or a judge.mix component) to one, or judge.batch=false")
        if self.teacher.batch and self.teacher.kind not in api:
            raise ValueError(f"teacher.batch=true needs teacher.kind anthropic or openai (got {self.teacher.kind}); "
                             "or set teacher.batch=false")
        in_use = {self.judge.kind} | set(self.judge.mix if self.judge.kind == "mix" else ())
        if "anthropic" in in_use and self.judge.temperature is not None:
            raise ValueError(f"judge.temperature={self.judge.temperature:g} with an anthropic judge (judge.kind="
                             f"{self.judge.kind}): the Messages API takes no temperature; unset judge.temperature")
        if "hf" in in_use and not in_use & api and self.judge.temperature is not None:
            raise ValueError(f"judge.temperature={self.judge.temperature:g} with an hf judge: a local model judges "
                             "greedily (its verdicts are cached as such), so the key would change nothing; unset it")
        if self.teacher.kind == "hf" and self.teacher.temperature is not None:
            raise ValueError(f"teacher.temperature={self.teacher.temperature:g} with teacher.kind=hf: a local teacher "
                             "writes its answer greedily, so the key would change nothing; unset it")
        if self.teacher.kind == "anthropic" and self.teacher.temperature is not None:
            raise ValueError(f"teacher.temperature={self.teacher.temperature:g} with teacher.kind=anthropic: the "
                             "Messages API takes no temperature; unset teacher.temperature")
        if self.select.top_k == 1 and (self.select.advantage != "raw" or self.select.drop_zero_std):
            raise ValueError("select.top_k=1 leaves one completion per prompt, so group advantages are 0 and "
                             "select.drop_zero_std drops every group (one reward has no spread); use select.top_k>=2, "
                             "or select.advantage=raw with select.drop_zero_std=false")
        if self.eval.num_samples > 1 and self.eval.temperature == 0:
            raise ValueError(f"eval.num_samples={self.eval.num_samples} with eval.temperature=0 gives the same greedy "
                             "answer n times; set eval.temperature (e.g. 0.6) or eval.num_samples=1")
        if self.data.pool_size and self.data.pool_size < self.data.prompts_per_epoch:
            raise ValueError(f"data.pool_size={self.data.pool_size} is smaller than data.prompts_per_epoch="
                             f"{self.data.prompts_per_epoch}: every epoch would draw its prompts from "
                             f"{self.data.pool_size} problems; set data.pool_size=0 (walk the whole data.source) or "
                             f"at least {self.data.prompts_per_epoch}")
        builtin = self.data.source.split(":")[0] in ("builtin", "ocaml", "humaneval")
        if self.data.validation_size == "auto" and builtin:
            self.data.validation_size = 0  # the built-in sets have held-out problems of their own
        if self.eval.sources is None:
            own = {"ocaml": ["ocaml:heldout"]}.get(self.data.source.split(":")[0], ["builtin:heldout"])
            self.eval.sources = own if builtin else (["validation"] if self.data.validation_size else [])
        if "validation" in self.eval.sources and not self.data.validation_size:
            raise ValueError("eval.sources names validation but data.validation_size is 0: set data.validation_size "
                             "(e.g. 20) to carve that many problems out of data.source, or drop validation")
        u = self.update
        if u.clip_eps_high is not None and u.clip_eps_high < u.clip_eps:
            raise ValueError(f"update.clip_eps_high={u.clip_eps_high} is below update.clip_eps={u.clip_eps}: the ratio's "
                             "ceiling 1 + clip_eps_high would sit nearer 1 than its floor, the opposite of DAPO's "
                             f"clip-higher; set update.clip_eps_high to at least {u.clip_eps} (DAPO: 0.28 with clip_eps "
                             "0.2), or leave it unset (= clip_eps)")
        if self.update.importance_sampling_level == "sequence" and self.update.algorithm != "grpo":
            raise ValueError("update.importance_sampling_level=sequence clips a per-sequence ratio, which "
                             f"update.algorithm={self.update.algorithm} has none of; set update.algorithm=grpo "
                             "or update.importance_sampling_level=token")
        if u.importance_sampling_level == "sequence" and max(u.clip_eps, u.clip_eps_high or 0.0) > SEQUENCE_CLIP_WARN:
            # a warning, not an error: a wide sequence-level range is a legitimate experiment, only an unlikely one
            warnings.warn(f"update.importance_sampling_level=sequence with update.clip_eps={u.clip_eps}"
                          + (f", update.clip_eps_high={u.clip_eps_high}" if u.clip_eps_high is not None else "")
                          + ": a token-level range. A sequence's ratio is the geometric mean of its tokens' ratios and "
                          "moves far less than one token's, so this clip hardly ever binds and the update runs nearly "
                          "unclipped. GSPO (Zheng et al. 2025) uses update.clip_eps=3e-4 update.clip_eps_high=4e-4; "
                          "set those, or keep this range if you mean it (a warning, not an error, for that reason)",
                          UserWarning)
        rw, floor = self.reward, self.select.min_reward
        lowest = -(rw.length_penalty + (rw.overlong_penalty if rw.overlong_buffer else 0.0))   # a shaped 0 score
        shaped = lowest < 0 and lowest < floor   # (no shaping: a positive min_reward is a plain threshold)
        if shaped or (rw.none_as is not None and rw.none_as < floor):
            # a warning: filtering penalised answers out is a choice, only rarely the one meant
            warnings.warn(f"select.min_reward={floor} drops every completion whose reward is below it before the "
                          "advantages are taken: "
                          + (f"the shaping (reward.length_penalty, reward.overlong_penalty) takes rewards down to "
                             f"{lowest:g}, so the answers it penalises most are removed, not penalised"
                             if shaped else
                             f"reward.none_as={rw.none_as} puts every unscored answer below it, so none is kept")
                          + f"; set select.min_reward={min(lowest, rw.none_as if rw.none_as is not None else 0.0) - 1:g} "
                          "(or lower) to keep them, as TRL does", UserWarning)
        lang = "ocaml" if self.data.source.split(":")[0] == "ocaml" else self.data.language
        other = {"python": "ocaml", "ocaml": "python"}[lang]
        if f"```{other}" in self.student.system_prompt:
            # a warning: rows may name their own language; the usual cause is a prompt kept from another config
            warnings.warn(f"student.system_prompt asks for a ```{other} block, but the problems are {lang} "
                          f"(data.source={self.data.source}, data.language={self.data.language}): the {lang} judge "
                          f"skips a ```{other} block, so an answer that does as asked scores 0; set student.system_prompt "
                          + ("(configs/ocaml.yaml has an OCaml one)" if lang == "ocaml" else
                             "to ask for ```python, or data.language=ocaml if the rows are OCaml"),
                          UserWarning)
        if u.sampler_correction != "none":
            if u.sampler_correction_min is None and u.sampler_correction_max is None:
                raise ValueError(f"update.sampler_correction={u.sampler_correction} needs a bound: set "
                                 "update.sampler_correction_max (e.g. 3.0) and/or update.sampler_correction_min")
            if (u.sampler_correction_min is not None and u.sampler_correction_max is not None
                    and u.sampler_correction_min >= u.sampler_correction_max):
                raise ValueError(f"update.sampler_correction_min={u.sampler_correction_min} must be below "
                                 f"update.sampler_correction_max={u.sampler_correction_max}")
        if self.select.scale_rewards == "batch" and self.select.advantage != "grpo":
            raise ValueError(f"select.scale_rewards=batch divides the advantages by the batch's reward std, which "
                             f"select.advantage={self.select.advantage} does not do; set select.advantage=grpo "
                             "(select.advantage=mean is TRL's scale_rewards=none)")
        if self.reward.kind == "ratio" and self.teacher.kind == "none":
            raise ValueError("reward.kind=ratio needs a teacher; set teacher.kind=reference (or a model), "
                             "or reward.kind=direct")
        return self

    def get(self, path: str) -> Any:
        obj: Any = self
        for part in path.split("."):
            obj = getattr(obj, part)
        return obj.model_dump() if isinstance(obj, BaseModel) else obj

    def stage_config(self, fields) -> dict[str, Any]:
        """The config a stage's fingerprint hashes: each field as `fingerprinted` sees it, less those at NEUTRAL."""
        return {f: v for f in fields if (v := self.fingerprinted(f)) != NEUTRAL.get(f, ...)}

    def fingerprinted(self, path: str) -> Any:
        """`get(path)` as a fingerprint sees it: a section without its runtime-only fields (RUNTIME)."""
        obj: Any = self
        for part in path.split("."):
            obj = getattr(obj, part)
        return _without_runtime(obj, path) if isinstance(obj, BaseModel) else obj


def lacks_tests(spec: str, mapping: dict | None, language: str) -> bool:
    """Whether some problem of data source `spec` has neither tests nor test_code (read once per state of its
    file); False where it cannot be read (the run says why, before any work)."""
    from data.loaders import file_split
    try:
        path = Path(file_split(spec)[0]).expanduser()
        stamp = (path.stat().st_mtime_ns, path.stat().st_size) if path.is_file() else None
        return _lacks_tests(spec, json.dumps(mapping or {}, sort_keys=True), language, stamp)
    except Exception:   # noqa: BLE001  (a fingerprint must not fail on what the data checks say)
        return False


@functools.lru_cache(maxsize=32)
def _lacks_tests(spec: str, mapping: str, language: str, stamp) -> bool:
    from data.loaders import load_source
    return any(not p.tests and not p.test_code for p in load_source(spec, json.loads(mapping) or None, language))


def _check_reward_functions(function: str | list[str], weights: list[float]) -> None:
    """judge.python.function's list holds no empty name, and judge.python.weights one finite weight per function."""
    refs = [function] if isinstance(function, str) else function
    for i, ref in enumerate(refs if isinstance(function, list) else ()):
        if not ref.strip():
            raise ValueError(f"judge.python.function[{i}] is empty: name each function as path/to/file.py:name or "
                             "package.module:name, e.g. judge.python.function=[my_rewards.py:format_reward, "
                             "my_rewards.py:accuracy_reward]")
    count = len([r for r in refs if r])
    if weights and len(weights) != count:
        raise ValueError(f"judge.python.weights has {len(weights)} weights for {count} function"
                         f"{'' if count == 1 else 's'} in judge.python.function: give one weight per function, in its "
                         "order (TRL's reward_weights), or none (each 1.0)")


def _without_runtime(section: BaseModel, path: str = "") -> dict:
    """A section as a fingerprint sees it: no runtime-only field, none at its NEUTRAL_IN_SECTION value."""
    out = {}
    for name, f in type(section).model_fields.items():
        if (f.json_schema_extra or {}).get("runtime"):
            continue
        v = getattr(section, name)
        key = f"{path}.{name}" if path else name
        if key in NEUTRAL_IN_SECTION and v == NEUTRAL_IN_SECTION[key]:
            continue
        out[name] = (_without_runtime(v, key) if isinstance(v, BaseModel)
                     else (v.model_dump() if hasattr(v, "model_dump") else v))
    return out
