"""The epoch on a GPU, side by side with TRL's GRPOTrainer, and against the physical floor.

For each student shape (random weights in the Qwen2 architecture, the embedded SmolLM2
tokenizer, so nothing is downloaded; see ../shared/gpu/README.md for carrying it to a lent GPU):

  ours   `Runner.run_epoch(1)` in a fresh process: prompts, sample, teacher (references), judge
         (execution), reward, select, logprobs, update. Eval off. The clock starts before the
         first stage, so it includes our one load of the weights.
  TRL    GRPOTrainer (TRL 1.16) on the same prompts, group size, lengths, LoRA, learning rate and
         optimizer steps, our execution judge as its reward (bench.helpers.CountingJudge). The clock
         starts before the trainer is built (its one load of the weights) and stops after train().

Both sides: bf16 (fp32 on the CPU), prompts x K completions of at most --new tokens, 16 optimizer
steps (rows per step = all completions / 16), select.drop_zero_std=false (random weights rarely
stop, so every completion runs to the limit and scores 0; throughput is what this measures, not
learning). Per side: seconds per stage, generated and trained tokens/s, peak GPU memory; the
update's MFU = 4 x parameters x (prompt + completion) tokens / update seconds / the GPU's bf16
dense peak (a LoRA backward computes activation gradients, 2N a token, and no weight gradients of
the frozen base); the floors: decode bound by memory (every step reads the weights and the KV
cache once) and the update bound by FLOPs.

    python bench/gpu.py [--shapes 0.5b,1.5b,3b] [--prompts 32] [--k 8] [--new 256] [--device cuda] [--repeats 3]
    python bench/gpu.py --shapes tiny --device cpu --prompts 2 --k 2 --new 8    # smoke test, any machine

Appends a table to bench/RESULTS.md with the device's name. Goals (issue: the epoch on a GPU):
epoch >= 2x TRL's, update >= 12k trained tokens/s at 1.5B, sampling >= 3x TRL's generation.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import record  # noqa: E402
from bench.gpu_probes import allocator, decode_counts, profiled  # noqa: E402

SHAPES = {  # Qwen2.5 shapes (hidden, layers, heads, kv heads, intermediate); vocabulary: the tokenizer's
    "tiny": (64, 2, 4, 2, 128),
    "0.5b": (896, 24, 14, 2, 4864),
    "1.5b": (1536, 28, 12, 2, 8960),
    "3b": (2048, 36, 16, 2, 11008),
}
PEAK_BF16 = {"H100": 989e12, "H200": 989e12, "A100": 312e12, "L40S": 362e12}
"""Dense bf16 tensor-core peak FLOP/s by GPU name (SXM parts; NVIDIA data sheets)."""
HBM = {"H100": 3.35e12, "H200": 4.8e12, "A100": 2.0e12, "L40S": 0.864e12}
"""Memory bandwidth, bytes/s."""


def gpu_spec(name: str, table: dict) -> float | None:
    return next((v for k, v in table.items() if k in name), None)


def build_student(shape: str, tok_dir: str | None, out_root: Path, device: str, layers: int | None = None,
                  bf16: bool | None = None) -> Path:
    """A random-weight Qwen2 of the shape with the embedded tokenizer, saved once under out_root.
    layers: decoder layers other than the shape's (its widths kept); bf16: the weights' dtype (default:
    bf16 off the CPU, float32 on it)."""
    import torch
    from transformers import AutoTokenizer, Qwen2Config, Qwen2ForCausalLM
    usual = layers is None and bf16 in (None, device != "cpu")  # the shape's depth in the device's dtype
    bf16 = device != "cpu" if bf16 is None else bf16
    depth = SHAPES[shape][1] if layers is None else layers
    out = out_root / (f"qwen2-{shape}-random" if usual else f"qwen2-{shape}-{depth}l-{'bf16' if bf16 else 'fp32'}")
    if (out / "config.json").exists():
        return out
    from pipeline.engines.model import embedded_tokenizer_dir
    tok = AutoTokenizer.from_pretrained(tok_dir or embedded_tokenizer_dir())
    h, _, heads, kv, inter = SHAPES[shape]
    conf = Qwen2Config(vocab_size=len(tok), hidden_size=h, num_hidden_layers=depth, num_attention_heads=heads,
                       num_key_value_heads=kv, intermediate_size=inter, max_position_embeddings=4096,
                       tie_word_embeddings=shape in ("tiny", "0.5b", "1.5b"), bos_token_id=tok.bos_token_id,
                       eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id, torch_dtype="bfloat16")
    torch.manual_seed(0)
    with torch.device(device):
        model = Qwen2ForCausalLM(conf).to(torch.bfloat16 if bf16 else torch.float32)
    tmp = out.with_name(out.name + ".tmp")
    model.save_pretrained(tmp)
    tok.save_pretrained(tmp)
    os.replace(tmp, out)
    return out


def overrides(a, model_dir: Path, run_dir: str) -> list[str]:
    rows = a.prompts * a.k
    per_step = max(1, rows // a.steps)
    return [f"run.dir={run_dir}", "run.name=gpu-bench", f"run.device={a.device}", f"student.model={model_dir}",
            "data.source=builtin:train", "data.difficulties=[easy,medium,hard]", f"data.prompts_per_epoch={a.prompts}",
            f"data.pool_size={a.prompts}", f"sample.num_samples={a.k}", f"sample.max_new_tokens={a.new}",
            "sample.temperature=1.0", "select.drop_zero_std=false", "update.warm_start=false",
            "update.teacher_sft_coef=0", f"update.micro_batch_size={per_step}", "update.grad_accum=1",
            "eval.sources=[]", "run.checkpoint_every=0", *a.extra]


def side_ours(a, model_dir: Path) -> dict:
    import torch
    from pipeline.config.file import load_config
    from pipeline.run.runner import Runner
    if a.profile:
        profiled(Runner, Path(a.profile), tuple(a.profile_stages.split(",")))
    loop = decode_counts()
    with tempfile.TemporaryDirectory() as runs:
        cfg = load_config(ROOT / "config.yaml", overrides(a, model_dir, runs))
        t = time.perf_counter()
        res = Runner(cfg).run_epoch(1, echo=lambda s: print(s, flush=True))
        wall = time.perf_counter() - t
        prompts = prompt_tokens(cfg)  # read before the run directory goes
    fig = {k: v for m in res.values() for k, v in m.get("figures", {}).items()}
    alloc = allocator(a)
    stages = {name: m["wall_s"] for name, m in res.items()}
    return {"wall": wall, "stages": stages, "generated": fig.get("sample/generated_tokens", 0),
            "gen_tps": fig.get("sample/tokens_per_s", 0.0), "trained": fig.get("update/trained_tokens", 0),
            "train_tps": fig.get("update/tokens_per_s", 0.0), "steps": fig.get("optim/steps", 0),
            "peak_gib": max([v for k, v in fig.items() if k.startswith("memory/")] + [0.0]),
            "prompt_tokens": prompts, "figures": fig, "decode": loop, "alloc": alloc,
            "device": torch.cuda.get_device_name() if torch.cuda.is_available() and a.device != "cpu" else "CPU"}


def prompt_tokens(cfg) -> int:
    from pipeline.store.tables import load_table
    d = Path(cfg.run.dir) / cfg.run.name / "epoch-001" / "sample"
    return sum(len(r["prompt_ids"]) for r in load_table(d)) if d.exists() else 0


def side_trl(a, model_dir: Path) -> dict:
    import torch
    from bench.helpers import CountingJudge, messages, trl_trainer
    from data.loaders import load_source
    from pipeline.config.file import load_config
    from pipeline.stages.problems import pool
    with tempfile.TemporaryDirectory() as runs:
        cfg = load_config(ROOT / "config.yaml", overrides(a, model_dir, runs))
    probs = pool(load_source("builtin:train"), a.prompts, cfg.run.seed)[: a.prompts]
    judge = CountingJudge(cfg, {p.id: p for p in probs}, {0, 1, 2})
    data = [{"prompt": messages(cfg, p.prompt), "problem_id": p.id} for p in probs]
    on_gpu = a.device != "cpu"
    times = {"generate": 0.0}
    with tempfile.TemporaryDirectory() as out:
        t = time.perf_counter()
        trainer = trl_trainer(cfg, data, [judge], out, use_cpu=not on_gpu, bf16=on_gpu,
                              model_init_kwargs={"dtype": "bfloat16" if on_gpu else "float32"})
        real = trainer._generate
        generated = []

        def timed(*args, **kw):
            t0 = time.perf_counter()
            r = real(*args, **kw)
            if on_gpu:
                torch.cuda.synchronize()
            times["generate"] += time.perf_counter() - t0
            generated.append(sum(len(c) for c in r[1]))
            return r
        trainer._generate = timed
        built = time.perf_counter() - t
        trainer.train()
        wall = time.perf_counter() - t
    trained = sum(generated)  # TRL trains on every generated completion token once (num_iterations=1)
    train_s = wall - built - times["generate"] - judge.secs
    return {"wall": wall, "stages": {"construct": built, "generate": times["generate"], "judge": judge.secs,
                                     "train": train_s},
            "generated": sum(generated), "gen_tps": sum(generated) / max(times["generate"], 1e-9),
            "trained": trained, "train_tps": trained / max(train_s, 1e-9), "steps": trainer.state.global_step,
            "peak_gib": torch.cuda.max_memory_allocated() / 2**30 if on_gpu else 0.0, "alloc": allocator(a)}


def floors(a, model_dir: Path, ours: dict, device_name: str) -> dict:
    """Decode bound by memory, update bound by FLOPs, MFU."""
    from transformers import AutoConfig
    c = AutoConfig.from_pretrained(model_dir)
    h, layers, inter, v = c.hidden_size, c.num_hidden_layers, c.intermediate_size, c.vocab_size
    kv_dim = c.num_key_value_heads * (h // c.num_attention_heads)
    n = layers * (2 * h * h + 2 * h * kv_dim + 3 * h * inter) + v * h  # matmul parameters incl. the LM head
    peak, bw = gpu_spec(device_name, PEAK_BF16), gpu_spec(device_name, HBM)
    seqs = a.prompts * a.k
    avg_prompt = ours["prompt_tokens"] / max(seqs, 1)
    tokens = ours["prompt_tokens"] + ours["trained"]
    out = {"params": n, "update_flops": 4 * n * tokens}
    if peak:
        out["update_floor_s"] = out["update_flops"] / peak
        out["mfu"] = out["update_flops"] / max(ours["stages"].get("update", 0), 1e-9) / peak
    if bw:
        # each decode step reads the weights once and the batch's KV cache (half full on average)
        kv = 2 * layers * kv_dim * 2 * seqs * (avg_prompt + a.new / 2)
        out["decode_floor_s"] = a.new * (2 * n + kv) / bw
    return out


def paired(by_rep: dict[str, dict[int, dict]], profiled: bool, repeats: int) -> list[tuple[dict, dict]]:
    """(ours, TRL) of each repeat whose two runs both finished, in repeat order: a failed run drops its
    repeat, never shifts the pairing; a profiled run (repeat 0 of ours) is no pair when others are."""
    return [(by_rep["ours"][r], by_rep["trl"][r]) for r in sorted(by_rep["ours"])
            if r in by_rep["trl"] and not (profiled and r == 0 and repeats > 1)]


def run_label(i: int, repeats: int) -> str:
    return f" #{i + 1}" if repeats > 1 else ""


def ratio_text(ratios: list[float]) -> str:
    """One ratio as "1.59x"; several (one per pair of runs) as their geometric mean with its 95%
    t-interval over the log ratios, and the pairs' own."""
    if len(ratios) == 1 or min(ratios) <= 0:           # a side that measured nothing: the ratios as they are
        return ", ".join(f"{r:.2f}x" for r in ratios)
    logs = [math.log(r) for r in ratios]
    m, sd = statistics.fmean(logs), statistics.stdev(logs)
    from scipy.stats import t as student_t
    h = student_t.ppf(0.975, len(logs) - 1) * sd / math.sqrt(len(logs))
    each = ", ".join(f"{r:.2f}" for r in ratios)
    return f"{math.exp(m):.2f}x [{math.exp(m - h):.2f}, {math.exp(m + h):.2f}] ({len(ratios)} pairs: {each})"


