"""The same league config writes the same records: a fingerprint of all four tables, stored once.

Small leagues of every built-in compiled bot type (2 and 4 players, both walls, two-game series and
self-play) are played in this process and each table is reduced to a digest of its rows, sorted,
without the timing columns (``think_ms``, ``duration_s``) and without ``run_id`` (which names the
run, not the games). The digests are stored in ``tests/data/records_fingerprint.json``; a change
that alters any row (a move, a score, a rank, a round's points) fails here.

To rewrite the stored digests on purpose (a rules fix that really changes the games), run
``AZUL_WRITE_FINGERPRINT=1 python -m pytest tests/test_records_fingerprint.py`` and say why in
the commit.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from test_league_support import league
from tournament import read_table
from tournament.config import parse_config
from tournament.runner import run_league

STORED = Path(__file__).parent / "data" / "records_fingerprint.json"
SKIP = {"run_id", "think_ms", "duration_s"}
BOTS = ["random", "greedy", "heuristic",
        {"name": "mcts-40", "type": "mcts", "seed": 9, "params": {"iterations": 40}}]
LEAGUES = {
    "2p-colored-series-self": dict(players=2, variant="colored", deals=2, match="series", self_play=True),
    # the 3- and 4-player leagues keep the seating they were stored with (the balanced default's
    # games are rotate's and more: tests/test_seating.py)
    "4p-gray-self": dict(players=4, variant="gray", deals=2, self_play=True, seats="rotate"),
    "3p-gray-series": dict(players=3, variant="gray", deals=1, match="series", seats="rotate"),
    "2p-gray": dict(players=2, variant="gray", deals=2),
    "4p-colored-series": dict(players=4, variant="colored", deals=1, match="series", seats="rotate"),
}


def fingerprint(run_dir: Path) -> dict[str, dict]:
    """Per table: the number of rows and a digest of them (sorted, timing columns aside)."""
    out = {}
    for name in ("games", "results", "moves", "rounds"):
        table = read_table(run_dir, name)
        rows = [json.dumps({k: v for k, v in row.items() if k not in SKIP}, sort_keys=True)
                for row in table.to_pylist()]
        rows.sort()
        out[name] = {"rows": len(rows), "sha256": hashlib.sha256("\n".join(rows).encode()).hexdigest()}
    return out


@pytest.fixture(scope="module")
def fingerprints(tmp_path_factory):
    found = {}
    for label, fields in LEAGUES.items():
        tmp = tmp_path_factory.mktemp(label)
        config = parse_config(league(tmp, BOTS, name=label, seed=31, flush_seconds=0, **fields))
        summary = run_league(config, progress=False)
        assert summary.complete and summary.recorded == config.total_games
        found[label] = fingerprint(tmp / label)
    if os.environ.get("AZUL_WRITE_FINGERPRINT") == "1":
        STORED.write_text(json.dumps(found, indent=2, sort_keys=True) + "\n")
    return found


@pytest.mark.parametrize("label", sorted(LEAGUES))
def test_a_league_writes_the_records_it_always_wrote(fingerprints, label):
    stored = json.loads(STORED.read_text())
    assert fingerprints[label] == stored[label]


def test_the_fingerprint_sees_a_changed_row(tmp_path):
    config = parse_config(league(tmp_path, ["random", "greedy"], name="f", seed=31, flush_seconds=0))
    run_league(config, progress=False)
    before = fingerprint(tmp_path / "f")
    import pyarrow.parquet as pq
    part = sorted((tmp_path / "f" / "results").glob("part-*.parquet"))[0]
    table = pq.read_table(part)
    scores = table.column("score").to_pylist()
    scores[0] += 1
    pq.write_table(table.set_column(table.schema.get_field_index("score"), "score",
                                    __import__("pyarrow").array(scores, table.schema.field("score").type)), part)
    after = fingerprint(tmp_path / "f")
    assert after["results"] != before["results"] and after["moves"] == before["moves"]
