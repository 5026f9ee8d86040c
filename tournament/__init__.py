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
    "ConfigError": "config", "LeagueConfig": "config", "load_config": "config", "parse_config": "config",
    "TABLES": "records", "read_table": "records",
    "replay": "replay", "replay_game": "replay", "replay_games": "replay",
    "LeagueError": "runner", "LeagueSummary": "runner", "run_league": "runner",
    "derive_seed": "scheduler", "round_seed": "scheduler",
}

__all__ = sorted(_NAMES)


def __getattr__(name: str):
    module = _NAMES.get(name)
    if module is None:
        raise AttributeError(f"module 'tournament' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value