class Stopped(Exception):
    """A signal (SIGTERM: gpu_check's time limit) ended the bench between or during its runs."""


def child(a, sides: dict | None = None) -> int:
    """A side's process (--side): its figures as one JSON line. sides: name -> function(a, model_dir)
    (default this bench's own, ours and TRL)."""
    side = (sides or {"ours": side_ours, "trl": side_trl})[a.side]
    print(json.dumps(side(a, Path(a.model_dir))), flush=True)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shapes", default="0.5b,1.5b,3b")
    ap.add_argument("--prompts", type=int, default=32)
    ap.add_argument("--k", type=int, default=8, help="samples per prompt (group size)")
    ap.add_argument("--new", type=int, default=256, help="max new tokens")
    ap.add_argument("--steps", type=int, default=16, help="optimizer steps of the update")
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--tok", default=None, help="tokenizer directory (default: the embedded one)")
    ap.add_argument("--models", default=str(ROOT / "runs" / ".bench-gpu"), help="where the random students go")
    ap.add_argument("--skip-trl", action="store_true")
    ap.add_argument("--repeats", type=int, default=1, help="run each side this many times, the sides alternating "
                    "(ours, TRL, ours, ...), each in a process of its own; the ratios are then each pair's, "
                    "summarised as a geometric mean with its 95%% interval (a run's time on a GPU machine moved by "
                    "up to 2.3x between runs of the same work)")
    ap.add_argument("--profile", metavar="FILE", help="run our --profile-stages under torch.profiler and append their "
                    "operator tables to FILE, and the decode loop's counts (the profiler's cost inflates our times: "
                    "the sample stage's 255 decode steps at 1.5B took 310 s under it, 27.5 s without)")
    ap.add_argument("--profile-stages", default="update", help="comma-separated stages for --profile")
    ap.add_argument("--side", choices=["ours", "trl"], help=argparse.SUPPRESS)
    ap.add_argument("--model-dir", help=argparse.SUPPRESS)
    ap.add_argument("extra", nargs="*", help="more key.sub=value overrides for our side")
    a = ap.parse_args()
    if a.side:
        return child(a)
    lines = ["| shape | side | epoch s | sample / generate s | judge s | logprobs s | update / train s | "
             "generated tok/s | trained tok/s | steps | peak GiB |", "|---" * 11 + "|"]
    notes: list[str] = []
    done: list[tuple[str, Path, dict]] = []       # (shape, its model, side -> repeat -> figures), as they finish
    device_name = "CPU"

    def stop(signum, _frame):                     # gpu_check's `timeout` (SIGTERM): keep what finished
        raise Stopped(signal.Signals(signum).name)
    signal.signal(signal.SIGTERM, stop)
    try:
        for shape in a.shapes.split(","):
            model_dir = build_student(shape, a.tok, Path(a.models), "cpu" if a.device == "cpu" else "cuda")
            by_rep: dict[str, dict[int, dict]] = {"ours": {}, "trl": {}}     # side -> repeat -> its figures
            done.append((shape, model_dir, by_rep))
            for rep in range(max(1, a.repeats)):
                for side in ("ours",) + (() if a.skip_trl else ("trl",)):
                    cmd = [sys.executable, __file__, "--side", side, "--model-dir", str(model_dir), "--prompts",
                           str(a.prompts), "--k", str(a.k), "--new", str(a.new), "--steps", str(a.steps), "--device",
                           a.device, *(["--profile", a.profile, "--profile-stages", a.profile_stages]
                                       if a.profile and side == "ours" and rep == 0 else []),
                           *a.extra]
                    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
                    if p.returncode != 0:
                        notes.append(f"{shape} {side}: failed ({p.returncode}): {p.stderr.strip().splitlines()[-1:]}")
                        print(p.stdout[-3000:], p.stderr[-5000:], file=sys.stderr)
                        continue
                    by_rep[side][rep] = json.loads(p.stdout.strip().splitlines()[-1])
                    print(shape, side, by_rep[side][rep], flush=True)
    except Stopped as e:
        # subprocess.run killed the side it was waiting for; the finished runs still make the table
        notes.append(f"stopped by {e} (its time limit) after {sum(len(r) for *_, b in done for r in b.values())} "
                     "finished run(s): the table holds those")
        print(f"stopped by {e}: writing the table of the finished runs", file=sys.stderr, flush=True)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    for shape, model_dir, by_rep in done:
        runs = {side: list(r.values()) for side, r in by_rep.items()}
        for i, o in by_rep["ours"].items():
            device_name = o["device"]
            st = o["stages"]
            label = run_label(i, a.repeats) + (" (profiled)" if a.profile and i == 0 and a.repeats > 1 else "")
            lines.append(f"| {shape} | ours{label} | {o['wall']:.1f} | {st.get('sample', 0):.1f} | "
                         f"{st.get('judge', 0):.1f} | {st.get('logprobs', 0):.1f} | {st.get('update', 0):.1f} | "
                         f"{o['gen_tps']:.0f} | {o['train_tps']:.0f} | {o['steps']} | {o['peak_gib']:.1f} |")
        allocs = [(f"{side}{run_label(i, a.repeats)}", o["alloc"]) for side in ("ours", "trl")
                  for i, o in by_rep[side].items() if o.get("alloc")]
        if allocs:
            notes.append(f"{shape}: the CUDA caching allocator over each side's process (cudaMalloc / cudaFree / "
                         "retries): " + ", ".join(f"{who} {al['num_device_alloc']} / {al['num_device_free']} / "
                                                  f"{al['num_alloc_retries']}" for who, al in allocs))
        if runs["ours"]:
            plain = [o for i, o in by_rep["ours"].items() if not (a.profile and i == 0)] or runs["ours"]
            by_update = sorted(plain, key=lambda r: r["stages"].get("update", 0))
            o = by_update[(len(by_update) - 1) // 2]                           # the median run (the lower of two)
            update_s = o["stages"].get("update", 0)
            sample_s = statistics.median(r["stages"].get("sample", 0) for r in plain)
            f = floors(a, model_dir, o, device_name)
            which = "" if len(plain) == 1 else " (the median run's)"
            if "mfu" in f:
                notes.append(f"{shape}: update MFU {100 * f['mfu']:.1f}%{which} (4 x {f['params'] / 1e9:.2f}B matmul "
                             f"parameters x tokens); FLOP floor of the update {f['update_floor_s']:.2f} s against "
                             f"{update_s:.1f} s ({update_s / f['update_floor_s']:.0f}x off)")
            d = o.get("decode") or {}
            if d.get("steps"):
                rest = d["wall_s"] - d.get("forward_s", 0) - d.get("choose_s", 0)
                notes.append(f"{shape}: the decode loop ({d.get('step')}, {d.get('slots')} slots) ran {d['steps']} steps "
                             f"({d['row_steps']} row-steps, {d.get('prefill_tokens', 0)} prefill tokens) in "
                             f"{d['wall_s']:.1f} s of the sample stage's {o['stages'].get('sample', 0):.1f} s{which}: launching the step {d.get('forward_s', 0):.1f} s, choosing the "
                             f"tokens (waiting for the step on CUDA) {d.get('choose_s', 0):.1f} s, the rest (prefill, "
                             f"bookkeeping, stop checks) {rest:.1f} s; {1e3 * d['wall_s'] / d['steps']:.1f} ms a step")
            if "decode_floor_s" in f:
                notes.append(f"{shape}: decode floor (memory-bound, batch of all {a.prompts * a.k} sequences) "
                             f"{f['decode_floor_s']:.2f} s against our sample stage {sample_s:.1f} s{which} "
                             f"({sample_s / f['decode_floor_s']:.0f}x off)")
        for i, t in by_rep["trl"].items():
            st = t["stages"]
            lines.append(f"| {shape} | TRL{run_label(i, a.repeats)} | {t['wall']:.1f} | {st['generate']:.1f} | "
                         f"{st['judge']:.1f} | - | {st['train']:.1f} | {t['gen_tps']:.0f} | {t['train_tps']:.0f} | "
                         f"{t['steps']} | {t['peak_gib']:.1f} |")
        pairs = paired(by_rep, bool(a.profile), a.repeats)
        if pairs:
            epoch = ratio_text([t["wall"] / o["wall"] for o, t in pairs])
            gen = ratio_text([o["gen_tps"] / max(t["gen_tps"], 1e-9) for o, t in pairs])
            upd = ratio_text([o["train_tps"] / max(t["train_tps"], 1e-9) for o, t in pairs])
            tps = statistics.median(o["train_tps"] for o, _ in pairs)
            notes.append(f"{shape}: epoch ours/TRL speed **{epoch}** (goal >= 2); sampling **{gen}** TRL's generation "
                         f"(goal >= 3); update {tps:.0f} trained tokens/s (goal >= 12k at 1.5B), {upd} TRL's")
    setup = (f"{a.prompts} prompts x {a.k} samples x {a.new} new tokens, {a.steps} optimizer steps, LoRA and lr of "
             f"config.yaml, random-weight Qwen2 shapes with the SmolLM2 tokenizer (vocabulary 49,152), device "
             f"{device_name}. Our epoch: sample + teacher + judge + reward + select + logprobs + update, one weight "
             "load; TRL: GRPOTrainer construction + train(), one weight load. vLLM: not measured (issue 15).")
    if a.profile:
        setup += " Ours ran under torch.profiler (--profile): its times are inflated by the profiler."
    record(f"gpu: our epoch vs TRL GRPOTrainer on {device_name} (bench/gpu.py)", lines, *notes, setup)
    return 0


if __name__ == "__main__":
    sys.exit(main())
