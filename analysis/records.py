"""Read the Parquet records of league runs (SPEC section 5) with DuckDB, as Polars frames.

A run folder holds ``games/``, ``results/``, ``moves/`` and ``rounds/``, each a folder of
``*.parquet`` parts; hidden ``.part-N.parquet.tmp`` files are never read. Several folders are
read as one (``union_by_name``: a column missing in one run reads as null there). Only games whose
``games`` row exists are kept in the other tables, so orphan parts left by a killed driver do not
count.
"""
from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import duckdb
import polars as pl

TABLES = ("games", "results", "moves", "rounds")


def _run_dirs(run_dirs: str | Path | Iterable[str | Path]) -> list[Path]:
    if isinstance(run_dirs, (str, Path)):
        run_dirs = [run_dirs]
    dirs = [Path(d) for d in run_dirs]
    if not dirs:
        raise ValueError("no run folder given")
    for d in dirs:
        if not d.is_dir():
            raise ValueError(f"{d}: not a folder")
        if not any((d / "games").glob("*.parquet")):
            raise ValueError(f"{d}: no game records (no games/*.parquet)")
    return dirs


def _sql_path(path: Path) -> str:
    return str(path).replace("'", "''")


def read_table(run_dirs: str | Path | Iterable[str | Path], name: str) -> pl.DataFrame:
    """One table (``games``, ``results``, ``moves`` or ``rounds``) of one or more run folders."""
    if name not in TABLES:
        raise ValueError(f"unknown table {name!r} (known: {', '.join(TABLES)})")
    dirs = _run_dirs(run_dirs)
    globs = [d / name / "*.parquet" for d in dirs]
    missing = [d for d in dirs if not any((d / name).glob("*.parquet"))]
    if missing:
        raise ValueError(f"{missing[0]}: no {name} records (no {name}/*.parquet)")
    files = ", ".join(f"'{_sql_path(g)}'" for g in globs)
    games = ", ".join(f"'{_sql_path(d / 'games' / '*.parquet')}'" for d in dirs)
    query = f"SELECT * FROM read_parquet([{files}], union_by_name=true)"
    if name != "games":  # keep only the games that are recorded (their games part exists)
        query += (f" WHERE (run_id, game_id) IN (SELECT run_id, game_id FROM "
                  f"read_parquet([{games}], union_by_name=true))")
    with duckdb.connect() as con:
        return pl.from_arrow(con.sql(query).to_arrow_table())


def read_records(run_dirs: str | Path | Iterable[str | Path],
                 tables: Iterable[str] = ("games", "results")) -> dict[str, pl.DataFrame]:
    """Several tables at once, as ``{name: frame}`` (by default ``games`` and ``results``)."""
    return {name: read_table(run_dirs, name) for name in tables}
