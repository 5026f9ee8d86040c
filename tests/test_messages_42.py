"""Messages that say what is true (issue 42, item 6), and repair's count on object storage (item 4).

On a real S3 server (SeaweedFS, tests/s3_server.py): an error names the URL as typed, never the
private cache folder of its local view; ``s3://`` alone (or what a command's Path argument makes of
it) has no bucket; repair's count of games no longer recorded is what status then shows missing;
a run nested in one whose driver (another process) is playing is not repaired. Without a server:
``azul elo`` and the report over too few deals say so in words, never a zero-width interval or -0.
"""
from __future__ import annotations

import json
import os
import re
import socket
import time
import uuid

import numpy as np
import pyarrow.parquet as pq
import pytest
from s3_server import s3_env, s3_server  # noqa: F401 (fixtures: out uses them)
from test_league_support import finished_in_parts, league
from test_s3_league import azul, out  # noqa: F401 (out: a fixture)

from analysis.elo import MIN_DEALS, measured
from records.columns import TABLES
from records.names import CONFIG_FILE, LOCK_FILE, RUN_FILE
from records.store import open_store
from tournament.config import parse_config
from tournament.runner import run_league


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """A finished league of 12 games in parts of 2 (part-000000 .. part-000005), in a folder."""
    return finished_in_parts(tmp_path_factory.mktemp("m42"), "m42")


def copied(run_dir, url: str):
    """The folder's run written to ``url`` as a league writes one there (parts committed)."""
    store = open_store(url)
    for name in (RUN_FILE, CONFIG_FILE):
        store.write_text(name, (run_dir / name).read_text())
    for part in sorted(p.name for p in (run_dir / "games").iterdir()):
        store.write_part(part[len("part-"):-len(".parquet")],
                         {name: [pq.read_table(run_dir / name / part)] for name in TABLES})
    return store


def test_s3_errors_name_the_url_as_typed(out, s3_env, tmp_path):  # noqa: F811
    missing = f"{out}/nothing-here"
    for command in (["elo"], ["standings"], ["report", "--out", tmp_path / "r"]):
        result = azul(*command[:1], missing, *command[1:])
        assert result.exit_code == 1 and f"error: {missing}: no game records there" in result.output, result.output
        assert str(tmp_path / "cache") not in result.output, result.output  # never the view's folder
    config = tmp_path / "l.yaml"
    config.write_text(json.dumps(league(tmp_path, ["random", "greedy"], name="l")))
    for typed in ("s3://", "s3:/"):  # typer's Path makes s3: of them
        for command in (["elo", typed], ["league", "run", config, "--out", typed]):
            result = azul(*command)
            assert result.exit_code == 1 and "bad S3 URL s3://: no bucket" in result.output, result.output
            assert "does not start with" not in result.output
    nobucket = f"s3://no-such-bucket-{uuid.uuid4().hex[:8]}/r"
    for command in (["league", "status"], ["league", "repair"], ["elo"]):
        result = azul(*command, nobucket)
        assert result.exit_code == 1 and result.output.startswith(f"error: {nobucket}: "), result.output
        assert "no bucket 'no-such-bucket-" in result.output and "run.json" not in result.output


def test_a_damaged_view_part_is_named_by_its_url(finished, out, tmp_path):  # noqa: F811
    run = f"{out}/m42"
    store = copied(finished, run)
    view = store.view()
    bad = view / "moves" / "part-000002.parquet"
    bad.write_bytes(b"not a part")  # the local copy spoiled after its download
    result = azul("elo", run)
    assert result.exit_code == 1 and f"error: {run}/moves/part-000002.parquet: " in result.output, result.output
    assert str(view) not in result.output and f"azul league repair {run}" in result.output


def counts(run) -> tuple[int, int]:
    status = azul("league", "status", run)
    assert status.exit_code == 0, status.output
    recorded, planned = re.search(r"([\d,]+) of ([\d,]+) games recorded", status.output).groups()
    return int(recorded.replace(",", "")), int(planned.replace(",", ""))


