"""The config's sections of the epoch's data: `data` (the problems), `sample`, `reward`, `select`,
`eval`, and `report` (the health checks' thresholds)."""
from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, field_validator, model_validator

from pipeline.config.base import RUNTIME, Section, not_empty


class DataConfig(Section):
    source: str = Field("builtin:train", description="Training problems: builtin[:train|heldout] (147 problems), bank[:train|heldout|tune] (the larger problem bank, data/problems/bank.jsonl; tune: its problems to tune a recipe on, which bank:train does not hold), ocaml[:train|heldout], humaneval, a .jsonl, .jsonl.gz, .json or .parquet path (path:train, path:heldout or path:tune: its rows whose split field says so; a bare path reads every row), a folder written by datasets' save_to_disk (folder:split names a DatasetDict's split), or hf:<name>[:split].")
    mapping: dict[str, str] = Field(default_factory=dict, description="Field mapping for foreign data: our field -> source column (e.g. {prompt: question}; OCaml Hub sets: {prompt: problem, test_code: tests, reference: solution}).")
    language: Literal["python", "ocaml"] = Field("python", description="Language of problems whose rows do not name one (a row's own `language` field wins); picks the execution judge.")
    prompts_per_epoch: int = Field(8, ge=1, description="Prompts drawn for each epoch.")
    pool_size: int = Field(0, ge=0, description="Train on a fixed subset of this many problems (chosen by run.seed; 0 = all). Each epoch draws its prompts from the pool, so with pool_size = prompts_per_epoch every epoch revisits the same prompts and reward/mean compares like with like from epoch to epoch. The warm-start (`rlaif epoch 0`) still learns every teacher answer.")
    difficulties: list[Literal["easy", "medium", "hard"]] = Field(
        default_factory=lambda: ["easy", "medium", "hard"], description="Difficulty tiers to draw from.")
    validation_size: Annotated[int, Field(ge=0)] | Literal["auto"] = Field("auto", description="Carve this many problems out of data.source to tune on and evaluate (0 = none). auto: none for the built-in sets (builtin, ocaml, humaneval: they ship their own held-out problems), else 10% of your data.source (at least min(10, a fifth), at most 200), which the eval then scores by default (eval.sources). Training (the pool, every epoch's prompts, the warm-start) never sees them, and the eval source `validation` evaluates them (eval.sources=[validation], or `make bench-learning ARGS=\"--sets validation data.validation_size=20\"`). Stratified by difficulty and chosen by a fixed seed, not run.seed, so every seed and variant of a study holds out the same problems. Tune on it, never on the held-out set or HumanEval that a bench reports.")
    max_prompt_tokens: int = Field(512, ge=16, description="Prompts longer than this (after the chat template) are rejected.")
    warm_start_sources: list[str] = Field(default_factory=list, description="More problem sets whose teacher answers the supervised warm-start (epoch 0, update.warm_start) also learns, beside data.source's training problems: builtin:train, bank:train, ocaml:train, a path or hf:<name>[:split] (data.mapping and data.language apply to them too), of data.difficulties. RL never draws its prompts from them and no validation is carved from them. A problem that is also an eval source's (the held-out sets, validation) is refused before any work: the warm-start must not see what the eval scores. With an API teacher each of their problems costs one teacher answer.")
    rl_sources: list[str] = Field(default_factory=list, description="More problem sets RL draws its prompts from, beside data.source's training problems: builtin:train, bank:train, ocaml:train, a path or hf:<name>[:split] (data.mapping and data.language apply to them too), of data.difficulties; data.pool_size and the curriculum choose among them all. The warm-start never learns them (data.warm_start_sources does that) and no validation is carved from them, so RL can reach problems written like yours while the warm-start stays as it was. A problem that is also an eval source's (the held-out sets, validation) is refused before any work. With an API teacher each problem an epoch draws costs one teacher answer, as data.source's do.")

    @field_validator("source")
    @classmethod
    def _named(cls, v: str) -> str:
        return not_empty(v, "name the training problems (builtin:train, bank:train, my_problems.jsonl, hf:<name>)")

    @property
    def validation(self) -> dict | None:
        """What the eval source `validation` is carved from (None without one): its fingerprint."""
        if not self.validation_size:
            return None
        return {"source": self.source, "mapping": self.mapping, "language": self.language,
                "size": self.validation_size}


