"""Leagues of bots: schedules, games as a referee, Ray workers, Parquet records, replay, MLflow.

    from tournament import load_config, run_league, replay
    summary = run_league(load_config("configs/quick.yaml"))
    replay(summary.run_dir, "t000-d00000-a00").scores

See docs/league.md. Names are imported on first use, so ``import tournament`` (and the ``azul``
command) stays quick; Ray and MLflow are imported only when a league needs them.
"""
from __future__ import annotations

import importlib

_NAMES = {
    "AzulError": "errors", "ConfigError": "errors", "LeagueError": "errors", "LeagueConfig": "config", "load_config": "config", "parse_config": "config",
    "TABLES": "records.columns", "read_table": "records.read",
    "LeagueProgress": "runner", "LeagueSummary": "runner", "run_league": "runner",
    "derive_seed": "scheduler", "round_seed": "scheduler",
}

# The replay names are imported now, not on first use: a module named like one of its functions
# would otherwise shadow it (``import tournament.replay`` sets the package's ``replay`` to the module).
from .replay import ReplayGame, replay, replay_game, replay_games, replay_steps  # noqa: E402

__all__ = sorted([*_NAMES, "ReplayGame", "replay", "replay_game", "replay_games", "replay_steps"])


def __getattr__(name: str):
    module = _NAMES.get(name)
    if module is None:
        raise AttributeError(f"module 'tournament' has no attribute {name!r}")
    value = getattr(importlib.import_module(module if "." in module else f"{__name__}.{module}"), name)
    globals()[name] = value
    return value
