"""Read the Parquet records of league runs (SPEC section 5) with DuckDB, as Polars frames.

A run folder holds ``games/``, ``results/``, ``moves/`` and ``rounds/``, each a folder of
``*.parquet`` parts; hidden ``.part-N.parquet.tmp`` files are never read. Several folders are
read as one (``union_by_name``: a column missing in one run reads as null there). Only games whose
``games`` row exists are kept in the other tables, so orphan parts left by a killed driver do not
count. Folders are checked once (``check_runs``: a damaged part raises ``DamagedRecords``
(``records.checks``), a folder given twice is read once, two folders of one run are refused), and
the ``Runs`` it returns is what every reader here takes, so a command checks once and hands it on.
``connect`` gives the same tables as DuckDB views, for analyses that aggregate in SQL and never
load the big ``moves`` table (analysis.openings, analysis.marker).
"""
from __future__ import annotations

import glob
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import duckdb
import polars as pl
import pyarrow as pa

from records.checks import READ_ERRORS, check_run_dir, naming_damage
from records.columns import TABLES
from records.folder import folder_run_ids
from records.names import SIDE_TABLES
from records.parts import PART
from records.store import RunStore, local_run
from records.urls import shown


@dataclass(frozen=True)
class Runs:
    """Run folders checked once (``check_runs``), with the part files each table had then.

    Every reader takes one (``connect``, ``read_records``, ``read_table``, the report), so a
    command checks its folders once and reads exactly the files it checked. ``notes``: what was
    left out (a folder given twice), for the command to print as a warning.
    """
    dirs: tuple[Path, ...]
    files: dict[str, tuple[tuple[Path, ...], ...]]  # table -> per folder, its parts (sorted)
    notes: tuple[str, ...] = ()

    def only(self, run_dir: Path) -> Runs:
        """The one folder ``run_dir`` of these, as already checked."""
        i = self.dirs.index(run_dir)
        return Runs((run_dir,), {name: (parts[i],) for name, parts in self.files.items()})

    def lacking(self, name: str) -> list[Path]:
        """The folders with no part of table ``name``."""
        return [d for d, parts in zip(self.dirs, self.files[name]) if not parts]


def check_runs(run_dirs: str | Path | Iterable[str | Path] | Runs) -> Runs:
    """The run folders to read, each once and checked, as a ``Runs`` (one given already is
    returned as it is).

    Raises a ``ValueError`` for a folder that is missing or holds no games, ``DamagedRecords``
    (a ``ValueError``) for a damaged, foreign or missing part (``records.checks``), and a
    ``ValueError`` for two folders that hold the same run (the same ``run_id``: a copied folder,
    or two folders of older leagues of the same name, whose ``run_id`` was the league's name), whose
    games could not be told apart.
    """
    if isinstance(run_dirs, Runs):
        return run_dirs
    if isinstance(run_dirs, (str, Path)):
        run_dirs = [run_dirs]
    dirs: list[Path] = []
    notes: list[str] = []
    seen: dict[Path, Path] = {}
    for d in map(local_run, run_dirs):
        key = d.resolve()
        if key in seen:
            notes.append(f"{shown(d)}: the same folder as {shown(seen[key])}, read once")
            continue
        seen[key] = d
        dirs.append(d)
    if not dirs:
        raise ValueError("no run folder given")
    owner: dict[str, Path] = {}
    for d in dirs:
        if not d.is_dir():
            raise ValueError(f"{d}: not a folder")
        if not RunStore(d).part_files("games"):  # a run on object storage: named by its URL
            raise ValueError(f"{d}: no game records (no games/*.parquet)" if shown(d) == str(d)
                             else f"{shown(d)}: no game records there (no committed part)")
        check_run_dir(d)
        for run_id in sorted(folder_run_ids(d)):
            if run_id in owner:
                raise ValueError(f"{shown(owner[run_id])} and {shown(d)} hold the same run (run_id "
                                 f"{run_id!r}), so their games cannot be told apart: a copy of one folder, or "
                                 "two runs of a league made before run ids were unique (docs/league.md, Run "
                                 "ids); read them one at a time")
            owner[run_id] = d
    files = {name: tuple(tuple(RunStore(d).part_files(name)) for d in dirs) for name in TABLES}
    return Runs(tuple(dirs), files, tuple(notes))