class SampleConfig(Section):
    num_samples: int = Field(8, ge=1, description="K completions per prompt (the GRPO group size; TRL's num_generations, default 8 there too).")
    temperature: float = Field(0.7, gt=0, description="Sampling temperature; the update recomputes logprobs under the same one. 0.7: the embedded student's answers at 1.0 are mostly noise; raise it for a stronger student whose groups come out identical (reward/frac_zero_std).")
    top_p: float = Field(1.0, gt=0, le=1, description="Nucleus sampling. <1 makes sampling and update distributions differ (docs/reading-the-report.md, KL).")
    top_k: int = Field(0, ge=0, description="Top-k sampling (0 = off).")
    max_new_tokens: int = Field(160, ge=1, description="Generation limit; hitting it marks the completion truncated.")
    stop: list[str] = Field(default_factory=list, description="Stop strings, looked for in the completion alone (finish_reason 'stop'). The stop string \"\\n```\\n\" also ends an answer at a bare opening fence that follows text (one that opens the answer has no newline before it in the completion); sample.stop_after_code never does.")
    stop_after_code: bool = Field(False, description="End an answer when its first fenced code block closes (the first ``` line opens it, the next bare ``` line closes it; finish_reason 'stop'): the answer holds no prose after the code, and earns no truncation penalty for prose cut off. Unlike the stop string \"\\n```\\n\" it never ends an answer at a bare opening fence. With sample.engine=vllm the answer is cut after generation (the same rows, no time saved).")
    seed_per_epoch: bool = Field(True, description="true: epoch N samples with a seed of its own (run.seed x 1000 + N). false: every epoch draws the same random numbers (common random numbers): a policy that did not change gives the same completions back (and their cached judgements), so the change of reward/mean from one epoch to the next measures the policy, not the luck of the draw. Each epoch's samples are still draws from its policy.")
    batch_size: Annotated[int, Field(ge=1)] | Literal["auto"] = Field("auto", description="Completions in flight together. engine=hf: the decode loop's slots (a completion that ends frees its slot for the next one at once); auto: 128 on the CPU, on CUDA as many as the free GPU memory holds the KV cache of (prompt + max_new_tokens). engine=generate: sequences per generate call (whole prompt groups; auto: 32 on the CPU). Runtime only.", json_schema_extra=RUNTIME)
    dtype: Literal["auto", "float32", "bfloat16", "float16"] = Field("auto", description="The weights' dtype while sampling (sample and eval stages, engine hf or generate). auto: bfloat16 for a float32 student on a CPU with avx512_bf16 or AMX (about 3x the float32 matmul rate there), else the student's own dtype (student.dtype). A dtype other than the student's samples from a copy of the policy's merged weights in that dtype: a slightly different policy than the one the logprobs stage and the update compute in student.dtype, measured on every sampled token by logprobs/sampler_gap (0.01-0.02 nats per token in bf16 on the embedded student; report.max_sampler_gap flags it). float32 samples the trained policy itself, and its completions stay the same whatever the slot or process count (up to float ties); in bf16, on a CPU whose matmul kernels change with the row count (AMX), some completions part with the slot count through rounding (bench/RESULTS.md). Runtime only.", json_schema_extra=RUNTIME)
    share_prompt: bool = Field(True, description="engine=generate: run each prompt through the model once and copy its keys/values to its num_samples completions, instead of prefilling num_samples copies of it (the hf engine always prefills a prompt once).")
    static_cache: bool = Field(False, description="engine=generate: generate with a static KV cache (transformers' cache_implementation='static'); on CUDA transformers then compiles the decode step. Measured on an H100 at 1.5B before this option existed: 15.6k tokens/s once compiled against 9.2k, but the first call compiled for 42 s, so it pays only where an epoch samples for minutes. Off until bench/gpu.py measures it inside our epoch (`python bench/gpu.py sample.static_cache=true`). Runtime only.", json_schema_extra=RUNTIME)
    merge_lora: bool = Field(True, description="Generate on the LoRA merged into the weights (always so when sample.dtype differs from the student's: the copy in that dtype holds the merged weights) (one matmul per projection instead of three; the exact base weights are put back afterwards). Same tokens as unmerged generation within float tolerance. Runtime only.", json_schema_extra=RUNTIME)
    engine: Literal["hf", "generate", "vllm"] = Field("hf", description="What generates the samples. hf: our continuous-batching decode loop over the run's student (one copy of the weights per process; pipeline/engines/decode.py; for Llama-family students, Llama, Qwen2, Mistral, its one-token step and its prefill are written out over the model's weights with q/k/v and gate/up as one matmul each, pipeline/engines/decode_step.py, on CUDA the step replayed from CUDA graphs (sample.decode_step), else transformers' forward runs): a completion that ends frees its slot for the next at once, the KV cache preallocated, each prompt prefilled once and alone (the chat template's opening, its system turn, once per stage), so a prompt's keys and values do not depend on what else the stage holds. generate: transformers' generate over static batches of whole prompt groups, the same per-completion random streams (the reference the loop is tested against). Neither applies the model's generation_config processors (repetition_penalty, ...): the tokens are drawn from the policy the update trains. vllm: vLLM with the base model loaded once per stage and the epoch's adapter served from disk as a LoRARequest, its memory given back when the stage ends (needs `pip install -e .[vllm]`; docs/guides/vllm.md). The engines draw different, equally valid samples from the same policy; the update recomputes logprobs under its own model either way. Runtime only.", json_schema_extra=RUNTIME)
    decode_step: Literal["auto", "ours", "ours-sdpa", "graphs", "transformers"] = Field("auto", description="How engine=hf's decode loop computes a step (sample and eval stages). ours: pipeline/engines/decode_step.py for Llama-family students (Llama, Qwen2, Mistral), q/k/v and gate/up as one matmul each, about twenty calls a layer against transformers' sixty (1.21x on the CPU's sample stage); on the CPU its one-token attention is a C++ kernel built on first use, and each layer's elementwise work (residual add and RMSNorm, rotary and cache write, SiLU x up) three more C++ calls (pipeline/engines/cpu_attention.py: heads of 64 or 128 dims, float32 arithmetic; where they do not build or fit the model, torch's SDPA and torch's operations, with a warning); another architecture falls back to transformers' forward. ours-sdpa: ours with torch's SDPA for that attention and torch's operations for the rest (the kernels' reference). graphs: ours, on CUDA each step replayed from a CUDA graph (one per bucket of live rows and keys read, captured when first needed; the live rows padded to their bucket; the KV cache allocated whole at the start), so the host launches a step's ~600 kernels at once; on the CPU the same as ours. transformers: the model's own forward, any architecture. auto: ours on the CPU; graphs on CUDA, measured there (an H200, the 1.5B shape, 32 prompts x 8 x 256 tokens: the sample stage 12.2 s with graphs, 15.6 s with ours, 18.5 s with transformers' forward; bench/RESULTS.md); a step that fails to capture falls back to ours with a warning. Same tokens either way, float rounding apart. Runtime only.", json_schema_extra=RUNTIME)
    vllm_memory: float = Field(0.0, ge=0, lt=1, description="engine=vllm: vLLM's gpu_memory_utilization, the share of the GPU's memory (of RAM on the CPU build) it may take for weights and KV cache. 0 = auto: 0.85 x the share free when the stage starts on CUDA, 0.2 on the CPU. Runtime only.", json_schema_extra=RUNTIME)

    @field_validator("stop")
    @classmethod
    def _no_empty_stop(cls, v: list[str]) -> list[str]:
        if any(not x for x in v):   # every completion holds "": each would end after its first token
            raise ValueError("an empty string, which every completion contains, is no stop string; remove it")
        return v


