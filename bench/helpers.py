"""What the side-by-side benchmarks share: the small config, timed subprocesses, peak RSS, and
TRL's GRPOTrainer set up the way our config says (same model, prompts, LoRA, sampling, loss
settings and judge), so each script compares like with like.

Mapping of our config onto GRPOConfig (TRL 1.16):
    update.lr -> learning_rate          update.kl_coef -> beta         update.clip_eps -> epsilon
    update.micro_batch_size -> per_device_train_batch_size             update.grad_accum -> gradient_accumulation_steps
    update.scheduler / warmup_ratio / max_grad_norm / weight_decay -> lr_scheduler_type / warmup_steps / ...
    sample.num_samples -> num_generations                              sample.max_new_tokens -> max_completion_length
    sample.temperature / top_p / top_k -> temperature / top_p / top_k
    update.loss_type -> loss_type (the same names and sums), update.clip_eps_high -> epsilon_high,
    update.importance_sampling_level -> importance_sampling_level, update.kl_ratio -> use_bias_correction_kl
    (TRL defaults it to True: left alone, TRL would train another KL gradient than ours),
    update.mask_truncated_completions -> mask_truncated_completions, select.advantage / scale_rewards ->
    scale_rewards (grpo: group or batch; mean: none), generation_batch_size = all completions of the epoch (we sample them in
    one batch too; TRL then recomputes old logprobs, exactly like our update does for a trained adapter).
    activation_checkpointing=False (TRL defaults gradient_checkpointing to True; we do not checkpoint), bf16=False,
    use_cpu=True.
"""
from __future__ import annotations

import json
import math
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PY = str(ROOT / ".venv" / "bin" / "python")
RLAIF = str(ROOT / ".venv" / "bin" / "rlaif")
SMALL = ["data.prompts_per_epoch=4", "sample.num_samples=4", "sample.max_new_tokens=64", "eval.sources=[]"]
"""A config small enough for a few minutes per epoch on 2 CPU cores."""
LOAD_AT_START = os.getloadavg()[0]


def busy() -> str:
    """The note every record carries: this machine is shared, and how loaded it was."""
    return (f"the machine is shared and busy (other people's jobs run on its {os.cpu_count()} cores; 1-minute load "
            f"average {LOAD_AT_START:.1f} at the start, {os.getloadavg()[0]:.1f} at the end), so absolute times are "
            "noisy")


def run_measured(cmd: list[str]) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds, stdout) of a subprocess; its stderr (progress bars) is dropped;
    fails loudly. CPU seconds (user + system) are less sensitive than wall time to other jobs."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, p.stdout


def run_timed(cmd: list[str]) -> tuple[float, str]:
    """(wall seconds, stdout) of a subprocess, as run_measured."""
    wall, _, out = run_measured(cmd)
    return wall, out


