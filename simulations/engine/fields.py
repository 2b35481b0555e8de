"""What every kind's parameters are built from: the strict base model, the errors, the bounds, the labels
made from the names, and the pieces several kinds share (the throughput of a training job).

Each kind's own pydantic model lives in its package (``simulations.engine.kinds.<kind>.params``). Every
field has a default, so ``{}`` is a valid parameter set; unknown keys are rejected so that a typo never
silently falls back to a default. Units are in the field names. Where each default comes from is
documented in docs/scenarios.md.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args, get_origin

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    model_validator,
)

from campus.catalog_data import default_value


class FieldError(ValueError):
    """A check across fields (a model validator) that belongs to one field: ``field`` is its path from the
    model checked ("events[1].start_hours"), so the error is keyed on it and not on the model."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        super().__init__(message)


# Bounds of the durations, steps and sizes (docs/scenarios.md, "Bounds"): beyond them a run means nothing a
# planner asks (a year of grid steps, a week of seconds of coolant) and the engine's arrays or figures blow up.
HOURS_A_YEAR = 8760.0
MINUTES_A_WEEK = 7 * 24 * 60.0
MINUTES_A_YEAR = 365 * 24 * 60.0
# A checkpoint interval longer than any run (never a checkpoint within it) is a use: up to ten years.
MAX_CHECKPOINT_MINUTES = 10 * MINUTES_A_YEAR
SECONDS_A_DAY = 86_400.0
SECONDS_A_WEEK = 7 * 86_400.0
MAX_FAILURE_DAYS = 3650.0  # ten years of failures (long runs make tight statistics)
MAX_GRID_STEPS = 1_000_000  # grid_limit: duration / step (a year at 1 min is 525,600)
MAX_KW = 1e8  # any power of the campus, kW (100 GW)
MAX_KWH = 1e9  # any stored energy, kWh (1 TWh)
MAX_MW = MAX_KW / 1000.0
MAX_MWH = MAX_KWH / 1000.0
MIN_BAND_HZ = 0.001  # power_dynamics: lowest frequency of the oscillation band
MAX_PUE = 10.0  # the worst facilities measure 2-3; past 10 a figure is a typo
MAX_PRICE_USD_PER_KWH = 100.0  # ~1,000 times an industrial rate


def is_stored(info: ValidationInfo) -> bool:
    """Whether the parameters are read back from a run already made (``validate_params(..., stored=True)``):
    the checks of a new run's window and steps, added after such runs were stored, are not applied to them,
    so their explanation still reads them."""
    return bool(info.context and info.context.get("stored"))


def starts_within(items: list[Any], attr: str, name: str, end: float, unit: str) -> None:
    """Each item of the list ``name`` starts (``attr``) before the run's end ``end``: an event after the end
    would change nothing, silently."""
    for i, item in enumerate(items):
        start = getattr(item, attr)
        if start >= end:
            raise FieldError(
                f"{name}[{i}].{attr}",
                f"starts at {start:g} {unit}, not before the run ends ({end:g} {unit}): it would change nothing",
            )


class ParamsError(ValueError):
    """Invalid scenario parameters; ``errors`` is a list of {"field": "a.b[0].c", "message": ...}."""

    def __init__(self, errors: list[dict[str, str]]) -> None:
        self.errors = errors
        super().__init__("; ".join(f"{e['field']}: {e['message']}" for e in errors))


# Unit suffixes of parameter names as a label shows them ("generator_start_delay_s" -> "Generator start delay
# (s)"); the longest suffix that matches wins.
_UNITS: dict[str, str] = {
    "j_per_k_per_kw": "J/K per kW",
    "mw_per_min": "MW/min",
    "mw_per_s": "MW/s",
    "w_per_s": "W/s",
    "j_per_gpu": "J per GPU",
    "seconds": "s",
    "ms": "ms",
    "hz": "Hz",
    "w_per_k_per_kw": "W/K per kW",
    "l_per_kw": "L per kW",
    "usd_per_kwh": "USD/kWh",
    "gb_per_gpu": "GB per GPU",
    "minutes": "min",
    "hours": "h",
    "days": "d",
    "s": "s",
    "kwh": "kWh",
    "mwh": "MWh",
    "kw": "kW",
    "mw": "MW",
    "w": "W",
    "c": "°C",
    "k": "K",
    "gbps": "Gbit/s",
    "fraction": "0–1",
    "probability": "0–1",
}
# Words kept as written: acronyms and names.
_WORDS: dict[str, str] = {
    w.lower(): w
    for w in (
        "GPU",
        "GPUs",
        "CPU",
        "PUE",
        "MFU",
        "TDP",
        "UPS",
        "PDU",
        "CDU",
        "HBM",
        "NCCL",
        "SDC",
        "NIC",
        "IT",
        "ID",
        "MW",
        "kW",
        "FP8",
        "BF16",
        "FP16",
        "TF32",
        "FP32",
        "MTBF",
    )
}


def title_of(name: str, _field: Any = None) -> str:
    """A parameter's label with its unit: "generator_start_delay_s" -> "Generator start delay (s)"."""
    words = name.split("_")
    unit = None
    for size in (5, 4, 3, 2, 1):
        key = "_".join(words[-size:])
        if len(words) > size and key in _UNITS:
            unit = _UNITS[key]
            if key not in ("fraction", "probability"):
                words = words[:-size]
            break
    text = " ".join(_WORDS.get(w, w) for w in words)
    text = text[0].upper() + text[1:] if text else text
    return f"{text} ({unit})" if unit else text


