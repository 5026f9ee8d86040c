"""Schedules whose next games depend on the results so far (tournament/stages.py): a toy knockout
whose final pairs the first round's winners, stopped in the middle of a stage and resumed, in one
process and on Ray; and the SPRT, which is such a schedule."""
from __future__ import annotations

import dataclasses
import signal
import subprocess
import sys

import pytest

from test_league_compiled import _rows  # rows of a table, sorted, timing and run_id left out
from test_league_support import league, ray_address, subprocess_env  # noqa: F401  (a session fixture)
from tournament import read_table
from tournament.config import parse_config
from tournament.runner import run_league
from tournament.scheduler import GameSpec, deal_seed
from kinds.sprt import STAGE_PAIRS, SprtSettings, run_sprt
from tournament.stages import OneStage, Results

BOTS = ["random", "greedy", "heuristic", {"name": "random-2", "type": "random", "seed": 11}]


class Knockout:
    """Round 1: bots 0-1 and 2-3, each match two deals with the seats swapped (4 games); the
    final: the two match winners (the most points; a tie to the lower bot index), then done."""

    total = 12
    deals = 2

    def __init__(self, seed: int = 5):
        self.seed = seed
        self.asked: list[int] = []  # how many stages it was shown (the test checks the calls)

    def next_games(self, results: Results) -> list[GameSpec] | None:
        self.asked.append(len(results.stages))
        if not results.stages:
            return self.match("r1-m0", (0, 1)) + self.match("r1-m1", (2, 3))
        if len(results.stages) == 1:
            return self.match("r2-m0", (self.winner(results, (0, 1)), self.winner(results, (2, 3))))
        return None

    def match(self, name: str, pair: tuple[int, int]) -> list[GameSpec]:
        games = []
        for d in range(self.deals):
            for a in range(2):
                seats = pair if a == 0 else pair[::-1]
                games.append(GameSpec(f"{name}-d{d}-a{a}", 0, d, a, deal_seed(self.seed, d), seats))
        return games

    @staticmethod
    def winner(results: Results, pair: tuple[int, int]) -> int:
        return winner(results.results.to_pylist(), pair)


NAMES = [b if isinstance(b, str) else b["name"] for b in BOTS]


def winner(rows: list[dict], pair: tuple[int, int]) -> int:
    """The bot of ``pair`` with the most wins in ``rows`` (a tie: the lower index)."""
    wins = {b: sum(r["rank"] == 1 for r in rows if r["bot"] == NAMES[b]) for b in pair}
    return max(pair, key=lambda b: (wins[b], -b))


def knockout_config(tmp_path, **fields):
    return parse_config(league(tmp_path, BOTS, name="ko", seed=5, flush_seconds=0, batch_games=1, **fields))


def games_of(run_dir):
    return sorted((g["game_id"], g["deal_seed"]) for g in read_table(run_dir, "games").to_pylist())


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    schedule = Knockout()
    summary = run_league(knockout_config(tmp_path_factory.mktemp("whole")), progress=False, schedule=schedule)
    assert summary.complete and not summary.interrupted and summary.recorded == 12
    assert schedule.asked == [0, 1, 2]
    return summary


def test_the_final_is_paired_from_the_first_rounds_results(uninterrupted):
    results = read_table(uninterrupted.run_dir, "results").to_pylist()
    first_round = [r for r in results if r["game_id"].startswith("r1-")]
    finalists = {NAMES.index(r["bot"]) for r in results if r["game_id"].startswith("r2-")}
    assert finalists == {winner(first_round, (0, 1)), winner(first_round, (2, 3))}


@pytest.mark.parametrize("stop_after", [2, 9])  # games written: in the first round; in the final
def test_a_stop_in_the_middle_of_a_stage_resumes_to_the_same_games(tmp_path, uninterrupted, stop_after):
    def stop(written):
        if written >= stop_after:
            raise KeyboardInterrupt

    config = knockout_config(tmp_path)
    first = run_league(config, progress=False, schedule=Knockout(), on_written=stop)
    assert first.interrupted and not first.complete and stop_after <= first.recorded < 12
    schedule = Knockout()
    rest = run_league(config, resume=True, progress=False, schedule=schedule)
    assert rest.complete and rest.done_before == first.recorded and rest.recorded == 12
    assert schedule.asked == [0, 1, 2]  # every stage asked again, from the records
    assert games_of(rest.run_dir) == games_of(uninterrupted.run_dir)  # the same ids and seeds
    for name in ("games", "results", "moves", "rounds"):
        assert _rows(rest.run_dir, name) == _rows(uninterrupted.run_dir, name), name
    again = run_league(config, resume=True, progress=False, schedule=Knockout())
    assert again.played == 0 and again.complete and again.play_s == 0.0  # nothing left: no backend started


def test_ray_plays_the_schedule_as_one_process_does(tmp_path, uninterrupted, ray_address):
    summary = run_league(knockout_config(tmp_path, ray={"workers": 2}), progress=False, schedule=Knockout())
    assert summary.complete and summary.recorded == 12
    for name in ("games", "results", "moves", "rounds"):
        assert _rows(summary.run_dir, name) == _rows(uninterrupted.run_dir, name), name


