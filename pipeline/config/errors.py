"""The error a user acts on: raised anywhere in the pipeline, printed by `rlaif` without a traceback."""
from __future__ import annotations


class RunError(RuntimeError):
    """Something the user must do before the run can go on; the message says what."""
