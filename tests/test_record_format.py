"""The record format has one owner (records/columns.py): every writer's tables have exactly its
columns and types, in order, and parts written with dictionary columns read back exactly as the
plain-string parts written before them.

Writers: the Python referee, the compiled loop, a crash row, ``analysis.synthetic_records`` and
``analysis.synthetic``. A table as built (``WRITE_SCHEMAS``) carries the moves' and rounds'
low-cardinality strings as dictionary arrays; on disk and read back it is ``SCHEMAS``.
"""
from __future__ import annotations

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import analysis.synthetic_records as synthetic_records
from analysis.records import connect
from analysis.records import read_table as read_frame
from analysis.synthetic import synthetic_league, write_league
from records.columns import COLUMNS, SCHEMAS, STUDY_COLUMNS, TABLES, WRITE_SCHEMAS, columns_of
from records.parts import part_path, write_part
from records.read import read_table
from records.tables import RecordBuffer, build_table
from test_league_support import league
from tournament.backends import play_batch
from tournament.config import parse_config
from dataclasses import replace
from tournament.fastloop import compiled_plan, play_compiled
from tournament.runner import _crashed_game
from tournament.scheduler import league_games

BOTS = ["random", "greedy", "heuristic"]


def _specs(config):
    return list(league_games(config))


def _assert_format(tables: dict[str, pa.Table], names=TABLES) -> None:
    assert set(tables) == set(names)
    for name in names:
        assert tables[name].schema.equals(WRITE_SCHEMAS[name]), (name, tables[name].schema)


@pytest.fixture(scope="module")
def config(tmp_path_factory):
    return parse_config(league(tmp_path_factory.mktemp("fmt"), BOTS, players=3, variant="gray", deals=1,
                               self_play=True, match="series"))


def test_the_schemas_come_from_the_column_table():
    for name in TABLES:
        cols = columns_of(name)
        assert SCHEMAS[name].names == WRITE_SCHEMAS[name].names == [c.name for c in cols]
        for c in cols:
            assert SCHEMAS[name].field(c.name).type == c.type
            written = WRITE_SCHEMAS[name].field(c.name).type
            assert written == (pa.dictionary(pa.int32(), pa.string()) if c.dictionary else c.type)
    assert STUDY_COLUMNS.names == [c.name for c in COLUMNS if c.source == "study"]
    assert not any(c.dictionary for c in COLUMNS if c.table in ("games", "results"))  # read by the driver


def test_the_referee_writes_the_format(config):
    tables = play_batch(replace(config, python_referee=True), _specs(config)[:3], "run")
    _assert_format(tables)
    assert tables["moves"].num_rows > 0 and tables["rounds"].num_rows > 0


def test_the_compiled_loop_writes_the_format(config):
    plan = compiled_plan(config)
    assert plan is not None
    tables = play_compiled(plan, _specs(config)[:3], "run")
    _assert_format(tables)


def test_a_crash_row_writes_the_format(config):
    spec = _specs(config)[0]
    tables = _crashed_game(spec, config, "run", "worker died")
    _assert_format(tables)
    assert tables["games"].column("termination").to_pylist() == ["error"]
    assert tables["results"].num_rows == config.players


def test_the_synthetic_run_writes_the_format(tmp_path, monkeypatch):
    built = []
    monkeypatch.setattr(synthetic_records, "write_part",
                        lambda run_dir, number, tables: (built.append(tables), write_part(run_dir, number, tables)))
    synthetic_records.write_synthetic_run(tmp_path / "syn", 40, part_games=20)
    assert len(built) == 2
    for tables in built:
        _assert_format({name: pa.concat_tables(t) for name, t in tables.items()})
    for name in TABLES:
        assert read_table(tmp_path / "syn", name).schema.equals(SCHEMAS[name])


def test_the_synthetic_league_writes_the_format(tmp_path):
    frames = synthetic_league([("a", 0.0), ("b", 100.0)], 3, run_id="s")
    run = write_league(frames, tmp_path / "s")
    for name in ("games", "results"):
        assert pq.read_schema(part_path(run, name, 1)).equals(SCHEMAS[name])
        assert frames[name].columns == SCHEMAS[name].names
    assert not (run / "moves").exists()  # a league of outcomes only


