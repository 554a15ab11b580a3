"""Several processes: `accelerate launch --num_processes N -m pipeline.cli epoch 4` (or
`rlaif epoch 4 --processes N`, which runs that for you).

Every rank walks the same epoch in step. What each does (DESIGN.md, "Devices and scale"):

- prompts, teacher, judge, reward, select: rank 0 alone (the judge cache is one SQLite
  database, opened by one process); the others wait for it, then read what it wrote.
- sample and eval: each rank generates for its share of the prompts (`shard`); rank 0 gathers the
  rows, judges (eval) and writes. Sampling seeds come from the run, the epoch, the prompt and the
  sample index (pipeline/engines/hf.py), never the rank, so the samples do not depend on N.
- logprobs: each rank computes its share of the rows; rank 0 gathers and writes.
- update: data-parallel through accelerate (DDP; FSDP or DeepSpeed with the accelerate config the
  user passes). Each global micro-batch of `update.micro_batch_size` rows is split over the ranks,
  so the process count changes no result, and no fingerprint.

Only rank 0 writes artifacts, manifests and checkpoints, and it holds the run lock for all.
Control messages (barriers, gathered rows, errors) go over a gloo group on the CPU with a long
timeout (`run.dist_timeout_s`): the other ranks may wait hours while rank 0 judges through a
batch API, and a NCCL barrier would time out after 10 minutes.

With one process (no WORLD_SIZE in the environment) every call here is the identity or a no-op.
"""
from __future__ import annotations

import logging
import os
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any, Callable, Sequence, TypeVar

T = TypeVar("T")
log = logging.getLogger(__name__)


class RankFailed(RuntimeError):
    """Raised on every rank when the one rank that ran a step (rank 0) failed; carries its message."""


def world_size() -> int:
    return int(os.environ.get("WORLD_SIZE", "1"))


def rank() -> int:
    return int(os.environ.get("RANK", "0"))


def local_rank() -> int:
    return int(os.environ.get("LOCAL_RANK", "0"))


def is_main() -> bool:
    return rank() == 0


_group = None


def init(device, timeout_s: float) -> None:
    """Join the process group (once per process; nothing with one process). device: this rank's
    torch device (cuda -> NCCL for the update's all-reduce, cpu -> gloo); control messages always
    go over a gloo group of their own."""
    global _group
    if world_size() == 1 or _group is not None:
        return
    import torch.distributed as dist
    from accelerate import PartialState
    timeout = timedelta(seconds=timeout_s)
    PartialState(cpu=device.type == "cpu", timeout=timeout)
    print(f"rank {rank()}/{world_size()} (pid {os.getpid()}) on {device}", flush=True)
    _group = dist.new_group(backend="gloo", timeout=timeout) if dist.get_backend() != "gloo" else dist.group.WORLD


def joined() -> bool:
    """Whether this process is in a process group (a launched rank after init)."""
    return _group is not None


def close(ok: bool = True) -> bool:
    """Leave the process group at the end of a command, on every rank; True when this process was
    in one (a launched rank, which then exits at once: pipeline.cli.main.main). With ok (the command
    succeeded on this rank), first wait for every rank to get here, so no rank tears its side of
    the group down while another still works. A rank that exits with its gloo group up can abort
    in the group's destructor ("terminate called without an active exception", SIGABRT) after its
    work is done, and the launcher then fails the whole run."""
    global _group
    if _group is None:
        return False
    import torch.distributed as dist
    if dist.is_initialized():
        if ok:
            try:
                dist.barrier(group=_group)
            except Exception as e:  # noqa: BLE001 (a peer gone at the very end: its own exit code says so)
                log.warning("rank %d: the closing barrier failed (%s)", rank(), e)
        dist.destroy_process_group()
    _group = None
    return True


def barrier() -> None:
    if _group is not None:
        import torch.distributed as dist
        dist.barrier(group=_group)


def gather(obj: T) -> list[T] | None:
    """Every rank's obj, in rank order, on rank 0 (None elsewhere). One process: [obj]."""
    if _group is None:
        return [obj]
    import torch.distributed as dist
    out: list[Any] = [None] * world_size() if is_main() else None
    dist.gather_object(obj, out, dst=0, group=_group)
    return out


def broadcast(obj: T) -> T:
    """Rank 0's obj on every rank."""
    if _group is None:
        return obj
    import torch.distributed as dist
    box = [obj if is_main() else None]
    dist.broadcast_object_list(box, src=0, group=_group)
    return box[0]


def on_main(fn: Callable[[], T]) -> T:
    """Run fn on rank 0 alone and hand its result to every rank. When it raises, every rank raises:
    rank 0 its own exception, the others RankFailed with its message, so all ranks stop cleanly
    instead of waiting for a rank that will never come."""
    if _group is None:
        return fn()
    result, error = None, None
    if is_main():
        try:
            result = fn()
        except BaseException as e:  # noqa: BLE001 (re-raised below, on every rank)
            error = e
    ok, value = broadcast((error is None, result if error is None else f"{type(error).__name__}: {error}"))
    if error is not None:
        raise error
    if not ok:
        raise RankFailed(f"rank 0 failed: {value}")
    return value


