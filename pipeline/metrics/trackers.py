"""Optional experiment-tracker logging (TensorBoard, W&B) through accelerate's trackers.

Off by default (`run.trackers: []`). Each finished epoch logs its numeric metrics at step =
epoch; TensorBoard writes under runs/<run>/trackers/. W&B reads its own environment
(WANDB_API_KEY, WANDB_MODE=offline, ...).
"""
from __future__ import annotations

from pathlib import Path

from pipeline.config.schema import Config
from pipeline.config.errors import RunError


def log_epoch(cfg: Config, run_dir: Path, epoch: int, metrics: dict) -> None:
    if not cfg.run.trackers:
        return
    from accelerate.tracking import TensorBoardTracker, WandBTracker
    values = {k: float(v) for k, v in metrics.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    for name in cfg.run.trackers:
        try:
            if name == "tensorboard":
                tracker = TensorBoardTracker(cfg.run.name, run_dir / "trackers")
            else:
                tracker = WandBTracker(cfg.run.name, project="rlaif")
            tracker.start()
        except ImportError as e:
            raise RunError(f"run.trackers includes {name}, whose package is not installed ({e}); "
                           f"pip install {name if name != 'tensorboard' else 'tensorboard'} or remove it") from None
        tracker.log(values, step=epoch)
        tracker.finish()