def last_json(stdout: str) -> dict:
    """The JSON object a child printed on its last line."""
    return json.loads(stdout.strip().splitlines()[-1])


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far (Linux reports ru_maxrss in KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def config(overrides: list[str]):
    from pipeline.config.file import load_config
    return load_config(ROOT / "config.yaml", overrides)


def lora_config(cfg):
    from peft import LoraConfig
    lc = cfg.student.lora
    return LoraConfig(r=lc.r, lora_alpha=lc.alpha, lora_dropout=lc.dropout, target_modules=list(lc.target_modules),
                      task_type="CAUSAL_LM")


def messages(cfg, prompt: str) -> list[dict]:
    """The conversation our `chat_prompt` renders, as TRL takes it (it applies the chat template itself)."""
    sys_msg = [{"role": "system", "content": cfg.student.system_prompt}] if cfg.student.system_prompt else []
    return sys_msg + [{"role": "user", "content": prompt}]


def grpo_config(cfg, out_dir: str, n_prompts: int, lr: float | None = None, kl: float | None = None, **over):
    """GRPOConfig for one update of n_prompts x num_samples completions, as our update would run it."""
    from trl import GRPOConfig
    uc, sc = cfg.update, cfg.sample
    n = n_prompts * sc.num_samples
    steps = math.ceil(math.ceil(n / uc.micro_batch_size) / uc.grad_accum) * uc.epochs
    kw = dict(
        output_dir=out_dir, use_cpu=True, bf16=False, fp16=False, report_to="none", save_strategy="no",
        logging_steps=1, disable_tqdm=True, seed=cfg.run.seed, activation_checkpointing=False,
        learning_rate=uc.lr if lr is None else lr, beta=uc.kl_coef if kl is None else kl, epsilon=uc.clip_eps,
        loss_type=uc.loss_type, num_iterations=1, max_steps=steps,
        scale_rewards=cfg.select.scale_rewards if cfg.select.advantage == "grpo" else "none",
        epsilon_high=uc.clip_eps if uc.clip_eps_high is None else uc.clip_eps_high,
        importance_sampling_level=uc.importance_sampling_level, use_bias_correction_kl=uc.kl_ratio,
        mask_truncated_completions=uc.mask_truncated_completions,
        per_device_train_batch_size=uc.micro_batch_size, gradient_accumulation_steps=uc.grad_accum,
        generation_batch_size=n, num_generations=sc.num_samples, max_completion_length=sc.max_new_tokens,
        temperature=sc.temperature, top_p=sc.top_p, top_k=sc.top_k,
        lr_scheduler_type=uc.scheduler, max_grad_norm=uc.max_grad_norm,
        warmup_steps=uc.warmup_steps if uc.warmup_steps is not None else int(uc.warmup_ratio * steps),
        weight_decay=uc.weight_decay, optim="adamw_torch", dataloader_num_workers=0)
    kw.update(over)
    return GRPOConfig(**kw)


def plain_model_dir(cfg) -> str:
    """The student's weights in a directory TRL accepts.

    The embedded model's safetensors copy (pipeline/engines/model.py) keeps the GGUF `quantization_config`
    in its config.json although its weights are plain float32 nn.Linear. transformers' Trainer
    then refuses it: "ValueError: The model you are trying to fine-tune is quantized with
    QuantizationMethod.GGUF but that quantization method do not support training". So TRL gets a
    directory of symlinks to the same files with that key dropped: same weights, same compute.
    """
    from pipeline.engines.model import resolve
    src = Path(resolve(cfg.student.model))
    conf = json.loads((src / "config.json").read_text())
    if "quantization_config" not in conf:
        return str(src)
    out = ROOT / "runs" / ".bench-model" / src.name
    out.mkdir(parents=True, exist_ok=True)
    for f in src.iterdir():
        if f.name != "config.json" and not (out / f.name).exists():
            (out / f.name).symlink_to(f)
    conf.pop("quantization_config")
    (out / "config.json").write_text(json.dumps(conf, indent=2))
    return str(out)


def trl_trainer(cfg, rows: list[dict], reward_funcs, out_dir: str, rollout_func=None, learning_rate=None, beta=None,
                **grpo_kw):
    """GRPOTrainer on our student (base weights + a fresh LoRA of our settings) over `rows`
    ({"prompt": messages, ...extra columns handed to the reward functions})."""
    from datasets import Dataset
    from trl import GRPOTrainer
    from pipeline.engines.model import load_tokenizer
    n_prompts = len(rows)
    return GRPOTrainer(model=plain_model_dir(cfg), reward_funcs=reward_funcs,
                       args=grpo_config(cfg, out_dir, n_prompts, lr=learning_rate, kl=beta,
                                        **{"model_init_kwargs": {"dtype": _dtype(cfg)}, **grpo_kw}),
                       train_dataset=Dataset.from_list(rows), processing_class=load_tokenizer(cfg.student),
                       peft_config=lora_config(cfg), rollout_func=rollout_func)


def _dtype(cfg) -> str:
    """student.dtype as TRL takes it: auto is ours (bf16 on CUDA, fp32 on the CPU); these benches run on the CPU."""
    return "float32" if cfg.student.dtype == "auto" else cfg.student.dtype


class CountingJudge:
    """Our execution judge (same settings, same sandbox) as a TRL reward function, counting every
    sandboxed scoring it runs. reward = student / (teacher + eps) clipped to [0, clip_max], our
    ratio reward; each teacher answer is scored once per process, as a TRL script would at start."""

    __name__ = "execution_judge"  # TRL names reward functions by __name__

    def __init__(self, cfg, problems: dict, eos_ids: set[int]):
        from judges.execution import ExecutionJudge
        from pipeline.stages.judging import as_answer, execution_settings
        self.cfg, self.problems, self.eos_ids = cfg, problems, eos_ids
        self.judge = ExecutionJudge(execution_settings(cfg))
        self.calls, self.secs = 0, 0.0
        self.teacher = {pid: self._score(p, as_answer(p.reference), False) if p.reference else None
                        for pid, p in problems.items()}

    def _score(self, problem, text: str, truncated: bool) -> float | None:
        self.calls += 1
        t = time.perf_counter()
        value = self.judge.score(problem, text, truncated).value
        self.secs += time.perf_counter() - t
        return value

    def __call__(self, prompts, completions, completion_ids, problem_id, **_) -> list[float | None]:
        from pipeline.train.rl import ratio_reward
        out = []
        for c, ids, pid in zip(completions, completion_ids, problem_id):
            text = c[0]["content"] if isinstance(c, list) else c
            # hit the limit without stopping: our finish_reason == "length" (TRL keeps the eos in the ids)
            truncated = len(ids) >= self.cfg.sample.max_new_tokens and ids[-1] not in self.eos_ids
            s = self._score(self.problems[pid], text, truncated)
            out.append(None if s is None else ratio_reward(s, self.teacher[pid], self.cfg.reward))
        return out