def test_build_table_names_what_is_wrong():
    one = {c.name: [None] for c in columns_of("rounds") if c.name != "run_id"}
    one["game_id"] = ["g"]
    assert build_table("rounds", one, "r").schema.equals(WRITE_SCHEMAS["rounds"])
    with pytest.raises(ValueError, match="the rounds table has no column 'colour'"):
        build_table("rounds", {**one, "colour": ["B"]}, "r")
    with pytest.raises(ValueError, match="the rounds table's column 'opener' is missing"):
        build_table("rounds", {k: v for k, v in one.items() if k != "opener"}, "r")
    with pytest.raises(ValueError, match="column 'seat' has 2 values, not 1"):
        build_table("rounds", {**one, "seat": [0, 1]}, "r")
    with pytest.raises(ValueError, match="column 'seat' is int64, not int32"):
        build_table("rounds", {**one, "seat": pa.array([0], pa.int64())}, "r")
    with pytest.raises(ValueError, match="column 'opener' cannot be int32"):
        build_table("rounds", {**one, "opener": ["first"]}, "r")
    with pytest.raises(ValueError, match="no table 'round'"):
        build_table("round", one, "r")
    with pytest.raises(ValueError, match="the moves table has no column 'colour'"):
        RecordBuffer().append("moves", ("game_id", "colour"), [("g", "B")])


def test_a_studys_games_add_the_study_columns():
    games = {c.name: [None] for c in columns_of("games", study=True) if c.name != "run_id"}
    games["game_id"] = ["g"]
    assert build_table("games", games, "r").schema.equals(WRITE_SCHEMAS["games"])  # a league's: as before
    games["intervention"] = ["control"]
    table = build_table("games", games, "r")
    assert table.schema.names == WRITE_SCHEMAS["games"].names + STUDY_COLUMNS.names


def _old_part(run_dir, number, tables):
    """A part as the league wrote it before dictionary columns: plain strings, Arrow schema kept."""
    for name in ("moves", "rounds", "results", "games"):
        path = part_path(run_dir, name, number)
        path.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(tables[name].cast(SCHEMAS[name]), path)


def test_old_and_new_parts_read_the_same(config, tmp_path):
    """The same games written old-style (plain strings) and new-style (dictionary columns, no
    Arrow schema) read back with the same values and types through every reader; a run with
    one part of each reads as one."""
    plan = compiled_plan(config)
    specs = _specs(config)
    first, second = (play_compiled(plan, specs[i:i + 4], "run") for i in (0, 4))
    old, new, mixed = tmp_path / "old", tmp_path / "new", tmp_path / "mixed"
    for folder in (old, new, mixed):
        for name in TABLES:
            (folder / name).mkdir(parents=True)
    _old_part(old, 1, first)
    _old_part(old, 2, second)
    write_part(new, 1, {name: [t] for name, t in first.items()})
    write_part(new, 2, {name: [t] for name, t in second.items()})
    _old_part(mixed, 1, first)
    write_part(mixed, 2, {name: [t] for name, t in second.items()})
    for name in TABLES:
        arrow = {d: read_table(d, name) for d in (old, new, mixed)}
        assert arrow[old].schema.equals(SCHEMAS[name])
        assert arrow[new].equals(arrow[old]) and arrow[mixed].equals(arrow[old]), name
        frames = {d: read_frame(d, name).sort(["game_id"], maintain_order=True) for d in (old, new, mixed)}
        assert frames[new].schema == frames[old].schema == frames[mixed].schema, name
        assert frames[new].equals(frames[old]) and frames[mixed].equals(frames[old]), name
        views = {}
        for d in (old, new, mixed):
            with connect(d) as con:
                views[d] = (con.execute(f"DESCRIBE {name}").fetchall(),
                            con.execute(f"SELECT * FROM {name} ORDER BY ALL").fetchall())
        assert views[new] == views[old] and views[mixed] == views[old], name
        for n in (1, 2):  # each file on its own, as pyarrow and Polars read a folder directly
            plain, coded = part_path(old, name, n), part_path(new, name, n)
            assert pq.read_table(coded).equals(pq.read_table(plain)), (name, n)
            assert pl.read_parquet(coded).equals(pl.read_parquet(plain)), (name, n)
            assert pl.read_parquet(coded).schema == pl.read_parquet(plain).schema, (name, n)
