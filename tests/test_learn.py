"""The learned value: positions read from records, the numpy network and its file, and the
compiled evaluator (``mcts:evaluator=value``) that plays with it (learn/, bots/_evaluators.pyx)."""
from __future__ import annotations

import json
import pickle

import numpy as np
import pytest
from typer.testing import CliRunner

from azul_cli.main import app
from bots import make_bot
from bots._evaluators import LearnedValue
from bots.value_file import model_bytes, read_model, shipped_models
from engine import GameState, new_game
from engine.rl import observation
from learn.data import outcomes, read_positions, write_shards
from learn.model import ValueNet, held_out_mask, train
from test_league_support import league
from tournament import read_table
from tournament.config import parse_config
from tournament.replay import replay_steps
from tournament.runner import run_league

SKIP = {"run_id", "think_ms", "duration_s"}


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("records")
    config = parse_config(league(tmp, ["greedy", "heuristic"], name="r", deals=3, seed=11))
    assert run_league(config, progress=False).complete
    return tmp / "r"


def test_the_readers_positions_are_the_replayed_round_ends(recorded, tmp_path):
    count = write_shards([recorded], tmp_path / "data", rows=7)
    assert len(list((tmp_path / "data").glob("positions-*.parquet"))) == -(-count // 7)
    x, y, games = read_positions(tmp_path / "data")
    assert len(x) == len(y) == count
    expected, targets = [], []
    for gid in sorted(set(games), key=list(games).index):   # the reader's game order
        game = replay_steps(recorded, gid)
        final = GameState.from_json(game.steps[-1].position)
        assert final.phase == "over"
        result = outcomes(final)
        for step in game.steps:
            state = GameState.from_json(step.position)
            if step.move is not None and state.phase == "refill":
                for seat in range(state.players):
                    expected.append(observation(state, seat)["observation"])
                    targets.append(result[seat][2])
    assert count == len(expected) > 0
    np.testing.assert_array_equal(x, np.array(expected))
    np.testing.assert_array_equal(y, np.array(targets, np.float32))
    assert set(np.unique(y)) <= {-1.0, 0.0, 1.0} and (y == 1).any() and (y == -1).any()


def test_outcomes_give_margin_result_and_the_target():
    state = new_game(players=3, seed=2)
    while not state.is_over:
        if state.phase == "refill":
            state.deal(seed=state.round)
        else:
            state.play(state.legal_moves()[0])
    rows = outcomes(state)
    scores = state.scores
    for seat, (margin, result, target) in enumerate(rows):
        assert margin == scores[seat] - max(s for q, s in enumerate(scores) if q != seat)
        if margin > 0:
            assert result == "win" and target == 1.0
        if margin < 0:
            assert result == "loss" and target < 1.0
        assert -1.0 <= target <= 1.0
    assert sum(r[1] in ("win", "shared") for r in rows) >= 1


def _net(seed=0, hidden=(24, 12)):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 4, (300, 361)).astype(np.float32) * (rng.random((300, 361)) < 0.2)
    y = np.tanh(x[:, :10].sum(1) - x[:, 10:20].sum(1)).astype(np.float32)
    return train(x, y, players=2, hidden=hidden, epochs=3, batch=32, seed=seed)


def test_training_is_deterministic_and_lowers_the_loss():
    (a, ha), (b, _) = _net(3), _net(3)
    assert ha.train[-1] < ha.train[0]
    assert a.to_bytes() == b.to_bytes()
    mask = held_out_mask(np.array(["g1", "g2", "g1"]))
    assert mask[0] == mask[2] and mask.sum() in (1, 2)         # a game on one side; one held out
    many = held_out_mask(np.array([f"t000-d{i:05d}-a00" for i in range(2000)]))
    assert 0.07 < many.mean() < 0.13


def test_the_compiled_forward_pass_is_numpys(tmp_path):
    net, _ = _net(1)
    net.meta = {"note": "test"}
    net.save(tmp_path / "m.azv")
    data = model_bytes(str(tmp_path / "m.azv"))
    header, arrays = read_model(data)
    assert header["layers"] == [24, 12, 1] and header["meta"] == {"note": "test"}
    compiled = LearnedValue(model_bytes=data)
    x = np.random.default_rng(5).normal(0, 3, (400, 361)).astype(np.float32)
    x[::2] *= np.random.default_rng(6).random((200, 361)) < 0.1      # sparse rows too
    assert np.abs(compiled.predict(x) - ValueNet.load(tmp_path / "m.azv").predict(x)).max() < 1e-4


