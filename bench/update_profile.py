"""The update's micro-batch under torch.profiler, ours against TRL's GRPOTrainer on the same rows:
what the CPU can say about the update's time on a GPU before a GPU is lent.

A random-weight student of a real shape (bench/gpu.py's SHAPES, the embedded tokenizer) built with
fewer decoder layers (the real widths and vocabulary; each layer adds the same work), in bf16. One
micro-batch of --rows completions (--rows / --k prompt groups, --prompt + --new tokens each):

  ours  pipeline.stages.update_loop.train, as the update stage calls it (the logprobs stage's old and
        reference logprobs given), over 1 and over 1 + --extra micro-batches of one optimizer step each
        (update.grad_accum=1): their difference over --extra is one micro-batch's forward, backward,
        figures and optimizer step, without the update's fixed costs.
  TRL   GRPOTrainer (TRL 1.16, bench/helpers.trl_trainer: the same LoRA, lr, clip, KL) on the same rows:
        compute_loss (its fused LM head, `add_fused_lm_head`), backward, gradient clipping and an AdamW
        step of the same parameters, 1 and 1 + --extra times, the same difference.

Each side runs in a process of its own, at --layers and then at --layers2 decoder layers, so every count
splits into a part per decoder layer and a fixed part, and extrapolates to the real depth. Counted per
micro-batch: its peak memory beyond the weights (on CUDA the allocator's; on the CPU from the profiler's
memory events), operator calls that reach a kernel (leaf ATen calls, views and allocations left out; on
CUDA, kernel launches), host syncs (on the CPU `aten::_local_scalar_dense`, the leaf of `.item()`,
`float()` and `bool()` of a tensor, and `aten::nonzero`; on CUDA the runtime's synchronize and
device-to-host copy calls), and the micro-batch's wall seconds. Worked out from the config, per
micro-batch at the real depth: the passes `update.max_batch_tokens` (auto) makes on a GPU of --gpu-gib,
the padded tokens against TRL's layout, the float32 log-softmax chunks, and the FLOPs of the body
(bf16) and of the LM head (float32 in ours, `fp32_head`, on TF32 tensor cores on CUDA; bf16 in
TRL's fused head).

    python bench/update_profile.py [--shape 1.5b] [--layers 2] [--layers2 4] [--rows 16] [--k 8]
                                   [--prompt 100] [--new 64] [--device cpu] [--fused-head auto] [--no-record]

Appends its table to bench/RESULTS.md (with --no-record, prints it only); --trace DIR writes each
side's operator table (by self time) there.
"""
from __future__ import annotations

import argparse
import gc
import json
import math
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import record  # noqa: E402
from bench.gpu import PEAK_BF16, SHAPES, build_student  # noqa: E402

METADATA = {  # leaf ATen calls that launch no kernel: views, allocations, metadata
    "aten::view", "aten::as_strided", "aten::_reshape_alias", "aten::reshape", "aten::expand", "aten::slice",
    "aten::select", "aten::unsqueeze", "aten::squeeze", "aten::t", "aten::transpose", "aten::permute",
    "aten::detach", "aten::alias", "aten::empty", "aten::empty_strided", "aten::empty_like", "aten::resize_",
    "aten::lift_fresh", "aten::split", "aten::chunk", "aten::narrow", "aten::_unsafe_view", "aten::set_",
    "aten::result_type", "aten::unbind", "aten::split_with_sizes", "aten::contiguous", "aten::view_as",
    "aten::expand_as", "aten::detach_", "aten::_has_compatible_shallow_copy_type", "aten::is_nonzero",
    "aten::size", "aten::stride", "aten::numel", "aten::dim", "aten::record_stream", "aten::_to_copy",
    "aten::to", "aten::type_as", "aten::unflatten", "aten::flatten", "aten::diagonal", "aten::movedim",
    "aten::_nested_tensor_from_mask_left_aligned", "aten::conj", "aten::resolve_conj", "aten::resolve_neg",
    "aten::zeros_like", "aten::ones_like", "aten::new_empty", "aten::new_empty_strided", "aten::scalar_tensor",
}
HOST_SYNCS_CPU = {"aten::_local_scalar_dense", "aten::nonzero", "aten::nonzero_static", "aten::masked_select"}
HOST_SYNCS_CUDA = {"cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize", "cudaMemcpy"}
LAUNCHES_CUDA = ("cudaLaunchKernel", "cuLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernelEx")
FP32_PEAK = {"H100": 67e12, "H200": 67e12, "A100": 19.5e12, "L40S": 91.6e12}
"""Dense float32 (no TF32) FLOP/s by GPU name (NVIDIA data sheets, SXM parts)."""
TF32_PEAK = {"H100": 495e12, "H200": 495e12, "A100": 156e12, "L40S": 183e12}
"""Dense TF32 tensor-core FLOP/s by GPU name (the same data sheets)."""


