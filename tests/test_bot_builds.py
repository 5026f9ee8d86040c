"""The compiled league loop builds each bot it asks in Python (mcts) once per worker and config bot
(and copy, in self-play), not once per game, and reads its model file as often: the same records
as a bot built fresh for every game (tests/test_records_fingerprint.py and the compiled-equals-
referee tests pass unchanged)."""
from __future__ import annotations

import bots.mcts as mcts
from bots import make_bot
from engine import new_game
from test_league_support import league, ray_address  # noqa: F401 - a fixture
from tournament.config import parse_config
from tournament.runner import run_league



def counted(monkeypatch) -> dict:
    """Counts of MCTS bots built (``MCTSBot.__init__``) and models asked for (``model_bytes``)."""
    counts = {"builds": 0, "reads": 0}
    init, read = mcts.MCTSBot.__init__, mcts.model_bytes

    def counting_init(self, *args, **kwargs):
        counts["builds"] += 1
        init(self, *args, **kwargs)

    def counting_read(name):
        counts["reads"] += 1
        return read(name)

    monkeypatch.setattr(mcts.MCTSBot, "__init__", counting_init)
    monkeypatch.setattr(mcts, "model_bytes", counting_read)
    return counts


def test_mcts_bots_and_their_model_are_built_once_per_worker_not_per_game(tmp_path, monkeypatch):
    counts = counted(monkeypatch)
    bots = [{"name": "value", "type": "mcts", "seed": 1, "params": {"evaluator": "value", "iterations": 5}},
            {"type": "greedy", "seed": 2}]
    seen = []
    for deals in (5, 30):
        counts.update(builds=0, reads=0)
        config = parse_config(league(tmp_path, bots, name=f"d{deals}", deals=deals, self_play=True))
        summary = run_league(config)
        assert summary.recorded == 4 * deals and summary.referee == "compiled"
        seen.append(dict(counts))
    # planning looks at each config bot (its compiled form); then one bot per copy of the mcts bot
    # (two in its self-play games), kept for every game: six times the games, the same builds; the
    # model (the table's shipped one, no model= given) is read at a bot's first search, never again;
    # the driver builds each config bot once more to ask which models it reads (run.json pins them)
    assert seen[0] == seen[1] and seen[1]["builds"] <= 7 and 1 <= seen[1]["reads"] <= seen[1]["builds"]


def test_a_reseeded_bot_plays_as_one_built_with_that_seed():
    state = new_game(players=2, seed=11)
    fresh = make_bot("mcts", seed=7, iterations=30)
    reused = make_bot("mcts", seed=99, iterations=30)
    reused.act(state)  # a search with its own seed first
    reused.reseed(7)
    reused.reset()
    assert [fresh.act(state) for _ in range(2)] == [reused.act(state) for _ in range(2)]
    greedy = make_bot("greedy", seed=3)
    greedy.reseed(5)
    assert greedy.rng.random() == make_bot("greedy", seed=5).rng.random()


def _model_copy(tmp_path):
    """A model file of the run's own (the shipped 2-player model's bytes, under a path)."""
    from bots.value_file import MODELS

    path = tmp_path / "models" / "mine.azv"
    path.parent.mkdir(parents=True)
    path.write_bytes((MODELS / "value-2p.azv").read_bytes())
    return path


def test_workers_play_with_the_drivers_model_bytes_not_a_file_of_their_own(tmp_path, ray_address):  # noqa: F811 - the fixture
    """The driver reads a bot's model once and hands its bytes to the Ray workers with the config:
    the file removed once play starts (before any worker built a bot), the league plays on, the
    same games as a league whose workers could read it."""
    import polars as pl

    from tournament import read_table

    path = _model_copy(tmp_path)
    bots = [{"name": "value", "type": "mcts", "seed": 1,
             "params": {"evaluator": "value", "iterations": 4, "model": str(path)}}, "greedy"]

    def removed(progress):
        if path.exists():
            path.unlink()

    ray = parse_config(league(tmp_path / "ray", bots, deals=3, ray={"workers": 2}, batch_games=2))
    summary = run_league(ray, progress=removed)
    assert not path.exists() and summary.complete and summary.recorded == 6
    assert summary.failures == {} or not any(summary.failures.values()), summary.failures
    again = _model_copy(tmp_path / "again")  # the same bytes under another path: the same games
    serial = run_league(parse_config(league(tmp_path / "serial", [{**bots[0], "params": {
        **bots[0]["params"], "model": str(again)}}, "greedy"], deals=3)))
    assert serial.complete

    def moves(run_dir):
        return pl.from_arrow(read_table(run_dir, "moves")).sort("game_id", "ply")["move"].to_list()
    assert moves(summary.run_dir) == moves(serial.run_dir)


def test_the_referee_builds_each_bot_and_reads_its_model_once_per_worker(tmp_path, monkeypatch):
    """Games the Python referee plays (here: all, by ``python_referee``) reuse each bot as the
    compiled loop does: builds and model reads do not grow with the games."""
    counts = counted(monkeypatch)
    path = _model_copy(tmp_path)
    bots = [{"name": "value", "type": "mcts", "seed": 1,
             "params": {"evaluator": "value", "iterations": 3, "model": str(path)}}, {"type": "greedy", "seed": 2}]
    seen = []
    for deals in (3, 12):
        counts.update(builds=0, reads=0)
        config = parse_config(league(tmp_path, bots, name=f"d{deals}", deals=deals, python_referee=True))
        summary = run_league(config)
        assert summary.recorded == 2 * deals and summary.referee == "python"
        seen.append(dict(counts))
    assert seen[0] == seen[1] and seen[1]["builds"] <= 5, seen  # one of them the driver's, for the pins