class RewardConfig(Section):
    kind: Literal["ratio", "direct"] = Field("ratio", description="ratio: student / (teacher + eps); direct: the student's judge score itself (no teacher).")
    eps: float = Field(0.1, gt=0, description="reward = student / (teacher + eps); eps keeps a teacher score of 0 from blowing up. A teacher score below 0 (a reward function's) counts as 0; a prompt without a teacher score (no teacher answer, or one the judge could not read) is rewarded as against a perfect teacher, student / (1 + eps), and counted in reward/no_teacher_score.")
    clip_max: float = Field(2.0, gt=0, description="The ratio is clipped to [0, clip_max] (reward.kind=direct takes the score as the judge gives it, unclipped); the shaping terms are added after the clip (the overlong and length penalties may take a reward below 0, improve_bonus above clip_max).")
    none_as: float | None = Field(None, description="Reward for a completion the judge could not score (None = drop it from the batch).")
    overlong_buffer: int = Field(0, ge=0, description="Soft overlong penalty (DAPO, Yu et al. 2025): over the last this-many tokens before max_new_tokens the penalty grows linearly to overlong_penalty (0 = off).")
    overlong_penalty: float = Field(0.5, ge=0, description="Penalty at max_new_tokens for the soft overlong penalty.")
    length_penalty: float = Field(0.0, ge=0, description="Subtract this x (length / max_new_tokens) from every reward (0 = off).")
    improve_bonus: float = Field(0.0, ge=0, description="Add this x (score - the student's previous mean score on the same prompt), when positive (0 = off).")