def _exact(games: tuple[Path, ...], parts: tuple[Path, ...]) -> bool:
    """Whether a table's parts hold recorded games only, with no row-by-row check needed.

    A league writes part N of every table together and commits it by writing ``games`` part N
    last (records/parts.py). When the table's parts are named as a league names them
    (``records.parts.PART``: ``part-NNNNNN.parquet`` or a task's ``part-NNNNNN-TTTTTTTT.parquet``) and
    match the ``games`` parts one for one, there is no orphan (a large saving on ``moves``).
    """
    names = {p.name for p in parts}
    return names == {p.name for p in games} and all(PART.match(n) for n in names)


def _sql_path(path: Path) -> str:
    """One part file as a DuckDB string literal that names that file only.

    DuckDB expands ``*``, ``?`` and ``[...]`` in every path it is given, even in a list, so a run
    folder named ``r[12]`` would read ``r1``'s parts; ``glob.escape`` makes each such character
    match itself (``[[]``), and the quote is doubled for SQL.
    """
    return glob.escape(str(path)).replace("'", "''")


def connect(runs: str | Path | Iterable[str | Path] | Runs) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection with views ``games``, ``results``, ``moves`` and ``rounds``
    over one or more run folders (a ``Runs``, or folders to check first: ``check_runs``).

    Each view reads the checked parts of its table in every folder with ``union_by_name``; the
    views other than ``games`` keep only the rows of recorded games (those with a ``games`` row).
    A table missing from some folder gets no view; ``require(con, name)`` then raises a
    ``ValueError`` naming the folder. ``moves_unchecked`` is ``moves`` without the check (cheaper
    on a large league): for aggregates per game that are joined to ``games`` afterwards. Queries
    stay lazy: DuckDB streams the Parquet files, so a large league is filtered and aggregated
    without being loaded.
    """
    runs = check_runs(runs)
    con = duckdb.connect()
    missing = []
    for name in TABLES:
        lacking = runs.lacking(name)
        if lacking:
            missing.append((name, f"{lacking[0]}: no {name} records (no {name}/*.parquet)"))
            continue
        parts = runs.files[name]
        exact = name == "games" or all(map(_exact, runs.files["games"], parts))
        files = ", ".join(f"'{_sql_path(f)}'" for some in parts for f in some)
        query = f"SELECT * FROM read_parquet([{files}], union_by_name=true)"
        if name == "moves":  # for aggregates per game that are joined to ``games`` anyway
            con.execute(f"CREATE VIEW moves_unchecked AS {query}")
        if not exact:  # keep only the games that are recorded (their games part exists)
            query += " WHERE (run_id, game_id) IN (SELECT run_id, game_id FROM games)"
        con.execute(f"CREATE VIEW {name} AS {query}")
    for name in SIDE_TABLES:  # a table beside the games (the review's), where some run holds one
        files = ", ".join(f"'{_sql_path(f)}'" for d in runs.dirs for f in RunStore(d).part_files(name))
        if files:
            try:
                con.execute(f"CREATE VIEW {name} AS SELECT * FROM read_parquet([{files}], union_by_name=true)")
            except duckdb.Error as exc:  # a damaged part: the games are read, the view names the damage
                missing.append((name, f"{shown(runs.dirs[0])}: a part of {name}/ cannot be read "
                                      f"({' '.join(str(exc).split())[:200]})"))
        else:
            missing.append((name, f"{shown(runs.dirs[0])}: no {name} (`azul review run` stores them)"))
    return _missing(con, missing)


def connect_tables(tables: dict[str, pa.Table]) -> duckdb.DuckDBPyConnection:
    """``connect``'s views over record tables in hand (Arrow, by table name) instead of folders:
    what a schedule has played so far (kinds.study.StudySchedule reads its stages with
    ``analysis.studies.study_pairs`` so). A table not handed gets no view (``require`` names it)."""
    con = duckdb.connect()
    for name, table in tables.items():
        if name not in TABLES:
            raise ValueError(f"unknown table {name!r} (known: {', '.join(TABLES)})")
        con.register(name, table)
    return _missing(con, [(name, f"no {name} records in hand") for name in TABLES if name not in tables])


def _missing(con: duckdb.DuckDBPyConnection, missing: list[tuple[str, str]]) -> duckdb.DuckDBPyConnection:
    """The table ``require`` reads: each missing view's name and the message naming why."""
    con.execute("CREATE TABLE _azul_missing (name VARCHAR, message VARCHAR)")
    if missing:
        con.executemany("INSERT INTO _azul_missing VALUES (?, ?)", missing)
    return con


