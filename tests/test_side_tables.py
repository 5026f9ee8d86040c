"""Tables beside the games (records.names.SIDE_TABLES: the review's ``reviews/``), in a run folder
and in a run on object storage (a real S3 server, tests/s3_server.py): written into a run finished
or being played (its lock held by another process), with part ids and commits of their own;
invisible to the game checks and readers; counted by status; their torn parts cleaned by repair;
removed by ``--fresh``; read by DuckDB and Polars through ``RunStore.part_files``."""
from __future__ import annotations

import subprocess
import sys
import time
import uuid

import duckdb
import polars as pl
import pyarrow as pa
import pytest
from s3_server import s3_env, s3_server  # noqa: F401 (fixtures)
from test_league_support import league, subprocess_env
from typer.testing import CliRunner

from azul_cli.main import app
from kinds import kind_of
from records.checks import check_run_dir
from records.names import SIDE_TABLES
from records.read import read_table
from records.store import open_root
from tournament.config import parse_config
from tournament.run_folder import repair_run
from tournament.runner import run_league

NAME = "side"


@pytest.fixture(params=["folder", "s3"])
def out(request, tmp_path, monkeypatch) -> str:
    """Where the runs go: a local folder, or an ``s3://`` prefix of the test's own."""
    monkeypatch.setenv("AZUL_S3_CACHE", str(tmp_path / "cache"))
    if request.param == "folder":
        return str(tmp_path / "runs")
    server = request.getfixturevalue("s3_env")
    return f"s3://{server.bucket}/t-{uuid.uuid4().hex[:12]}/runs"


def play(tmp_path, out: str, **options):
    """A small finished league (2 bots, 2 deals: 4 games) under ``out``; its store."""
    config = parse_config(league(tmp_path, ["random", "greedy"], name=NAME, out=out, batch_games=2,
                                 flush_seconds=0))
    summary = run_league(config, progress=False, **options)
    assert summary.complete and summary.total == 4
    return open_root(out).run(NAME)


def reviews(n: int, start: int = 0) -> pa.Table:
    """A table of the review's kind (its columns are SPEC 11's; any table is taken)."""
    return pa.table({"game_id": [f"g{i}" for i in range(start, start + n)], "ply": list(range(n)),
                     "win_loss": [0.01 * i for i in range(n)]})


def test_the_side_tables_are_named_in_records():
    assert SIDE_TABLES == ("reviews",)


def test_a_side_table_in_a_finished_run_is_counted_by_status_and_invisible_to_the_game_checks(tmp_path, out):
    store = play(tmp_path, out)
    runner = CliRunner()
    plain = runner.invoke(app, ["league", "status", str(store)])
    assert plain.exit_code == 0 and "beside the games" not in plain.output, plain.output
    assert kind_of(store).status(store).side == {}
    games_before, parts_before = read_table(store.view(), "games"), store.committed()

    first = store.write_side("reviews", reviews(3))
    second = store.write_side("reviews", reviews(2, start=3))
    assert first != second and store.side_parts("reviews") == sorted([first, second])
    assert first[:6] == "000001" and second[:6] == "000002"  # its own numbers, not after the games'
    assert store.committed() == parts_before and not {first, second} & store.part_ids()

    st = kind_of(store).status(store)
    assert st.side == {"reviews": (2, 5)} and st.state == "finished"
    assert "reviews: 2 parts, 5 rows (beside the games)" in st.lines()
    shown = runner.invoke(app, ["league", "status", str(store)])
    assert shown.exit_code == 0 and "reviews: 2 parts, 5 rows (beside the games)" in shown.output, shown.output
    assert shown.output.replace("reviews: 2 parts, 5 rows (beside the games)\n", "") == plain.output

    view = store.view()
    check_run_dir(view)  # the game checks do not look at it
    assert read_table(view, "games").equals(games_before)
    assert not repair_run(store).changed  # nothing to repair: the side parts are no orphans
    assert store.side_parts("reviews") == sorted([first, second])

    files = [str(p) for p in store.part_files("reviews")]
    assert len(files) == 2
    assert duckdb.connect().execute(f"select count(*), sum(ply) from read_parquet({files})").fetchone() == (5, 3 + 1)
    assert sorted(pl.read_parquet(files)["game_id"].to_list()) == [f"g{i}" for i in range(5)]
    with pytest.raises(ValueError, match="no side table 'games'"):
        store.write_side("games", reviews(1))


HOLD = """
import sys, time
from records.store import open_store
held = open_store(sys.argv[1]).lock()
held.__enter__()
print("held", flush=True)
time.sleep(120)
"""


def test_a_side_table_is_written_beside_a_live_driver_without_its_lock(tmp_path, out):
    store = play(tmp_path, out)
    ids = store.part_ids()
    driver = subprocess.Popen([sys.executable, "-c", HOLD, str(store)], stdout=subprocess.PIPE, text=True,
                              env=subprocess_env())
    try:
        assert driver.stdout.readline().strip() == "held"
        holder = store.holder()
        assert holder is not None and str(driver.pid) in holder
        part = store.write_side("reviews", reviews(4))
        assert store.side_parts("reviews") == [part]
        assert store.holder() == holder  # the driver's lock is neither needed nor touched
        assert store.part_ids() == ids  # nor are the ids its next parts take
        assert kind_of(store).status(store).side == {"reviews": (1, 4)}
    finally:
        driver.kill()
        driver.wait()


def dead_pid() -> int:
    """The pid of a process that has ended."""
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    return gone.pid


def test_repair_cleans_a_torn_side_part_and_keeps_a_live_writers(tmp_path, out):
    store = play(tmp_path, out)
    kept = store.write_side("reviews", reviews(2))
    folder = store.own_folder()
    if folder is not None:  # a writer killed before its rename; one writing now (this process)
        torn = folder / "reviews" / f".part-000009-deadbeef.parquet.{dead_pid()}-abc123.tmp"
        live = folder / "reviews" / ".part-000010-deadbeef.parquet.1-abc123.tmp"  # pid 1: alive
        torn.write_bytes(b"half a part")
        live.write_bytes(b"being written")
    else:  # staged by a writer long gone, and by one between its upload and its commit
        torn = f"_staged/reviews/000009-deadbeef.{int(time.time()) - 7200}/reviews.parquet"
        live = f"_staged/reviews/000010-deadbeef.{int(time.time())}/reviews.parquet"
        store.objects.put(torn, b"half a part")
        store.objects.put(live, b"being written")
    report = repair_run(store)
    assert [str(r).rsplit("/", 2)[-2:] for r in report.removed] == [str(torn).rsplit("/", 2)[-2:]]
    if folder is not None:
        assert not torn.exists() and live.exists()
    else:
        assert store.objects.etag(torn) is None and store.objects.etag(live) is not None
    assert store.side_parts("reviews") == [kept] and kind_of(store).status(store).side == {"reviews": (1, 2)}


def test_fresh_removes_the_side_tables_with_the_games(tmp_path, out):
    store = play(tmp_path, out)
    store.write_side("reviews", reviews(3))
    assert store.side_parts("reviews")
    store = play(tmp_path, out, fresh=True)
    assert store.side_parts("reviews") == [] and store.part_files("reviews") == []
    assert kind_of(store).status(store).side == {}
    assert len(read_table(store.view(), "games")) == 4
