"""Records on disk: part files, replay of whole leagues, resume, and the run folder's rules."""
from __future__ import annotations

import json
import re
from collections import Counter

import pandas as pd
import pyarrow as pa
import pytest

from records.columns import TABLES
from records.parts import PartWriter, clean_orphans, part_path
from records.read import done_game_ids
from records.tables import empty_table
from test_league_support import bot, league
from tournament import read_table, replay, replay_game, replay_games
from tournament.config import parse_config
from tournament.errors import LeagueError
from tournament.runner import run_league
from analysis import fit_elo, read_records


def run(data, **kw):
    return run_league(parse_config(data), progress=False, **kw)


@pytest.mark.parametrize("players, variant, names, deals", [
    (2, "colored", ["random", "greedy", "heuristic"], 12),
    (2, "gray", ["random", "greedy", "heuristic"], 8),
    (3, "colored", ["random", "greedy", "heuristic", {"name": "r2", "type": "random"}], 4),
    (4, "gray", ["random", "greedy", "heuristic", {"name": "r2", "type": "random"}], 4),
])
def test_every_recorded_game_replays_to_its_result(tmp_path, players, variant, names, deals):
    data = league(tmp_path, names, players=players, variant=variant, deals=deals, flush_seconds=0)
    summary = run(data)
    assert summary.complete and summary.recorded == summary.total
    results = read_table(summary.run_dir, "results").to_pylist()
    expected = {(r["game_id"], r["seat"]): r for r in results}
    replayed = 0
    for gid, state in replay_games(summary.run_dir):
        assert state.is_over
        ranks = state.to_json()["ranks"]
        for s, score in enumerate(state.scores):
            assert expected[gid, s]["score"] == score and expected[gid, s]["rank"] == ranks[s]
        replayed += 1
    assert replayed == summary.total
    assert len(results) == summary.total * players


def test_forfeited_games_replay_to_where_they_stopped(tmp_path):
    summary = run(league(tmp_path, [bot("bad", "RaisingBot", after=20), "greedy"], deals=3))
    games = read_table(summary.run_dir, "games").to_pylist()
    assert {g["termination"] for g in games} == {"error"}
    results = {(r["game_id"], r["seat"]): r["score"] for r in read_table(summary.run_dir, "results").to_pylist()}
    for g in games:
        state = replay(summary.run_dir, g["game_id"])
        assert not state.is_over
        assert state.scores == [results[g["game_id"], s] for s in range(2)]
    with pytest.raises(KeyError):
        replay(summary.run_dir, "t999-d00000-a00")


def test_replay_game_checks_its_record():
    with pytest.raises(ValueError, match="never dealt"):
        replay_game("colored", 2, [], [(1, "1B1")])


def test_parts_temporary_files_and_orphans(tmp_path):
    run_dir = tmp_path / "r"
    writer = PartWriter(run_dir)
    empty = {name: [empty_table(name)] for name in TABLES}
    assert writer.write(empty) == 1
    assert part_path(run_dir, "games", 1).exists()
    # a driver killed between renames: part 2 of moves exists, not of games; and a temporary file
    orphan = part_path(run_dir, "moves", 2)
    orphan.write_bytes(part_path(run_dir, "moves", 1).read_bytes())
    tmp = run_dir / "games" / ".part-000003.parquet.tmp"
    tmp.write_bytes(b"half a file")
    assert len(read_table(run_dir, "moves")) == 0  # readers see committed parts only
    pd.read_parquet(run_dir / "games")             # ... and folder readers skip hidden temporaries
    assert PartWriter(run_dir).next_part == 3
    removed = clean_orphans(run_dir)
    assert set(removed) == {orphan, tmp}
    assert PartWriter(run_dir).next_part == 2


def test_stop_and_resume_in_process(tmp_path):
    data = league(tmp_path, ["random", "greedy", "heuristic"], deals=10, flush_seconds=0, batch_games=5)

    def stop_after_first_part(written):
        raise KeyboardInterrupt

    first = run(data, on_written=stop_after_first_part)
    assert first.interrupted and 0 < first.recorded < first.total
    done = done_game_ids(first.run_dir)
    assert len(done) == first.recorded
    with pytest.raises(LeagueError, match="add --resume"):
        run(data)
    second = run(data, resume=True)
    assert second.complete and second.done_before == first.recorded
    assert second.played == first.total - first.recorded
    ids = Counter(read_table(second.run_dir, "games", ["game_id"]).column("game_id").to_pylist())
    assert len(ids) == second.total and set(ids.values()) == {1}
    for name in ("results", "moves", "rounds"):
        per_game = read_table(second.run_dir, name, ["game_id"]).column("game_id").to_pylist()
        assert set(per_game) == set(ids)
    assert (second.run_dir / "standings.csv").exists()
    # resuming a finished league plays nothing
    third = run(data, resume=True)
    assert third.played == 0 and third.complete


def test_resume_checks_the_config(tmp_path):
    data = league(tmp_path, ["random", "greedy"], deals=2)
    run(data)
    with pytest.raises(LeagueError, match="differs .* in seed"):
        run({**data, "seed": 6}, resume=True)
    with pytest.raises(LeagueError, match="deals went down"):
        run({**data, "deals": 1}, resume=True)
    more = run({**data, "deals": 3}, resume=True)  # a league can be extended
    assert more.done_before == 4 and more.played == 2 and more.complete
    fresh = run({**data, "seed": 6}, fresh=True)
    assert fresh.done_before == 0 and fresh.played == 4