def rows_for(a, n_mb: int, vocab: int, seed: int = 0) -> list[dict]:
    """n_mb micro-batches of a.rows completions: a.rows / a.k prompt groups each, prompts of a.prompt
    tokens give or take a quarter (so a micro-batch pads, as real ones do), completions of a.new."""
    import random
    rng = random.Random(seed)
    out = []
    for g in range(n_mb * a.rows // a.k):
        p = [rng.randrange(100, vocab) for _ in range(max(1, a.prompt + rng.randint(-a.prompt // 4, a.prompt // 4)))]
        for j in range(a.k):
            c = [rng.randrange(100, vocab) for _ in range(a.new)]
            out.append({"problem_id": f"p{g}", "prompt_ids": p, "completion_ids": c, "advantage": (-1) ** j * 0.5,
                        "finish_reason": "length"})
    return out


def config(a, model_dir: Path, run_dir: str):
    from pipeline.config.file import load_config
    return load_config(ROOT / "config.yaml", [
        f"run.dir={run_dir}", f"run.device={a.device}", f"student.model={model_dir}", "student.dtype=bfloat16",
        f"update.micro_batch_size={a.rows}", "update.grad_accum=1", "update.warm_start=false",
        "update.teacher_sft_coef=0", "run.checkpoint_every=0", *a.overrides])


def counts(prof, cuda: bool) -> dict:
    """Kernel-reaching calls and host syncs in a profile (see the module's docstring)."""
    leaf = [e for e in prof.events() if not e.cpu_children]
    ops = [e.name for e in leaf if e.name.startswith("aten::") and e.name not in METADATA]
    out = {"ops": len(ops), "syncs": sum(n in HOST_SYNCS_CPU for n in ops), "by_name": dict(Counter(ops))}
    if cuda:
        names = [e.name for e in prof.events()]
        out["launches"] = sum(n.startswith(LAUNCHES_CUDA) for n in names)
        out["syncs_cuda"] = sum(n in HOST_SYNCS_CUDA or n.startswith("cudaMemcpy") and "Async" not in n for n in names)
    return out


def profiled(fn, cuda: bool) -> tuple[dict, float, float, object]:
    """fn's counts under the profiler, its wall seconds and this process's CPU seconds (with one
    thread, its compute on the CPU even where other work shares the cores)."""
    import torch
    from torch.profiler import ProfilerActivity, profile
    acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
    with profile(activities=acts) as prof:
        t, c = time.perf_counter(), time.process_time()
        fn()
        if cuda:
            torch.cuda.synchronize()
        secs, cpu = time.perf_counter() - t, time.process_time() - c
    return counts(prof, cuda), secs, cpu, prof


def side_ours(a, model_dir: Path):
    import torch

    from pipeline.engines import forward
    from pipeline.engines.model import load_tokenizer, student_model
    from pipeline.stages.update_loop import train
    forward.FUSED_HEAD = {"auto": "auto", "on": True, "off": False}[a.fused_head]
    with tempfile.TemporaryDirectory() as runs:
        cfg = config(a, model_dir, runs)
        tok = load_tokenizer(cfg.student)
        model = student_model(cfg, trainable=True)

        def one(n_mb: int, seed: int) -> None:
            rows = rows_for(a, n_mb, len(tok), seed)
            g = torch.Generator().manual_seed(seed)
            old = {i: -3 * torch.rand(len(r["completion_ids"]), generator=g) for i, r in enumerate(rows)}
            ref = {i: lp + 0.05 * torch.randn(lp.shape, generator=g) for i, lp in old.items()}
            train(model, rows, cfg.update, cfg.sample.temperature, tok.pad_token_id, seed=seed, show_progress=False,
                  logprobs=(old, ref), max_len=a.new)
        return measure(a, one)


def side_trl(a, model_dir: Path):
    import torch

    from bench.helpers import trl_trainer
    with tempfile.TemporaryDirectory() as runs:
        cfg = config(a, model_dir, runs)
        on_gpu = a.device != "cpu"
        data = [{"prompt": [{"role": "user", "content": "hi"}]}] * a.k
        tr = trl_trainer(cfg, data, [lambda completions, **kw: [0.0] * len(completions)], runs, use_cpu=not on_gpu,
                         bf16=on_gpu, model_init_kwargs={"dtype": "bfloat16"})
        model = tr.model
        model.train()
        params = [p for p in model.parameters() if p.requires_grad]
        opt = torch.optim.AdamW(params, lr=cfg.update.lr, weight_decay=cfg.update.weight_decay)
        tr.current_gradient_accumulation_steps = 1
        dev = next(model.parameters()).device
        pad = tr.processing_class.pad_token_id
        vocab = len(tr.processing_class)

        def batch(rows: list[dict]) -> dict:
            """TRL's layout: prompts left-padded, completions right-padded (_generate_and_score_completions)."""
            p = max(len(r["prompt_ids"]) for r in rows)
            c = max(len(r["completion_ids"]) for r in rows)
            pid = torch.tensor([[pad] * (p - len(r["prompt_ids"])) + r["prompt_ids"] for r in rows])
            cid = torch.tensor([r["completion_ids"] + [pad] * (c - len(r["completion_ids"])) for r in rows])
            pm = torch.tensor([[0] * (p - len(r["prompt_ids"])) + [1] * len(r["prompt_ids"]) for r in rows])
            cm = torch.tensor([[1] * len(r["completion_ids"]) + [0] * (c - len(r["completion_ids"])) for r in rows])
            out = {"prompt_ids": pid, "prompt_mask": pm, "completion_ids": cid, "completion_mask": cm,
                   "advantages": torch.tensor([r["advantage"] for r in rows]), "num_items_in_batch": cm.sum()}
            if tr.beta:
                out["ref_per_token_logps"] = -3 * torch.rand(cid.shape)
            return {k: v.to(dev) for k, v in out.items()}

        def one(n_mb: int, seed: int) -> None:
            rows = rows_for(a, n_mb, vocab, seed)
            for b in range(0, len(rows), a.rows):
                inputs = batch(rows[b:b + a.rows])
                loss = tr.compute_loss(model, inputs)
                tr.accelerator.backward(loss)
                tr.accelerator.clip_grad_norm_(params, cfg.update.max_grad_norm)
                opt.step()
                opt.zero_grad()
        return measure(a, one)


def measure(a, one) -> dict:
    """Warm up, then profile 1 and 1 + a.extra micro-batches; the per-micro-batch difference."""
    import torch
    cuda = a.device != "cpu" and torch.cuda.is_available()
    one(1, 100)  # warm-up: first-call costs (allocations, kernel selection) are not a micro-batch's
    c1, s1, p1, _ = profiled(lambda: one(1, 1), cuda)
    cn, sn, pn, prof = profiled(lambda: one(1 + a.extra, 2), cuda)
    per = {k: (cn[k] - c1[k]) / a.extra for k in c1 if k != "by_name"}
    per["by_name"] = {n: (cn["by_name"].get(n, 0) - c1["by_name"].get(n, 0)) / a.extra
                      for n in set(cn["by_name"]) | set(c1["by_name"])}
    per["secs"], per["cpu_s"] = (sn - s1) / a.extra, (pn - p1) / a.extra
    per["peak_mib"] = peak_bytes(lambda: one(1, 3), cuda) / 2**20
    if a.trace:
        table = prof.key_averages().table(sort_by="self_device_time_total" if cuda else "self_cpu_time_total",
                                          row_limit=30, max_name_column_width=60)
        per["table"] = table
    return per


def peak_bytes(fn, cuda: bool) -> int:
    """The most bytes fn held allocated beyond what it started with: on CUDA the allocator's peak; on the
    CPU from torch.profiler's memory events (an operator's allocations at its start, its frees at its end)."""
    import torch
    if cuda:
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        base = torch.cuda.memory_allocated()
        fn()
        torch.cuda.synchronize()
        return torch.cuda.max_memory_allocated() - base
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        fn()
    points = sorted((e.time_range.start if e.self_cpu_memory_usage > 0 else e.time_range.end, e.self_cpu_memory_usage)
                    for e in prof.events() if e.self_cpu_memory_usage)
    now = peak = 0
    for _, b in points:
        now += b
        peak = max(peak, now)
    return peak


def worked_out(a, per_layer: dict, fixed: dict) -> list[str]:
    """Per micro-batch at the real depth: passes under max_batch_tokens auto, padding against TRL's
    layout, log-softmax chunks, FLOPs of the body and of the head, on a GPU's peaks."""
    from transformers import AutoConfig

    from pipeline.engines.forward import FUSED_CHUNK_ELEMS, LOGIT_CHUNK_ELEMS, bytes_per_token
    h, layers, heads, kv, inter = SHAPES[a.shape]
    c = AutoConfig.from_pretrained(build_student(a.shape, None, Path(a.models), "cpu", layers=a.layers, bf16=True))
    c.num_hidden_layers = layers
    v = c.vocab_size
    seq = a.prompt + a.new
    tokens = a.rows * seq
    notes = []
    body = layers * (2 * h * h + 2 * h * kv * h // heads + 3 * h * inter)  # matmul parameters of the decoder layers
    head = v * h
    weights = 2 * (body + head) + 4 * head  # bf16, and fp32_head's float32 copy
    free = a.gpu_gib * 2**30 - weights
    budget = max(256, int(0.6 * free / bytes_per_token(c, 2, True)))
    passes = math.ceil(a.rows / max(1, budget // seq))
    notes.append(f"max_batch_tokens auto on a {a.gpu_gib} GiB GPU: {budget} padded tokens a pass "
                 f"({bytes_per_token(c, 2, True) / 1e6:.2f} MB a token), so a micro-batch of {a.rows} x {seq} "
                 f"({tokens} tokens) runs as {passes} pass(es)")
    mb = rows_for(a, 1, v)
    real = sum(len(r["prompt_ids"]) + len(r["completion_ids"]) for r in mb)
    ours = len(mb) * max(len(r["prompt_ids"]) + len(r["completion_ids"]) for r in mb)
    trl = len(mb) * (max(len(r["prompt_ids"]) for r in mb) + max(len(r["completion_ids"]) for r in mb))
    notes.append(f"padding: {real} real tokens a micro-batch; ours pads each row to the longest prompt + completion, "
                 f"{ours} tokens; TRL's layout (prompts left-padded, completions right-padded) {trl}")
    per_chunk = max(1, LOGIT_CHUNK_ELEMS // ((a.new + 1) * v))
    chunks = math.ceil(a.rows / per_chunk)
    fused = max(1, FUSED_CHUNK_ELEMS // (a.new * v))
    notes.append(f"float32 log-softmax on the CPU: {chunks} chunk(s) of {min(per_chunk, a.rows)} rows "
                 f"({'one piece, no recompute' if chunks == 1 else 'each recomputed in the backward pass'}); "
                 f"the logits (B x {a.new} x {v}, float32) {a.rows * a.new * v * 4 / 2**30:.2f} GiB a copy; on "
                 f"CUDA the fused head (forward.FUSED_HEAD) {math.ceil(a.rows / fused)} chunk(s) of {min(fused, a.rows)} "
                 f"rows, {min(fused, a.rows) * a.new * v * 4 / 2**30:.2f} GiB a copy; TRL's fused head none (tiles "
                 "of its chunked kernel)")
    gpu = "H100"
    flops_body = 4 * body * tokens  # LoRA: forward 2N, backward activation gradients 2N a token
    flops_head = 4 * head * a.rows * a.new  # completion positions only (logits_to_keep)
    t_body = flops_body / PEAK_BF16[gpu]
    t_head32, t_tf32, t_head16 = (flops_head / FP32_PEAK[gpu], flops_head / TF32_PEAK[gpu],
                                  flops_head / PEAK_BF16[gpu])
    notes.append(f"FLOPs a micro-batch at {layers} layers: body {flops_body / 1e12:.1f} TFLOP (bf16: {1e3 * t_body:.0f} ms "
                 f"at an {gpu}'s peak), LM head {flops_head / 1e12:.2f} TFLOP: on float32 units (ours until "
                 f"ExactTF32Linear) {1e3 * t_head32:.0f} ms, on TF32 tensor cores (ours) {1e3 * t_tf32:.1f} ms, "
                 f"bf16 (TRL) {1e3 * t_head16:.1f} ms, each at its peak")
    for side in ("ours", "trl"):
        if side in per_layer:
            pl, fx = per_layer[side], fixed[side]
            total = {k: fx[k] + layers * pl[k] for k in pl}
            notes.append(f"{side}: {pl['ops']:.0f} kernel-reaching calls a decoder layer + {fx['ops']:.0f} fixed = "
                         f"{total['ops']:.0f} a micro-batch at {layers} layers; host syncs {total['syncs']:.0f}; peak "
                         f"memory {pl['peak_mib']:.0f} MiB a decoder layer + {fx['peak_mib']:.0f} MiB fixed = "
                         f"{total['peak_mib'] / 1024:.1f} GiB beyond the weights at {layers} layers")
    return notes


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shape", default="1.5b", choices=[s for s in SHAPES if s != "tiny"] + ["tiny"])
    ap.add_argument("--layers", type=int, default=2, help="decoder layers of the first build")
    ap.add_argument("--layers2", type=int, default=4, help="decoder layers of the second build (per-layer split)")
    ap.add_argument("--rows", type=int, default=16, help="completions a micro-batch (update.micro_batch_size)")
    ap.add_argument("--k", type=int, default=8, help="completions a prompt (group size)")
    ap.add_argument("--prompt", type=int, default=100, help="prompt tokens (give or take a quarter)")
    ap.add_argument("--new", type=int, default=64, help="completion tokens (the FLOPs line uses them too)")
    ap.add_argument("--extra", type=int, default=2, help="micro-batches profiled beyond the first")
    ap.add_argument("--gpu-gib", type=float, default=80.0, help="GPU memory for the max_batch_tokens line")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--fused-head", choices=["auto", "on", "off"], default="auto",
                    help="ours: the LM head applied a chunk of rows at a time (forward.FUSED_HEAD; auto: on CUDA only)")
    ap.add_argument("--models", default=str(ROOT / "runs" / ".bench-update"), help="where the random students go")
    ap.add_argument("--trace", metavar="DIR", help="write each side's operator table there")
    ap.add_argument("--no-record", action="store_true", help="print the table, do not append it to RESULTS.md")
    ap.add_argument("--side", choices=["ours", "trl"], help=argparse.SUPPRESS)
    ap.add_argument("--model-dir", action="append", help=argparse.SUPPRESS)
    ap.add_argument("overrides", nargs="*", help="key.sub=value overrides for both sides' config")
    a = ap.parse_args()
    if a.rows % a.k:
        ap.error(f"--rows {a.rows} is not a multiple of --k {a.k}: a micro-batch holds whole prompt groups")
    if a.side:  # a side's process: one JSON line a depth, in --model-dir's order
        for model_dir in a.model_dir:
            print(json.dumps({"ours": side_ours, "trl": side_trl}[a.side](a, Path(model_dir))), flush=True)
            gc.collect()  # the first depth's model and optimizer go before the second's are built
            if "torch" in sys.modules and sys.modules["torch"].cuda.is_available():
                sys.modules["torch"].cuda.empty_cache()
        return 0
    res: dict = {}
    depths = (a.layers, a.layers2)
    dirs = [build_student(a.shape, None, Path(a.models), "cpu", layers=layers, bf16=True) for layers in depths]
    for side in ("ours", "trl"):
        # both depths in one process: its imports (most of a small build's seconds) are paid once a side
        cmd = [sys.executable, __file__, "--side", side, *(x for d in dirs for x in ("--model-dir", str(d))),
               "--shape", a.shape, "--rows", str(a.rows), "--k", str(a.k), "--prompt", str(a.prompt), "--new",
               str(a.new), "--extra", str(a.extra), "--device", a.device, "--fused-head", a.fused_head,
               *(["--trace", a.trace] if a.trace else []),
               *a.overrides]
        p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        if p.returncode != 0:
            print(p.stdout[-3000:], p.stderr[-5000:], file=sys.stderr)
            raise SystemExit(f"{side} failed ({p.returncode}): {(p.stderr.strip().splitlines() or [''])[-1]}")
        found = [json.loads(line) for line in p.stdout.strip().splitlines() if line.startswith("{")][-len(depths):]
        if len(found) != len(depths):
            raise SystemExit(f"{side} printed {len(found)} result line(s) for {len(depths)} depths: {p.stdout[-2000:]}")
        for layers, r in zip(depths, found):
            res[(side, layers)] = r
            if a.trace:
                Path(a.trace).mkdir(parents=True, exist_ok=True)
                (Path(a.trace) / f"{side}-{layers}l.txt").write_text(res[(side, layers)].pop("table"))
            print(side, layers, {k: round(v, 3) for k, v in res[(side, layers)].items() if k != "by_name"}, flush=True)
    keys = [k for k in res[("ours", a.layers)] if k not in ("table", "by_name")]
    dl = a.layers2 - a.layers
    per_layer = {s: {k: (res[(s, a.layers2)][k] - res[(s, a.layers)][k]) / dl for k in keys} for s in ("ours", "trl")}
    fixed = {s: {k: res[(s, a.layers)][k] - a.layers * per_layer[s][k] for k in keys} for s in ("ours", "trl")}
    cuda = "launches" in keys
    lines = ["| side | layers | kernel-reaching calls | host syncs | " + ("kernel launches | CUDA syncs | " if cuda else "")
             + "seconds | CPU seconds | calls a layer | fixed calls | peak MiB |", "|---" * (11 if cuda else 9) + "|"]
    for s in ("ours", "trl"):
        for layers in (a.layers, a.layers2):
            r = res[(s, layers)]
            lines.append(f"| {s} | {layers} | {r['ops']:.0f} | {r['syncs']:.0f} | "
                         + (f"{r['launches']:.0f} | {r['syncs_cuda']:.0f} | " if cuda else "")
                         + f"{r['secs']:.2f} | {r['cpu_s']:.2f} | {per_layer[s]['ops']:.0f} | {fixed[s]['ops']:.0f} | "
                         f"{r['peak_mib']:.0f} |")
    notes = worked_out(a, per_layer, fixed)
    ours, trl = res[("ours", a.layers)]["by_name"], res[("trl", a.layers)]["by_name"]
    diff = sorted(((ours.get(n, 0) - trl.get(n, 0), n) for n in set(ours) | set(trl)), key=lambda d: -abs(d[0]))
    notes.append(f"calls ours - TRL by operator at {a.layers} layer(s), the largest: "
                 + ", ".join(f"{n.removeprefix('aten::')} {d:+.0f}" for d, n in diff[:12] if d))
    setup = (f"One micro-batch of {a.rows} completions ({a.rows // a.k} prompt groups, prompts of about {a.prompt} "
             f"tokens, completions of {a.new}) and its optimizer step, per micro-batch (the difference of 1 and "
             f"{1 + a.extra} micro-batches), random-weight Qwen2 {a.shape} widths with {a.layers} and {a.layers2} "
             f"decoder layers, bf16, on {a.device}; ours: update_loop.train, TRL: GRPOTrainer.compute_loss + "
             "backward + clip + AdamW step.")
    title = f"update: one micro-batch under torch.profiler, ours against TRL (bench/update_profile.py --shape {a.shape})"
    if a.no_record:
        print("\n".join([title, *lines, *notes, setup]))
    else:
        record(title, lines, *notes, setup)
    return 0


if __name__ == "__main__":
    sys.exit(main())