class SelectConfig(Section):
    min_reward: float = Field(0.0, description="Drop completions with reward below this, before the advantages are taken. It reads the shaped reward: with reward.length_penalty or the overlong penalty on, set it below their lowest (e.g. -2), or the answers they penalise are removed rather than penalised (TRL keeps them; a warning says so).")
    top_k: int = Field(0, ge=0, description="Best-of-N: keep the top k completions per prompt (0 = keep all).")
    drop_zero_std: bool = Field(True, description="Drop prompt groups whose rewards are all equal (no learning signal with advantage grpo or mean, whose advantages are then 0; with raw the rewards are the advantages, and such a group still carries them).")
    advantage: Literal["grpo", "raw", "mean"] = Field("grpo", description="grpo: (r - mean) / (std + eps) per group (GRPO, Shao et al. 2024); raw: r; mean: r - group mean (Dr. GRPO, Liu et al. 2025; TRL's scale_rewards=none).")
    scale_rewards: Literal["group", "batch"] = Field("group", description="advantage=grpo: the std that divides. group: each prompt group's own (TRL's scale_rewards=group); batch: the std of every reward of the epoch's batch (all groups, before drop_zero_std), which keeps a group of nearly equal rewards from being blown up to unit scale (Liu et al. 2025; TRL's scale_rewards=batch, as in \"Tricks or Traps\", Liu et al. 2025b).")
    std: Literal["population", "sample"] = Field("sample", description="The std of advantage=grpo. sample: divide by n - 1 (Bessel's correction, TRL's torch.std); population: by n, advantages x sqrt(n/(n-1)) of sample's, 1.07 at 8 samples, 1.41 at 2. sample is TRL's choice, taken because an A/B of the two found no difference beyond noise (bench/RESULTS.md, update: TRL's choices).")


class EvalConfig(Section):
    sources: list[str] | None = Field(None, description="Held-out problem sets for the eval stage (builtin:heldout, bank:heldout, ocaml:heldout, humaneval, a path, hf:..., or validation: the data.validation_size problems carved out of data.source). [] turns eval off. Unset: the held-out part of your own data (validation) when data.source is yours, so a run on your data reports pass@1 on problems like its own and never trained on; builtin:heldout (ocaml:heldout) for the built-in training sets. The built-in and HumanEval sets are opt-in for your data.")
    max_problems: int = Field(0, ge=0, description="Evaluate at most this many problems per source (0 = all), chosen by a fixed seed.")
    allow_trained: bool = Field(False, description="Let the eval score problems data.source trains on (a positive control: the ceiling of training on the eval's own problems). Off: such a run is refused before any work, since a held-out score of trained problems measures memory.")
    max_new_tokens: int = Field(256, ge=1, description="Generation limit for eval answers.")
    num_samples: int = Field(1, ge=1, description="Answers per problem. 1 with temperature 0: one greedy answer (the epoch loop's cheap check; one greedy pass over 29 problems has a standard error of ~8 points). n > 1 at temperature > 0: n sampled answers, scored by the unbiased pass@k (Chen et al. 2021) and the mean graded score, precise enough for `rlaif compare-evals` to resolve a change (the learning bench uses 8).")
    temperature: float = Field(0.0, ge=0, description="0: greedy. > 0: sampled answers at this temperature, each from a random stream of its own (run.seed, the epoch, the problem, the sample's index), so an eval is reproducible whatever the batch size or process count. 0.6 is DeepSeek-R1's pass@1 protocol (n samples at T=0.6).")
    seed_per_epoch: bool = Field(True, description="Sampled eval: true: each epoch's eval draws its own random numbers, so the difference between two epochs' evals includes the sampling noise a fresh draw has (a negative control then shows the noise floor); false: every epoch draws the same ones (common random numbers: a tighter paired interval; an unchanged policy gives exactly the same answers).")
    reference_nll: bool = Field(True, description="Also measure the per-token NLL of each problem's reference answer (the teacher's answer) under the policy: one forward pass per problem, a continuous distillation metric (eval/ref_nll, lower is better) that moves before pass@1 does.")
    engine: Literal["hf", "generate", "vllm"] = Field("hf", description="What generates the eval answers: hf, generate or vllm, as sample.engine (vLLM's memory share: sample.vllm_memory; vLLM seeds sampled answers per request, not per problem). Runtime only.", json_schema_extra=RUNTIME)
    early_stop_metric: str = Field("eval/score", description="Metric early stopping watches (higher is better), e.g. eval/score, eval/pass@1, reward/mean. Where the eval scores problems without tests with the run's judge, only the evals scored with the latest one's judge settings and code are compared (a reward function edited, then `rlaif eval N --force`, starts the count again).")
    patience: int = Field(0, ge=0, description="Stop after this many epochs without an improvement of min_delta (0 = never stop early).")
    min_delta: float = Field(0.005, ge=0, description="Smallest change of early_stop_metric that counts as an improvement.")


