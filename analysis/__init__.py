"""Analysis of league records: read the Parquet tables of one or more runs, fit ratings.

Knows nothing of Ray, the tournament or the bots: it reads the folders a league leaves
(docs/league.md) and nothing else. See docs/analysis.md. Names are imported on first use, so the
``azul`` command starts without loading SciPy, DuckDB or matplotlib.
"""
from __future__ import annotations

import importlib

_NAMES = {
    "EloFit": "elo", "elo_table": "elo", "fit_elo": "elo",
    "PlackettLuceFit": "plackett_luce", "fit_plackett_luce": "plackett_luce",
    "rate_by_players": "ratings",
    "TABLES": "records", "Runs": "records", "check_runs": "records", "connect": "records",
    "read_records": "records", "read_table": "records",
    "openskill_table": "skill",
    "build_report": "report",
}

__all__ = sorted(_NAMES)


def __getattr__(name: str):
    module = _NAMES.get(name)
    if module is None:
        raise AttributeError(f"module 'analysis' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value
