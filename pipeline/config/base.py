"""What every config section shares: the base class (unknown keys refused), the runtime-only marker,
the error a user can fix, and a path type with ~ expanded."""
from __future__ import annotations

import os
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict

class ConfigError(ValueError):
    """A config problem a user can fix; the message names the key and what to do."""


class Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


RUNTIME = {"runtime": True}
"""json_schema_extra of a field that changes how fast or where a stage runs, never what it computes
(beyond float summation order): left out of every fingerprint (`Config.fingerprinted`), so changing
it, or adding such a key, never makes an artifact recompute."""


HomePath = Annotated[str, AfterValidator(os.path.expanduser)]  # a leading ~ is the home directory