def test_a_schedule_sees_exactly_its_stages_records(tmp_path):
    seen = []

    class Twice(Knockout):
        def next_games(self, results):
            seen.append(results)
            if len(results.stages) < 2:
                return self.match(f"s{len(results.stages)}", (len(results.stages), 3))
            return None

    run_league(knockout_config(tmp_path), progress=False, schedule=Twice())
    assert [len(r.stages) for r in seen] == [0, 1, 2]
    last = seen[-1]
    ids = sorted(g.game_id for stage in last.stages for g in stage)
    assert last.games["game_id"].to_pylist() == ids  # sorted by game id
    assert last.games.column_names == ["game_id", "termination", "fault_seat", "duration_s"]
    assert last.results.column_names == ["game_id", "seat", "bot", "score", "rank"]
    assert [(r["game_id"], r["seat"]) for r in last.results.to_pylist()] == [(i, s) for i in ids for s in (0, 1)]
    assert seen[1].games.num_rows == 4  # only the games of the stages before


@pytest.mark.parametrize("stage, message", [([], "a stage of no games"), (None, "twice")])
def test_a_schedules_mistakes_are_errors(tmp_path, stage, message):
    class Bad(Knockout):
        def next_games(self, results):
            if stage is not None or len(results.stages) == 1:
                return stage
            return self.match("same", (0, 1)) + self.match("same", (2, 3))

    with pytest.raises(ValueError, match=message):
        run_league(knockout_config(tmp_path), progress=False, schedule=Bad())


def test_one_stage_is_a_fixed_list_of_games(tmp_path):
    games = Knockout().match("fixed", (1, 2))
    summary = run_league(knockout_config(tmp_path), progress=False, schedule=OneStage(games))
    assert summary.complete and summary.total == summary.recorded == 4
    assert [g for g, _ in games_of(summary.run_dir)] == sorted(g.game_id for g in games)


# ---------------------------------------------------------------- the SPRT as a schedule
def sprt_settings(tmp_path, **fields):
    return SprtSettings("greedy", "random", elo0=0, elo1=20, workers=0, out=str(tmp_path), mlflow=False, **fields)


@pytest.fixture
def small_parts(monkeypatch):
    """SPRT leagues that write a part every batch of 2 games (so a test can stop one halfway)."""
    league_of = SprtSettings.league
    monkeypatch.setattr(SprtSettings, "league",
                        lambda self: dataclasses.replace(league_of(self), flush_seconds=0, batch_games=2))


@pytest.fixture(scope="module")
def whole_sprt(tmp_path_factory):
    outcome = run_sprt(sprt_settings(tmp_path_factory.mktemp("sprt")))
    assert outcome.result.decision.verdict == "H1" and not outcome.interrupted
    return outcome


def test_the_sprt_plays_stages_of_pairs_until_it_decides(whole_sprt):
    pairs = whole_sprt.result.decision.pairs
    assert pairs > STAGE_PAIRS  # more than one stage
    played = whole_sprt.played // 2
    assert played % STAGE_PAIRS == 0 and pairs <= played < pairs + STAGE_PAIRS  # the stage it decided in, no more
    assert whole_sprt.summary.complete and whole_sprt.summary.total == 2 * 10000


@pytest.mark.parametrize("stop_after", [2, 2 * STAGE_PAIRS + 4])  # in the first stage; in the third
def test_an_sprt_stopped_halfway_resumes_to_the_same_decision_and_games(tmp_path, whole_sprt, small_parts,
                                                                      stop_after):
    def stop(written):
        if written >= stop_after:
            raise KeyboardInterrupt

    first = run_sprt(sprt_settings(tmp_path), on_written=stop)
    assert first.interrupted and stop_after <= first.played < whole_sprt.played
    rest = run_sprt(sprt_settings(tmp_path), resume=True)
    assert not rest.interrupted and first.played + rest.played == whole_sprt.played
    assert rest.result.decision == whole_sprt.result.decision
    assert games_of(rest.run_dir) == games_of(whole_sprt.run_dir)
    for name in ("results", "moves"):
        assert _rows(rest.run_dir, name) == _rows(whole_sprt.run_dir, name), name


def test_an_sprt_killed_halfway_resumes_to_the_same_decision_and_games(tmp_path, whole_sprt):
    """kill -9 of the driver (SIGKILL from its own on_written hook, once 36 games are written: a
    moment in the third stage), then --resume: the uninterrupted run's games and decision."""
    script = f"""
import dataclasses, os, signal
from kinds.sprt import SprtSettings, run_sprt
league_of = SprtSettings.league
SprtSettings.league = lambda self: dataclasses.replace(league_of(self), flush_seconds=0, batch_games=2)
def kill(written):
    if written >= 2 * STAGE_PAIRS + 4:
        os.kill(os.getpid(), signal.SIGKILL)
run_sprt(SprtSettings("greedy", "random", elo0=0, elo1=20, workers=0, out={str(tmp_path)!r}, mlflow=False),
         on_written=kill)
""".replace("STAGE_PAIRS", str(STAGE_PAIRS))
    killed = subprocess.run([sys.executable, "-c", script], env=subprocess_env(), capture_output=True, text=True,
                            timeout=300)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    kept = len(read_table(tmp_path / "sprt", "games"))
    assert 2 * STAGE_PAIRS + 4 <= kept < whole_sprt.played
    rest = run_sprt(sprt_settings(tmp_path), resume=True)
    assert rest.played == whole_sprt.played - kept and rest.result.decision == whole_sprt.result.decision
    assert games_of(rest.run_dir) == games_of(whole_sprt.run_dir)
    for name in ("results", "moves"):
        assert _rows(rest.run_dir, name) == _rows(whole_sprt.run_dir, name), name
