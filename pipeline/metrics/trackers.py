"""Optional experiment-tracker logging (TensorBoard, W&B) through accelerate's trackers.

Off by default (`run.trackers: []`). Each finished epoch logs its numeric metrics at step =
epoch; TensorBoard writes under runs/<run>/trackers/. W&B logs into project "rlaif", one W&B run per run directory
(named run.name, resumed by every later epoch), and reads its own environment (WANDB_API_KEY,
WANDB_MODE=offline, ...).
"""
from __future__ import annotations

import hashlib
from pathlib import Path

from pipeline.config.schema import Config
from pipeline.config.errors import RunError


def log_epoch(cfg: Config, run_dir: Path, epoch: int, metrics: dict) -> None:
    if not cfg.run.trackers:
        return
    from accelerate import PartialState
    from accelerate.tracking import TensorBoardTracker, WandBTracker
    PartialState()   # accelerate's trackers log through its logger, which needs the state: an epoch whose stages
    # were all reused from disk has made none in this process
    values = {k: float(v) for k, v in metrics.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    for name in cfg.run.trackers:
        try:
            if name == "tensorboard":
                tracker = TensorBoardTracker(cfg.run.name, run_dir / "trackers")
            else:
                # accelerate passes its first argument to wandb.init as the project: "rlaif", the run's name as
                # the W&B run's; one W&B run id per run directory, so every epoch (each its own process) logs
                # into the same W&B run
                run_id = "rlaif-" + hashlib.sha256(str(run_dir.resolve()).encode()).hexdigest()[:16]
                tracker = WandBTracker("rlaif", name=cfg.run.name, id=run_id, resume="allow",
                                       dir=str(run_dir / "trackers"))
            tracker.start()
        except ImportError as e:
            raise RunError(f"run.trackers includes {name}, whose package is not installed ({e}); "
                           f"`pip install -e '.[trackers]'` in this project's checkout or `pip install {name}`, or take it "
                           "out of run.trackers") from None
        tracker.log(values, step=epoch)
        tracker.finish()
