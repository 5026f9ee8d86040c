"""The errors of a run's settings and of a run, under one base, ``AzulError``, whose message is
the whole of the one ``error: ...`` line a command prints for it (azul_cli/common.py ``fail``).

- ``ConfigError``: settings that cannot make a run (a league config, an SPRT's, a study's, a
  tune's, a training's): ``FILE: FIELD: RULE`` (no file for settings made without one); ``field``
  and ``reason`` keep the field and the rule.
- ``LeagueError``: a run that cannot start or go on (a folder another driver writes, a resume
  that does not match its run, a cluster that does not answer).
- ``TrainError``: a training run that cannot start or go on, its settings included.
- ``SeriesError`` (tournament/series.py): a series that cannot be played on.

The base itself is records/errors.py's, so that the errors of the packages below tournament
share it (records' damaged parts and a run another driver writes, analysis's rating lists); what
stays outside it is said there. This module imports only that one, so every command imports it
without Ray.
"""
from __future__ import annotations

from records.errors import AzulError  # the one base, on the ground floor (records/errors.py)


class ConfigError(AzulError, ValueError):
    """Settings that cannot make a run; the message starts with the file (when there is one),
    then the field, then the rule it breaks."""

    def __init__(self, message: str, field: str | None = None, reason: str | None = None):
        super().__init__(message)
        self.field, self.reason = field, reason

    @classmethod
    def of(cls, field: str, reason: str) -> ConfigError:
        """The error of one field: ``FIELD: RULE``."""
        return cls(f"{field}: {reason}", field, reason)

    def at(self, source: str) -> ConfigError:
        """The same error in the file (or the settings) ``source``: ``SOURCE: FIELD: RULE``."""
        return ConfigError(f"{source}: {self}", self.field, self.reason)


class LeagueError(AzulError, RuntimeError):
    """A league that cannot start or go on; the message says why and what to do."""


class TrainError(AzulError, ValueError):
    """A training run that cannot go on (its message says why)."""