def shard(items: Sequence[T]) -> list[int]:
    """The indices of `items` this rank works on: contiguous, as even as can be, in order (rank 0
    the first share). Concatenated in rank order they are range(len(items))."""
    n, w, r = len(items), world_size(), rank()
    lo, hi = n * r // w, n * (r + 1) // w
    return list(range(lo, hi))


def merge(parts: list[list[T]] | None) -> list[T]:
    """The gathered shares (rank order) as one list: what one process would have made."""
    return [x for part in (parts or []) for x in part]


def kill_point(where: str) -> None:
    """Fault injection for the multi-process crash tests: with RLAIF_KILL_AT=<where> (e.g. "sample",
    "update-step-3"), the rank named by RLAIF_KILL_RANK (default 1) kills itself with SIGKILL there."""
    if os.environ.get("RLAIF_KILL_AT") == where and rank() == int(os.environ.get("RLAIF_KILL_RANK", "1")):
        import signal
        print(f"rank {rank()} killing itself at {where}", flush=True)
        os.kill(os.getpid(), signal.SIGKILL)


def launch(n: int, accelerate_config: str | None, argv: list[str]) -> int:
    """`rlaif ... --processes N`: the same command under `accelerate launch` on N processes. With an
    accelerate config file, the file says how (FSDP, several machines; DeepSpeed refused); without one, plain DDP
    on this machine (accelerate's --multi_gpu launcher, which also runs CPU processes over gloo)."""
    import socket
    import subprocess
    if accelerate_config and (why := _refused(accelerate_config)):
        print(f"error: --accelerate-config {accelerate_config}: {why}", file=sys.stderr)
        return 2
    rest, skip = [], False
    for x in argv:  # the command without --processes / --accelerate-config
        if skip:
            skip = False
        elif x in ("--processes", "--accelerate-config"):
            skip = True
        elif not x.startswith(("--processes=", "--accelerate-config=")):
            rest.append(x)
    with socket.socket() as sock:  # a free port, so two runs on one machine do not collide
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    threads = os.environ.get("OMP_NUM_THREADS", str(max(1, (os.cpu_count() or 1) // n)))
    how = (["--config_file", accelerate_config] if accelerate_config else
           ["--multi_gpu", "--num_machines", "1", "--main_process_port", str(port), "--mixed_precision", "no",
            "--dynamo_backend", "no", "--num_cpu_threads_per_process", threads])
    cmd = [sys.executable, "-m", "accelerate.commands.launch", *how, "--num_processes", str(n),
           "-m", "pipeline.cli", *rest]
    print("launching: " + " ".join(cmd[2:]), flush=True)
    import signal
    proc = subprocess.Popen(cmd)
    # SIGTERM (a scheduler's stop) passed on to accelerate's launcher, which stops every rank: each stops as
    # Ctrl-C does, rank 0 saying how to resume (without this the launcher died alone, its ranks left running)
    termed = []

    def term(*_):
        termed.append(True)
        proc.send_signal(signal.SIGTERM)
    old = signal.signal(signal.SIGTERM, term)
    try:
        rc = proc.wait()
        return 143 if termed else rc
    except KeyboardInterrupt:   # (the terminal sent it to the whole group: the ranks have it too)
        try:
            proc.wait(timeout=60)
        except (KeyboardInterrupt, subprocess.TimeoutExpired):   # a second Ctrl-C, or ranks that do not stop
            proc.kill()
            proc.wait()
        return 130
    finally:
        signal.signal(signal.SIGTERM, old)


def _refused(path: str) -> str | None:
    """Why accelerate's config file cannot run this tool's stages (None if it can): unreadable, or DeepSpeed,
    which the update refuses (said here, before any process starts, not when the update stage begins)."""
    import json
    import yaml
    try:
        text = Path(path).expanduser().read_text()
        # as accelerate reads it: json for a .json file (a tab-indented one is no YAML), else YAML
        conf = json.loads(text) if path.endswith(".json") else yaml.safe_load(text)
    except (OSError, UnicodeDecodeError, ValueError, yaml.YAMLError) as e:
        return f"cannot read it ({getattr(e, 'strerror', None) or e}); give the file `accelerate config` wrote"
    if not isinstance(conf, dict):
        return "not an accelerate config (a YAML or JSON mapping, as `accelerate config` writes)"
    kind = str(conf.get("distributed_type", "")).upper()
    if kind == "DEEPSPEED":
        return ("DeepSpeed: the update does not run under it (it accumulates gradients itself, and DeepSpeed's "
                "engine steps on every backward); use DDP (no --accelerate-config) or FSDP (distributed_type: FSDP)")
    if kind == "FSDP":   # (accelerate's FSDP plugin wants an accelerator: on a CPU the update failed, after the judging)
        import torch
        if not (torch.cuda.is_available() or (hasattr(torch, "xpu") and torch.xpu.is_available())):
            return ("FSDP shards the model over GPUs, and this machine has none: accelerate's FSDP plugin refuses "
                    "to start on a CPU; run without --accelerate-config (DDP, over gloo on the CPU)")
    return None