def require(con: duckdb.DuckDBPyConnection, *names: str) -> None:
    """Raise a ``ValueError`` naming the folder if a view of ``connect`` is missing."""
    for name in names:
        if name not in (*TABLES, *SIDE_TABLES):
            raise ValueError(f"unknown table {name!r} (known: {', '.join((*TABLES, *SIDE_TABLES))})")
        row = con.execute("SELECT message FROM _azul_missing WHERE name = ?", [name]).fetchone()
        if row is not None:
            raise ValueError(row[0])


def columns(con: duckdb.DuckDBPyConnection, name: str) -> list[str]:
    """The column names of one view of ``connect``."""
    return [row[0] for row in con.execute(f"DESCRIBE {name}").fetchall()]


def reading(runs: Runs):
    """``records.checks.naming_damage`` for DuckDB's reads of ``runs``: an error reading a part
    becomes the ``DamagedRecords`` naming it (a ``ValueError``)."""
    return naming_damage(runs.dirs, (duckdb.Error, *READ_ERRORS))


def read_table(runs: str | Path | Iterable[str | Path] | Runs, name: str) -> pl.DataFrame:
    """One table (``games``, ``results``, ``moves`` or ``rounds``) of one or more run folders."""
    if name not in TABLES:
        raise ValueError(f"unknown table {name!r} (known: {', '.join(TABLES)})")
    runs = check_runs(runs)
    with connect(runs) as con, reading(runs):
        require(con, name)
        return pl.from_arrow(con.sql(f"SELECT * FROM {name}").to_arrow_table())


def read_records(runs: str | Path | Iterable[str | Path] | Runs,
                 tables: Iterable[str] = ("games", "results")) -> dict[str, pl.DataFrame]:
    """Several tables at once, as ``{name: frame}`` (by default ``games`` and ``results``)."""
    tables = list(tables)
    for name in tables:
        if name not in TABLES:
            raise ValueError(f"unknown table {name!r} (known: {', '.join(TABLES)})")
    runs = check_runs(runs)
    with connect(runs) as con, reading(runs):
        require(con, *tables)
        return {name: pl.from_arrow(con.sql(f"SELECT * FROM {name}").to_arrow_table())
                for name in tables}


# A seat's outcome per game, as in analysis.stats: points 1 for a win (rank 1 alone), 1/2 for a
# shared first place, 0 otherwise; with the game's num_players and ``g`` = hash(run_id, game_id).
# A CTE body over connect's views.
OUTCOMES_SQL = """
    SELECT r.run_id, r.game_id, hash(r.run_id, r.game_id) AS g, r.seat, r.bot,
           r.score::DOUBLE AS score, g.num_players,
           (CASE WHEN r.rank <> 1 THEN 0.0 WHEN f.firsts = 1 THEN 1.0 ELSE 0.5 END)::DOUBLE
               AS points
    FROM results r
    JOIN games g USING (run_id, game_id)
    JOIN (SELECT run_id, game_id, count(*) FILTER (WHERE rank = 1) AS firsts
          FROM results GROUP BY run_id, game_id) f USING (run_id, game_id)
"""


def default_run_dir(cli_args: dict | None = None) -> str:
    """The run folder a notebook opens: ``--run-dir`` after ``--`` on its command line, else the
    ``AZUL_RUN_DIR`` environment variable, else ``runs/quick`` (the README's main job)."""
    args = cli_args or {}
    return str(args.get("run-dir") or args.get("run_dir") or os.environ.get("AZUL_RUN_DIR")
               or "runs/quick")


def notebook_open(text: str) -> tuple[Path | None, str | None]:
    """``(notebook_run(text), None)``, or ``(None, its one-line error)``: what a notebook's first
    cell stops on."""
    try:
        return notebook_run(text), None
    except ValueError as exc:
        return None, str(exc)


def notebook_run(text: str) -> Path:
    """The folder a notebook reads for what its text box holds: a local folder (``~`` expanded)
    as it is, or for an ``s3://BUCKET/PREFIX/run`` URL the run's local view (its small files and
    committed parts, records.store.local_run). A ``ValueError`` of one line for a bad URL, a
    prefix with no committed run, or a store that refuses (no bucket, no credentials); it names
    the URL, never the endpoint or the credentials."""
    from records.store import open_store

    text = str(text).strip()
    store = open_store(text)  # ValueError: a bad URL
    if store.own_folder() is not None:
        return Path(text).expanduser()
    try:
        if not store.committed():
            raise ValueError(f"{store}: no game records there (no committed part)")
        return store.view()
    except OSError as exc:  # records.objects.ObjectStoreError: no bucket, refused, unreachable
        raise ValueError(str(exc)) from None
