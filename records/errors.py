"""``AzulError``, the one base of the errors of a run's settings and of a run, here on the ground
floor so that every package's run errors can share it (records' own, analysis's rating lists,
tournament/errors.py's settings and run errors). Its message is the whole of the one
``error: ...`` line a command prints for it (azul_cli/common.py ``fail``).

Under it: ``records.checks.DamagedRecords`` (a damaged, foreign or missing part),
``records.folder.RunInUse`` (another driver writes the run), ``analysis.rating_list.RatingListError``
and tournament/errors.py's ``ConfigError``, ``LeagueError``, ``TrainError`` and ``SeriesError``.
Each keeps the built-in base it had (``ValueError``, ``RuntimeError``), so older ``except`` clauses
still catch it. Outside it, on purpose: the engine's ``ValueError``s (SPEC 4), a game's control
flow (a move timeout, a forfeit) and failed reads and writes (``OSError``, object storage's
``ObjectStoreError`` among them), which each command says with its own hint.
"""
from __future__ import annotations


class AzulError(Exception):
    """A run's settings, or a run, that cannot go on; the message says why (and what to do)."""
