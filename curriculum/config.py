"""The curriculum's settings: the `curriculum:` section of the pipeline's config.

It lives here, beside the code that reads it, so the curriculum needs nothing from the pipeline;
`pipeline/config/schema.py` places it in the one config.
"""
from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator


class CurriculumConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)  # as every config section

    strategy: Literal["none", "linear", "adaptive"] = Field("none", description="Prompt scheduling. none: a seeded permutation walked epoch by epoch; linear: the share of harder buckets grows each epoch; adaptive: prefer prompts whose recent student success lies in [band_low, band_high].")
    buckets: Literal["thresholds", "quantiles"] = Field("thresholds", description="How difficulty estimates become easy/medium/hard buckets.")
    easy_below: float = Field(0.35, ge=0, le=1, description="thresholds: difficulty below this is easy.")
    hard_above: float = Field(0.65, ge=0, le=1, description="thresholds: difficulty above this is hard.")
    band_low: float = Field(0.2, ge=0, le=1, description="adaptive: lower end of the learnable band of recent student success.")
    band_high: float = Field(0.8, ge=0, le=1, description="adaptive: upper end of the learnable band (always-solved prompts give zero-variance groups).")
    history_window: int = Field(3, ge=1, description="Epochs of student score history used per prompt.")
    explore_frac: float = Field(0.25, ge=0, le=1, description="adaptive: share of prompts drawn from outside the band / unseen prompts, so estimates stay fresh.")
    linear_start: list[float] = Field(default_factory=lambda: [0.6, 0.3, 0.1], description="linear: easy/medium/hard shares at epoch 1.")
    linear_end: list[float] = Field(default_factory=lambda: [0.2, 0.4, 0.4], description="linear: shares reached at linear_epochs.")
    linear_epochs: int = Field(5, ge=1, description="linear: epochs to move from linear_start to linear_end.")

    @field_validator("*", mode="before")
    @classmethod
    def _no_bool_for_number(cls, v: Any, info: ValidationInfo) -> Any:
        """true/false is no number (pydantic would read curriculum.band_low=true as 1.0), as in every section."""
        default = cls.model_fields[info.field_name].get_default(call_default_factory=True)
        if isinstance(default, list) and isinstance(v, list) and any(isinstance(x, bool) for x in v):
            raise ValueError(f"give numbers, not true/false (the default is {default})")
        if isinstance(v, bool) and isinstance(default, (int, float)) and not isinstance(default, bool):
            raise ValueError(f"give a number, not {str(v).lower()} (the default is {default})")
        return v

    @model_validator(mode="after")
    def _ordered(self) -> "CurriculumConfig":
        """What the strategy and buckets in use read, checked when the config is read (the prompts stage said
        it, as a traceback, after the run's directory was made): each pair's low end at or below its high end,
        linear's shares three non-negative numbers. Settings the strategy does not read are not checked."""
        pairs = ([("easy_below", "hard_above", "0.35 and 0.65")] if self.buckets == "thresholds" else []) + \
            ([("band_low", "band_high", "0.2 to 0.8")] if self.strategy == "adaptive" else [])
        for low, high, default in pairs:
            if getattr(self, low) > getattr(self, high):
                raise ValueError(f"curriculum.{low}={getattr(self, low)} is above curriculum.{high}={getattr(self, high)}; "
                                 f"set {low} <= {high} (default {default})")
        for key in ("linear_start", "linear_end") if self.strategy == "linear" else ():
            v = getattr(self, key)
            if len(v) != 3 or min(v) < 0 or sum(v) <= 0:
                raise ValueError(f"curriculum.{key}={v} must be three non-negative easy/medium/hard shares with a "
                                 "positive sum, e.g. [0.6, 0.3, 0.1]")
        return self

