"""What every config section shares: the base class (unknown keys refused), the runtime-only marker,
the error a user can fix, and a path type with ~ expanded."""
from __future__ import annotations

import os
import types
import typing
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, ValidationInfo, field_validator

class ConfigError(ValueError):
    """A config problem a user can fix; the message names the key and what to do."""


def _members(annotation: Any) -> set:
    """The plain types an annotation accepts: int | Literal['auto'] -> {int, Literal['auto']}, Annotated stripped."""
    if typing.get_origin(annotation) is Annotated:
        return _members(typing.get_args(annotation)[0])
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return set().union(*(_members(a) for a in typing.get_args(annotation)))
    return {annotation}


class Section(BaseModel):
    # no key takes an infinite or NaN number: update.lr=.inf passed, and diverged at the first step
    model_config = ConfigDict(extra="forbid", validate_assignment=True, allow_inf_nan=False)

    @field_validator("*", mode="before")
    @classmethod
    def _no_bool_for_number(cls, v: Any, info: ValidationInfo) -> Any:
        """true/false is no number: pydantic would read update.kl_coef=true as 1.0 (a YAML 0 or 1 stays a number),
        nor an item of a list of numbers (judge.python.weights=[true])."""
        if isinstance(v, list) and any(isinstance(x, bool) for x in v) and info.field_name in cls.model_fields:
            items = {a for k in _members(cls.model_fields[info.field_name].annotation)
                     if typing.get_origin(k) in (list, tuple) for a in typing.get_args(k)}
            if items & {int, float} and not items & {bool, Any}:
                raise ValueError("give numbers, not true/false")
        if isinstance(v, bool) and info.field_name in cls.model_fields:
            kinds = _members(cls.model_fields[info.field_name].annotation)
            if kinds & {int, float} and not kinds & {bool, Any}:
                default = cls.model_fields[info.field_name].default
                words = [str(w) for k in kinds if typing.get_origin(k) is typing.Literal for w in typing.get_args(k)]
                raise ValueError(f"give a number{''.join(' or ' + w for w in words)}, not {str(v).lower()}"
                                 + (f" (the default is {default})" if isinstance(default, (int, float)) else ""))
        return v


RUNTIME = {"runtime": True}
"""json_schema_extra of a field that changes how fast or where a stage runs, never what it computes
(beyond float summation order): left out of every fingerprint (`Config.fingerprinted`), so changing
it, or adding such a key, never makes an artifact recompute."""


HomePath = Annotated[str, AfterValidator(os.path.expanduser)]  # a leading ~ is the home directory


def not_empty(value: str, what: str) -> str:
    """`value`, unless empty or blank (a path '' reads as the working directory): a ValueError saying what to give."""
    if not value.strip():
        raise ValueError(f"is empty: {what}")
    return value
