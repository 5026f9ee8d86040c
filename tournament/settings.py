"""A run's settings, declared once: each ``Field`` is a setting's YAML key, its default and its
check (tournament/fields.py), and a kind's settings class (a frozen dataclass) declares its
attributes with them:

    class StudyConfig(Settings):
        name: str = NAME.attr()
        deals: int = DEALS.attr(100)
        workers: int | None = WORKERS.attr(0)

``Settings.check_fields`` checks every declared attribute with its field's check, and
``Field.read`` reads a field from a file's mapping; either way a bad value is a ``ConfigError``
naming the field and the rule it breaks. The settings every kind of run shares (``NAME``,
``OUT``, ``WORKERS``, ``ADDRESS``, ``MLFLOW``, ``SEED``, ``VARIANT``, ``PLAYERS``, ``DEALS``) are
declared here, once: the league, the SPRT, the study, the tune and the training take them from
here (a league nests ``workers`` and ``address`` under ``ray``, and ``mlflow`` as
``mlflow.enabled``, with the same checks).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.rules import VARIANTS

from .fields import MAX_SEED, check_address, check_choice, check_flag, check_int, check_name, check_out

Check = Callable[[Any, str], Any]  # (value, where) -> the value checked, or a ConfigError naming where


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()  # the default of a field that has none


@dataclass(frozen=True)
class Field:
    """One setting: its YAML key, its default (``REQUIRED``: none) and its check."""

    key: str
    check: Check
    default: Any = REQUIRED

    def value(self, value: Any, where: str | None = None) -> Any:
        """``value`` checked (a ConfigError naming ``where``, else the key, otherwise)."""
        return self.check(value, where or self.key)

    def read(self, data: dict, where: str | None = None, default: Any = REQUIRED) -> Any:
        """The field read from a file's mapping and checked; its default (or ``default``) when
        the mapping does not hold it."""
        default = self.default if default is REQUIRED else default
        return self.value(data.get(self.key, None if default is REQUIRED else default), where)

    def but(self, **changes: Any) -> Field:
        """The field with another default (or check): a kind's variant of a shared setting."""
        return dataclasses.replace(self, **changes)

    def attr(self, default: Any = REQUIRED) -> Any:
        """The field as a settings dataclass's attribute (with its default, or ``default``)."""
        default = self.default if default is REQUIRED else default
        if default is REQUIRED:
            return dataclasses.field(metadata={"setting": self})
        return dataclasses.field(default=default, metadata={"setting": self})


class Settings:
    """The base of a run's settings dataclass whose attributes are declared with ``Field.attr``."""

    @classmethod
    def declared(cls) -> dict[str, Field]:
        """Each declared attribute's field, by attribute name, in the order of the class."""
        return {f.name: f.metadata["setting"] for f in dataclasses.fields(cls) if "setting" in f.metadata}

    def check_fields(self, prefix: str = "") -> dict[str, Any]:
        """Every declared attribute checked by its field, in the order of the class (a
        ConfigError names the first bad one, after ``prefix``: ``ray.``); the checked values by
        attribute name (an ``out`` of ``s3:/B/P`` as ``s3://B/P``)."""
        return {name: setting.value(getattr(self, name), prefix + setting.key)
                for name, setting in self.declared().items()}


def whole(low: int, high: int | None = None) -> Check:
    """A whole number from ``low`` (to ``high``)."""
    return lambda value, where: check_int(value, where, low, high)


def one_of(choices: tuple[str, ...]) -> Check:
    return lambda value, where: check_choice(value, where, choices)


def optional(check: Check) -> Check:
    """``check``, or None."""
    return lambda value, where: None if value is None else check(value, where)


# ---------------------------------------------------------------- what every kind of run shares
NAME = Field("name", check_name)  # the run's folder under out (each kind gives its default)
OUT = Field("out", check_out, "runs")  # a folder, or s3://BUCKET/PREFIX
WORKERS = Field("workers", optional(whole(0)), None)  # games at once; 0: in this process; None: one per CPU
ADDRESS = Field("address", check_address, None)  # a Ray cluster; None: RAY_ADDRESS, else a local Ray
MLFLOW = Field("mlflow", check_flag, True)  # log the run to MLflow
SEED = Field("seed", whole(0, MAX_SEED), 0)
VARIANT = Field("variant", one_of(VARIANTS), "colored")
PLAYERS = Field("players", whole(2, 4), 2)
DEALS = Field("deals", whole(1), 10)