@pytest.mark.parametrize("damage", ["magic", "truncated", "header", "trailing"])
def test_a_damaged_model_file_is_refused_by_name(tmp_path, damage):
    data = _net(2)[0].to_bytes()
    data = {"magic": b"XXXXXXXX" + data[8:], "truncated": data[:-8], "trailing": data + b"\0\0\0\0",
            "header": data[:12] + b"[" + data[13:]}[damage]
    (tmp_path / "bad.azv").write_bytes(data)
    with pytest.raises(ValueError, match="bad.azv"):
        make_bot("mcts", evaluator="value", model=str(tmp_path / "bad.azv"))
    with pytest.raises(ValueError, match="neither a shipped model"):
        make_bot("mcts", evaluator="value", model="no-such-model")


def test_the_model_travels_with_the_bot_and_players_must_match(tmp_path):
    path = tmp_path / "m.azv"
    _net(4)[0].save(path)
    bot = make_bot("mcts", seed=3, evaluator="value", model=str(path), iterations=60)
    state = new_game(players=2, seed=9)
    move = bot.act(state)
    path.unlink()                       # the pickle holds the bytes, not the path
    again = pickle.loads(pickle.dumps(bot))
    assert again.act(state) == move and "model=" in again.name
    with pytest.raises(ValueError, match="2-player games, not 3-player"):
        again.act(new_game(players=3, seed=1))


def test_the_shipped_model_is_the_default_and_small():
    assert "value-2p" in shipped_models()
    assert len(model_bytes("value-2p")) < 2_000_000
    assert make_bot("mcts", evaluator="value").name == "mcts(iterations=5000, evaluator=value)"
    assert make_bot("mcts").name == "mcts(iterations=5000)"


def _rows(run_dir, name):
    return sorted(json.dumps({k: v for k, v in r.items() if k not in SKIP}, sort_keys=True)
                  for r in read_table(run_dir, name).to_pylist())


def test_the_value_bot_plays_legal_games_alike_in_both_loops(tmp_path):
    bots = ["greedy", {"name": "value", "type": "mcts", "seed": 2,
                       "params": {"evaluator": "value", "iterations": 40}}]
    runs = {}
    for python in (False, True):
        config = parse_config(league(tmp_path / str(python), bots, name="v", deals=2, seed=3,
                                     python_referee=python))
        summary = run_league(config, progress=False)
        assert summary.complete and summary.recorded == 4
        runs[python] = tmp_path / str(python) / "v"
    games = read_table(runs[False], "games").to_pydict()
    assert set(games["termination"]) == {"normal"}   # legal to the end: no fault
    for name in ("games", "results", "moves", "rounds"):
        assert _rows(runs[False], name) == _rows(runs[True], name), name


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_a_model_with_nan_or_infinite_weights_is_refused_by_name(tmp_path, bad):
    net, _ = _net(3)
    net.weights[0][0, 0] = bad
    net.save(tmp_path / "diverged.azv")
    with pytest.raises(ValueError, match=r"diverged\.azv: array w0 holds NaN or infinite numbers"):
        make_bot("mcts", evaluator="value", model=str(tmp_path / "diverged.azv"))
    result = CliRunner().invoke(app, ["play", "--vs", f"mcts:evaluator=value,model={tmp_path / 'diverged.azv'}"])
    assert result.exit_code != 0 and "NaN or infinite" in result.output and "Traceback" not in result.output


def test_a_huge_file_given_as_a_model_is_refused_before_it_is_read(tmp_path):
    from bots.value_file import MAGIC, MAX_BYTES

    big = tmp_path / "big.azv"
    with big.open("wb") as f:  # sparse: the size without the bytes
        f.write(MAGIC)
        f.truncate(3 * 2**30)
    with pytest.raises(ValueError, match=r"big\.azv: 3,221,225,472 bytes, more than a model"):
        model_bytes(str(big))
    other = tmp_path / "other.azv"
    with other.open("wb") as f:
        f.truncate(MAX_BYTES + 1)
    with pytest.raises(ValueError, match=r"other\.azv: not a value network file"):
        model_bytes(str(other))