def _leaf_types(annotation: Any) -> set[Any]:
    """The types a value of ``annotation`` may hold at its leaves (through unions, lists, dicts, Annotated)."""
    origin = get_origin(annotation)
    if origin is Annotated:
        return _leaf_types(get_args(annotation)[0])
    if origin is Literal:
        return {type(v) for v in get_args(annotation)}
    args = get_args(annotation)
    if args:
        return set().union(*(_leaf_types(a) for a in args))
    return {annotation}


def _boolean_in(value: Any, path: str) -> str | None:
    """The path of the first JSON boolean in ``value`` (itself, a list's item or a mapping's value)."""
    if isinstance(value, bool):
        return path
    items = enumerate(value) if isinstance(value, list) else value.items() if isinstance(value, dict) else ()
    for key, item in items:
        found = _boolean_in(item, f"{path}[{key}]" if isinstance(key, int) else f"{path}.{key}")
        if found:
            return found
    return None


class ParamsBase(BaseModel):
    """Every Params model's base: unknown keys rejected, field docstrings become the descriptions the form
    shows as help, and every title carries the unit of its name (``title_of``)."""

    model_config = ConfigDict(
        extra="forbid", frozen=True, use_attribute_docstrings=True, field_title_generator=title_of
    )

    @model_validator(mode="before")
    @classmethod
    def _no_boolean_numbers(cls, data: Any) -> Any:
        """A JSON true/false given for a number is refused (pydantic reads True as 1, so ``"tp": true`` ran
        with tp = 1), as every REST write refuses it (RFC 8259 §3: booleans are literals, not numbers)."""
        if not isinstance(data, dict):
            return data
        for name, value in data.items():
            field = cls.model_fields.get(name)
            if field is None:
                continue
            leaves = _leaf_types(field.annotation)
            if bool in leaves or Any in leaves or not leaves & {int, float}:
                continue
            if any(isinstance(t, type) and issubclass(t, BaseModel) for t in leaves):
                found = name if isinstance(value, bool) else None  # a nested model checks its own fields
            else:
                found = _boolean_in(value, name)
            if found:
                raise FieldError(found, f"{found} must be a number, not a boolean.")
        return data


def picker(kind: str, **extra: Any) -> dict[str, Any]:
    """``json_schema_extra`` of a field whose value is one of the campus's things: the form offers a list of
    them (kind: "gpu_model", "pod", "cooling_unit", "cooling_target", "power_device", "failure_component")."""
    return {"x-picker": kind, **extra}


# ``json_schema_extra`` of a model constant or a resolution setting: the form shows it folded away, under
# "Model constants and resolution", so the parameters a planner changes come first.
ADVANCED: dict[str, Any] = {"x-advanced": True}


def key_picker(kind: str) -> dict[str, Any]:
    """``json_schema_extra`` of a mapping whose keys are the campus's things (see ``picker``)."""
    return {"x-key-picker": kind}


# ---------------------------------------------------------------- shared pieces

Precision = Literal["fp8", "bf16", "fp16", "tf32", "fp32"]


class ThroughputParams(ParamsBase):
    """How fast the GPUs train: the peak at ``precision`` times the model FLOPs utilisation."""

    precision: Precision = "bf16"
    """Number format the job trains in; sets the GPUs' peak throughput (dense TFLOPS of the part)."""
    # Empty: the step-time model's MFU on the campus's hardware (campus.analysis.job_compute: the summary's
    # compute.mfu; the catalog's ~40 % BF16 / ~35 % FP8, SemiAnalysis 2024-06, where no preset job fits).
    mfu: float | None = Field(None, gt=0, le=1, title="Model FLOPs utilisation (0–1)")
    """Share of the peak throughput the job achieves at full power; empty: from the hardware (the step-time
    model of the campus's jobs, as the summary's MFU). A number overrides it."""


class JobParams(ThroughputParams):
    """A synchronous job that checkpoints and restarts after an interruption."""

    # BLOOM 176B checkpointed every 3 h (catalog TRAINING_DEFAULTS).
    checkpoint_interval_minutes: float = Field(
        default_value("checkpoint_interval_minutes"), gt=0, le=MAX_CHECKPOINT_MINUTES
    )
    """Time between two checkpoints, minutes; work since the last one is lost when the job is interrupted."""
    # Empty: the checkpoint model on the inventory's storage and front end (campus.analysis.job_compute);
    # without a storage system the catalog's 5 and 10 min (Kokolis et al. 2024, Meta RSC).
    checkpoint_write_minutes: float | None = Field(None, ge=0, le=MINUTES_A_WEEK)
    """Time the job spends writing one checkpoint, minutes; empty: from the hardware (the job's state over
    the storage and front-end bandwidth). A number overrides it."""
    restart_minutes: float | None = Field(None, ge=0, le=MINUTES_A_WEEK)
    """Time from the GPUs being back to the job training again (reload, re-initialise), minutes; empty: from
    the hardware (launch + restore from the storage). A number overrides it."""