class ReportConfig(Section):
    regression_drop: float = Field(0.01, ge=0, description="Flag reward regression when mean reward falls by more than this (absolute) from the previous epoch.")
    loss_rising_epochs: int = Field(2, ge=1, description="Flag loss rising this many epochs running.")
    max_frac_zero_std: float = Field(0.3, ge=0, le=1, description="Flag mode collapse when more than this share of prompt groups has zero reward spread.")
    min_student_score: float = Field(0.05, ge=0, le=1, description="Flag a run that cannot learn (no_signal) when the student's mean judge score is below this, or when more than half of the first epoch's groups have zero spread while the student scores below 0.5: the report names the levers (warm-start, teacher imitation, group size, easier problems, longer answers).")
    min_entropy: float = Field(0.02, ge=0, description="Flag entropy collapse below this mean token entropy (nats): a near-deterministic policy. Code models sample at 0.05-0.2 nats/token when healthy (docs/reading-the-report.md).")
    entropy_drop: float = Field(0.5, ge=0, le=1, description="Flag entropy collapse when entropy fell entropy_falls epochs running and ends more than this fraction below its highest earlier value. Swings that recover are not flagged.")
    entropy_falls: int = Field(2, ge=1, description="Consecutive epoch-to-epoch falls of entropy before a drop counts as collapse (one low epoch is a swing).")
    kl_target: float = Field(0.1, gt=0, description="KL (k3) the run aims at; flag above kl_high x this, 'exploding' above kl_explode x this.")
    kl_high: float = Field(1.5, gt=1, description="Multiple of kl_target that flags KL above target.")
    kl_explode: float = Field(5.0, gt=1, description="Multiple of kl_target that flags exploding KL.")
    negative_k1: float = Field(-0.01, le=0, description="Flag kl/k1_start (k1 KL of the sampled tokens before any update step) below this: mismatched sampling/training distributions.")
    max_reward_cv: float = Field(1.5, gt=0, description="Flag the batch reward coefficient of variation above this, only with select.advantage=raw: grpo and mean advantages are taken within each prompt's group, so spread across prompts never reaches the gradient (docs/reading-the-report.md).")
    max_clip_ratio: float = Field(0.2, ge=0, le=1, description="Flag policy/clip_ratio (the share of tokens whose ratio the update clipped, where their gradient stops) above this: each update moves the policy too far for update.clip_eps. Measured on the embedded default's tuning runs (2026-11-29, policy/clip_ratio of epochs 1-4): one pass clipped 0.15-2.2% of tokens an epoch, two passes (update.epochs=2 update.kl_ratio=false) 0.4-4.7%.")
    max_truncated_frac: float = Field(0.3, ge=0, le=1, description="Flag when more than this share of completions hit max_new_tokens.")
    max_parse_failure_frac: float = Field(0.02, ge=0, le=1, description="Flag judge parse failures above this share of judgements.")
    max_cost_per_epoch_usd: float = Field(5.0, ge=0, description="Flag judge cost per epoch above this many dollars.")
    min_teacher_score: float = Field(0.3, ge=0, le=1, description="With reward.kind=ratio, flag mean teacher score below this (the ratio reward means little).")
    max_sampler_gap: float = Field(0.1, gt=0, description="Flag logprobs/sampler_gap (mean |sampler logprob - trainer logprob| per sampled token, nats) above this: the engine that sampled drew from another distribution than the one the update trains on.")
    max_sampler_outside: float = Field(0.02, ge=0, le=1, description="Flag logprobs/sampler_outside (the share of sampled tokens whose sampler / trainer ratio lies outside [0.5, 2]) above this: the same mismatch seen token by token (a few tokens far off can hide in a small mean).")
    samples_shown: int = Field(3, ge=0, description="Worst and best completions shown in the report.")

    @model_validator(mode="after")
    def _kl_levels(self) -> "ReportConfig":
        if self.kl_explode <= self.kl_high:   # else a KL between the two raises neither flag
            raise ValueError(f"report.kl_explode ({self.kl_explode}) must be above report.kl_high ({self.kl_high})")
        return self