def test_resume_names_a_damaged_saved_config_in_one_line(tmp_path):
    data = league(tmp_path, ["random", "greedy"], deals=1)
    summary = run(data)
    saved = summary.run_dir / "config.yaml"
    saved.write_text(saved.read_text() + "bots: [oops\n")
    with pytest.raises(LeagueError) as caught:
        run(data, resume=True)
    text = str(caught.value)
    assert "\n" not in text, text
    assert re.match(rf"cannot resume: {re.escape(str(saved))}: line \d+, column \d+: not valid YAML", text), text


def test_standings_rate_the_bots_with_the_analysis_fit(tmp_path):
    summary = run(league(tmp_path, ["random", "greedy", bot("bad", "RaisingBot", after=1)], deals=4))
    rows = {r.bot: r for r in summary.standings}
    assert summary.failures == {"error": 16}  # bad's 2 tables x 4 deals x 2 seatings
    assert rows["bad"].faults == 16 and rows["bad"].wins == 0
    assert rows["greedy"].elo > rows["random"].elo
    assert rows["bad"].elo is None  # forfeited every game: withheld, as in azul elo and the report
    assert sum(r.games for r in summary.standings) == 2 * summary.total
    records = read_records(summary.run_dir)
    fit = fit_elo(records["results"], records["games"], bootstrap=0)
    fitted = dict(zip(fit.table["bot"].to_list(), fit.table["rating"].to_list()))
    assert {r.bot: r.elo for r in summary.standings if r.bot != "bad"} == pytest.approx(
        {b: e for b, e in fitted.items() if b != "bad"})
    assert [r.bot for r in summary.standings] == fit.table["bot"].to_list()  # best first, bad last


def test_tables_are_arrow_with_fixed_types(tmp_path):
    summary = run(league(tmp_path, ["random", "greedy"], deals=1))
    games = read_table(summary.run_dir, "games")
    assert games.schema.field("deal_seed").type == pa.int64()
    run_id = summary.run_id  # the league's name, a UTC time and a random suffix, kept in run.json
    assert re.fullmatch(r"t-\d{8}T\d{6}Z-[0-9a-f]{6}", run_id)
    assert games.column("run_id").to_pylist() == [run_id, run_id]
    assert json.loads((summary.run_dir / "run.json").read_text()) == {"run_id": run_id, "referee": "compiled", "kind": "league"}
    assert set(games.column("engine_version").to_pylist()) == {__import__("engine").__version__}


def test_one_driver_per_run_folder(tmp_path):
    from tournament.run_folder import _locked

    data = league(tmp_path, ["random", "greedy"], deals=1)
    with _locked(tmp_path / "t"):
        with pytest.raises(LeagueError, match=r"another driver \(pid \d+\) is writing this run"):
            run(data)
    assert run(data).complete


def test_a_game_committed_twice_is_kept_once(tmp_path):
    """A task the driver gave up on may commit its part after its games were played again
    (ray.write: workers): drop_duplicate_games keeps each game once, in its first part."""
    import shutil

    from tournament.repair import drop_duplicate_games

    data = league(tmp_path, ["random", "greedy"], deals=3, batch_games=2, flush_seconds=0)
    summary = run(data)
    run_dir = summary.run_dir
    assert drop_duplicate_games(run_dir) is None  # nothing twice: nothing read beyond the ids
    before = {n: read_table(run_dir, n).num_rows for n in TABLES}
    for name in TABLES:  # part 1 committed again as part 9
        shutil.copy(run_dir / name / "part-000001.parquet", run_dir / name / "part-000009.parquet")
    assert read_table(run_dir, "games").num_rows > before["games"]
    report = drop_duplicate_games(run_dir)
    assert report is not None and "000009" in report.rewritten and not report.dropped
    assert {n: read_table(run_dir, n).num_rows for n in TABLES} == before
    ids = Counter(read_table(run_dir, "games", ["game_id"]).column("game_id").to_pylist())
    assert set(ids.values()) == {1}


def test_a_late_commit_of_a_killed_drivers_task_keeps_the_resumed_runs_part(tmp_path):
    """kill -9, then --resume with ray.write: workers: a task of the killed driver that commits
    late was given the part number the resumed driver gives its own task; both parts are kept."""
    import pyarrow.parquet as pq

    from records.checks import check_run_dir
    from records.writer import BufferedWriter, read_committed
    from tournament.backends import _recorded
    from tournament.repair import repair

    summary = run(league(tmp_path, ["random", "greedy"], deals=3, batch_games=2, flush_seconds=0))
    first, second = ({name: pq.read_table(part_path(summary.run_dir, name, n)) for name in TABLES}
                     for n in (1, 2))
    race = tmp_path / "race"
    orphan = BufferedWriter(race, 1.0, None).reserve()  # the killed driver's task plays on
    mine = BufferedWriter(race, 1.0, None).reserve()  # the resumed driver: nothing committed yet
    _recorded(second, (str(race), mine))
    _recorded(first, (str(race), orphan))  # the orphaned task commits late
    check_run_dir(race)
    ids = sorted(read_table(race, "games", ["game_id"]).column("game_id").to_pylist())
    assert ids == sorted(first["games"].column("game_id").to_pylist() + second["games"].column("game_id").to_pylist())
    for name in TABLES:
        assert read_table(race, name).num_rows == first[name].num_rows + second[name].num_rows, name
        assert read_records(race, [name])[name].height == first[name].num_rows + second[name].num_rows, name
    assert read_committed(race, mine).tables["games"].num_rows == second["games"].num_rows
    assert not repair(race).changed  # nothing orphaned, nothing twice
    assert sorted(p.name for p in (race / "games").iterdir()) == sorted([  # the number, each driver's token
        f"part-{orphan}.parquet", f"part-{mine}.parquet"]) and orphan != mine and orphan[:6] == mine[:6] == "000001"
    assert PartWriter(race).next_part == 2  # a driver's own parts: today's names, numbered after them