def test_repair_on_s3_counts_what_status_then_misses(finished, out):  # noqa: F811
    run = f"{out}/m42"
    store = copied(finished, run)
    store.objects.put("games/part-000004.parquet", os.urandom(3000))  # garbage over a games part
    results = bytearray(store.objects.get("results/part-000003.parquet")[0])
    results[len(results) // 2 - 100:len(results) // 2 + 100] = bytes(200)  # 200 bytes inside a results part
    store.objects.put("results/part-000003.parquet", bytes(results))
    repaired = azul("league", "repair", run)
    assert repaired.exit_code == 0, repaired.output
    said = int(re.search(r"([\d,]+) games no longer recorded", repaired.output).group(1))
    recorded, planned = counts(run)
    assert recorded == 8 and said == planned - recorded == 4, repaired.output


def test_a_nested_run_on_s3_is_not_repaired_while_another_driver_plays_the_run_above(finished, out):  # noqa: F811
    train = f"{out}/tr"
    nested = f"{train}/gen-001/selfplay"
    copied(finished, nested)
    above = open_store(train)
    above.write_text(RUN_FILE, json.dumps({"run_id": "tr-1", "kind": "train"}) + "\n")
    other = f"other-{socket.gethostname()}"  # a driver on another machine, its heartbeat fresh
    above.objects.put(LOCK_FILE, json.dumps({"owner": "x", "pid": 4242, "host": other,
                                             "heartbeat": time.time()}).encode())
    refused = azul("league", "repair", nested)
    assert refused.exit_code == 1, refused.output
    assert f"the run that holds it, {train}, is being played by a driver (pid 4242 on {other})" in refused.output
    above.objects.delete(LOCK_FILE)
    again = azul("league", "repair", nested)
    assert again.exit_code == 0 and "nothing to repair" in again.output, again.output


# ---------------------------------------------------------------- too few deals for an interval
@pytest.fixture(scope="module")
def one_deal(tmp_path_factory):
    """A league of one deal: 2 games, random against greedy."""
    folder = tmp_path_factory.mktemp("one")
    summary = run_league(parse_config(league(folder, ["random", "greedy"], name="one", deals=1)), progress=False)
    assert summary.complete and summary.total == 2
    return summary.run_dir


ZERO_WIDTH = re.compile(r"(-?\d+(?:\.\d+)?) \.\. \1(?!\d)")


def test_elo_over_one_deal_says_there_is_no_interval_in_words(one_deal, tmp_path):
    table = azul("elo", one_deal)
    assert table.exit_code == 0, table.output
    assert "too few deals" in table.output and "1 deal" in table.output, table.output
    assert not ZERO_WIDTH.search(table.output) and not re.search(r"(?<![\w.])-0(?![\d.])", table.output), table.output
    assert "first mover's edge: +0 (too few deals for an interval: 1 deal, it takes 2)" in table.output
    rows = azul("elo", one_deal, "-f", "csv").output.splitlines()
    assert rows[0] == "num_players,bot,games,rating,low,high,score_share"
    assert all(",,," in row for row in rows[1:]), rows  # low and high empty: no number invented
    entry = json.loads(azul("elo", one_deal, "-f", "json").output)[0]
    assert entry["deals"] == 1 and entry["first_move"] == {"rating": 0.0, "low": None, "high": None}
    assert all(b["low"] is None and b["high"] is None for b in entry["bots"])
    report = azul("report", one_deal, "--out", tmp_path / "report")
    assert report.exit_code == 0, report.output
    summary = (tmp_path / "report" / "summary.md").read_text()
    assert "too few deals" in summary and "+0 Elo (too few deals for an interval" in summary, summary
    assert not ZERO_WIDTH.search(summary) and " -0 " not in summary and "(95% -)" not in summary
    csv = (tmp_path / "report" / "elo.csv").read_text().splitlines()
    assert csv[0] == "bot,num_players,games,rating,low,high,score_share" and all(",,," in r for r in csv[1:]), csv
    html = (tmp_path / "report" / "report.html").read_text()
    assert "too few deals for an interval: 1 deal, it takes 2" in html and "-0 Elo" not in html
    for text in (summary, html):  # the marker's effect: no nan, no -0.0%, no zero-width interval
        assert "nan" not in text.lower() and "-0.0%" not in text, text
        assert not re.search(r"95% ([+-]?\d+\.\d%) \.\. \1", text), text


def test_an_interval_whose_ends_meet_is_none_but_the_anchors():
    low, high = np.array([1.0, 5.0, -3.0, 0.0]), np.array([2.0, 5.0, -3.0, 0.0])
    kept_low, kept_high = measured(low, high, deals=3, pinned=3)
    assert kept_low[0] == 1.0 and kept_high[0] == 2.0  # a real interval stays
    assert np.isnan(kept_low[1:3]).all() and np.isnan(kept_high[1:3]).all()  # ends that meet: none
    assert kept_low[3] == kept_high[3] == 0.0  # the anchor: fixed by definition
    assert np.isnan(measured(low, high, deals=MIN_DEALS - 1)[0]).all()  # one deal: none at all
