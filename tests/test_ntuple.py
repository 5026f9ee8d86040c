"""The n-tuple value (bots/ntuple.py, ``NTupleValue`` in bots/_evaluators.pyx): the compiled
indices against the Python reference, the value as the sum of its entries, its file and its bot."""
from __future__ import annotations

import json
import pickle
import struct

import numpy as np
import pytest
from test_mcts_evaluators import round_ends as game_round_ends

from bots import make_bot
from bots._evaluators import NTUPLE_SIZE, LearnedValue, NTupleValue, make_evaluator, ntuple_features
from bots.ntuple import FORMAT, OFFSETS, SIZE, TUPLES, feature_count, feature_matrix, features, flat_weights
from bots.value_file import MAGIC, model_bytes, read_model
from engine import new_game
from engine.rl import observation


class Tables:
    """Weights and a player count written as an azul-ntuple/1 file, by hand (learn/ntuple.py's
    NTupleModel, tested in tests/test_ntuple_learn.py, writes it too)."""

    def __init__(self, weights, players, meta=None):
        self.weights, self.players, self.meta = weights, players, meta or {}

    def to_bytes(self):
        header = {"format": FORMAT, "players": self.players, "arrays": list(TUPLES),
                  "shapes": [list(s) for s in TUPLES.values()], "meta": self.meta}
        text = json.dumps(header).encode()
        return MAGIC + struct.pack("<I", len(text)) + text + np.asarray(self.weights, "<f4").tobytes()

    def save(self, path):
        path.write_bytes(self.to_bytes())


def round_ends(players, variant, seed, games=3):
    """The positions at each round's end (phase refill, past the first deal) of random games."""
    return [p for game in range(games) for p in game_round_ends(players, variant, seed * 100 + game)]


POSITIONS = {(players, variant): round_ends(players, variant, seed=players + len(variant))
             for players in (2, 3, 4) for variant in ("colored", "gray")}


def random_model(players, seed=0, spread=0.1):
    weights = np.random.default_rng(seed).normal(0, spread, SIZE).astype(np.float32)
    return Tables(weights, players, {"note": "random"})


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_compiled_indices_are_the_references(players):
    assert NTUPLE_SIZE == SIZE == sum(int(np.prod(s)) for s in TUPLES.values())
    for variant in ("colored", "gray"):
        for state in POSITIONS[players, variant]:
            for seat in range(players):
                got = ntuple_features(state, seat)
                assert got == features(observation(state, seat)["observation"], players)
                assert len(got) == feature_count(players) and 0 <= min(got) and max(got) < SIZE
                assert got[0] == OFFSETS["bias"] and OFFSETS["race"] <= got[-1]
    used = {i for variant in ("colored", "gray") for s in POSITIONS[players, variant] for i in ntuple_features(s, 0)}
    assert len(used) > 100   # the positions reach many entries: the comparison means something


def greedy_round_ends(players, seed):
    """The round ends of a greedy game: points scored, so the score and margin tables are reached."""
    return game_round_ends(players, "colored", seed, bot=make_bot("greedy", seed=seed))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_score_margin_and_marker_indices_of_played_games_are_the_references(players):
    """The references read the scores where the observation holds them: in games with points, the
    score and margin entries picked vary as the compiled ones do (an observation whose layout moved
    would read 0 everywhere and train tables that never see a score)."""
    picked = {"score": set(), "margin": set()}
    for state in greedy_round_ends(players, seed=players) + greedy_round_ends(players, seed=10 + players):
        for seat in range(players):
            got = ntuple_features(state, seat)
            assert got == features(observation(state, seat)["observation"], players)
            picked["score"].add(got[-4] - OFFSETS["score"])
            picked["margin"].add(got[-3] - OFFSETS["margin"])
    assert len(picked["score"]) > 5 and len(picked["margin"]) > 5


def test_feature_indices_ask_for_a_round_end_and_a_seat():
    with pytest.raises(ValueError, match=r"^ntuple_features: a position at a round's end \(phase refill\)"):
        ntuple_features(new_game(2, seed=1), 0)
    with pytest.raises(ValueError, match="seat 2 is not a seat of a 2-player game"):
        ntuple_features(POSITIONS[2, "colored"][0], 2)
    with pytest.raises(ValueError, match="rows of 10 floats"):
        feature_matrix(np.zeros((1, 10)), 2)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_value_is_tanh_of_the_sum_of_its_table_entries(players):
    model = random_model(players, seed=players)
    evaluator = make_evaluator("value", model_bytes=model.to_bytes(), value_scale=8.0)
    assert type(evaluator) is NTupleValue and evaluator.players == players
    for state in POSITIONS[players, "colored"] + POSITIONS[players, "gray"]:
        views = [(1 + np.tanh(sum(float(model.weights[i]) for i in ntuple_features(state, p)))) / 2
                 for p in range(players)]
        if players == 2:    # one zero-sum value of the two views
            views = [(views[0] + 1 - views[1]) / 2, (views[1] + 1 - views[0]) / 2]
        assert evaluator.value(state) == pytest.approx(views, abs=1e-6)


def test_a_saved_model_reads_back_and_plays_the_same(tmp_path):
    model = random_model(2, seed=7)
    model.save(tmp_path / "nt.azv")
    header, arrays = read_model(model_bytes(str(tmp_path / "nt.azv")))
    assert header["format"] == FORMAT and header["players"] == 2 and header["meta"] == {"note": "random"}
    assert list(arrays) == list(TUPLES) and all(arrays[k].shape == shape for k, shape in TUPLES.items())
    np.testing.assert_array_equal(flat_weights(arrays), model.weights)
    margin = model.weights[OFFSETS["margin"]:OFFSETS["marker"]].reshape(TUPLES["margin"])
    np.testing.assert_array_equal(arrays["margin"], margin)
    first = make_evaluator("value", model_bytes=model.to_bytes(), value_scale=8.0)
    second = make_evaluator("value", model_bytes=model_bytes(str(tmp_path / "nt.azv")), value_scale=8.0)
    for state in POSITIONS[2, "colored"]:
        assert first.value(state) == second.value(state)


def test_the_value_evaluator_plays_either_kind_of_model(tmp_path):
    model = random_model(2, seed=3)
    model.save(tmp_path / "nt.azv")
    bot = make_bot("mcts", seed=3, evaluator="value", model=str(tmp_path / "nt.azv"), iterations=60)
    state = new_game(players=2, seed=9)
    move = bot.act(state)
    assert move in state.legal_moves() and bot.name == "mcts(iterations=60, evaluator=value, model=nt.azv)"
    (tmp_path / "nt.azv").unlink()      # the pickle holds the bytes, not the path
    again = pickle.loads(pickle.dumps(bot))
    assert again.act(state) == move
    with pytest.raises(ValueError, match="2-player games, not 3-player"):
        again.act(new_game(players=3, seed=1))
    assert type(make_evaluator("value", model_bytes=model_bytes("value-2p-mlp"), value_scale=8.0)) is LearnedValue
    with pytest.raises(ValueError, match=r"azul-value/1 model is not an n-tuple value"):
        NTupleValue(model_bytes=model_bytes("value-2p-mlp"))
    with pytest.raises(ValueError, match=r"azul-ntuple/1 model is not a value network"):
        LearnedValue(model_bytes=model.to_bytes())


def test_a_3_player_model_plays_3_player_games(tmp_path):
    random_model(3, seed=4).save(tmp_path / "nt3.azv")
    bot = make_bot("mcts", seed=1, evaluator="value", model=str(tmp_path / "nt3.azv"), iterations=40)
    state = new_game(players=3, seed=2)
    assert bot.act(state) in state.legal_moves()
    assert "2-player" in bot.table_error(2, "colored")


def _damaged(data: bytes, damage: str) -> bytes:
    return {"magic": b"XXXXXXXX" + data[8:], "truncated": data[:-8], "trailing": data + b"\0\0\0\0",
            "header": data[:12] + b"[" + data[13:], "nan": data[:-4] + np.float32("nan").tobytes(),
            "infinite": data[:-4] + np.float32("inf").tobytes()}[damage]


@pytest.mark.parametrize("damage", ["magic", "truncated", "trailing", "header", "nan", "infinite",
                                    "shapes", "players"])
def test_a_damaged_ntuple_file_is_one_error_naming_it(tmp_path, damage):
    model = random_model(2)
    if damage == "shapes":    # a table of another size: a file of another layout
        header = {"format": FORMAT, "players": 2, "arrays": list(TUPLES),
                  "shapes": [[1]] + [list(s) for s in TUPLES.values()][1:-1] + [[8, 5, 6]], "meta": {}}
        text = json.dumps(header).encode()
        data = MAGIC + struct.pack("<I", len(text)) + text + np.zeros(SIZE + 40, "<f4").tobytes()
    elif damage == "players":
        data = Tables(model.weights, 5).to_bytes()
    else:
        data = _damaged(model.to_bytes(), damage)
    (tmp_path / "bad.azv").write_bytes(data)
    with pytest.raises(ValueError, match=r"bad\.azv: ") as caught:
        make_bot("mcts", evaluator="value", model=str(tmp_path / "bad.azv"))
    assert "\n" not in str(caught.value)


def test_the_shipped_ntuple_model_plays_by_name():
    """``value-2p`` is the n-tuple tables shipped in bots/models (docs/train.md), also under their
    first name ``ntuple-2p``; the network that was ``value-2p`` is ``value-2p-mlp``."""
    from bots import make_bot
    from bots.value_file import model_bytes, read_model, shipped_models
    from engine import new_game

    assert {"value-2p", "value-2p-mlp"} <= set(shipped_models()) and "ntuple-2p" not in shipped_models()
    header, _ = read_model(model_bytes("value-2p"))
    assert header["format"] == "azul-ntuple/1" and header["players"] == 2
    assert model_bytes("ntuple-2p") == model_bytes("value-2p")
    assert read_model(model_bytes("value-2p-mlp"))[0]["format"] == "azul-value/1"
    state = new_game(players=2, seed=3)
    bot = make_bot("mcts", seed=1, iterations=200, evaluator="value", model="ntuple-2p")
    assert bot.act(state) in state.legal_moves()


@pytest.mark.parametrize("players", [2, 3, 4])
def test_evaluator_value_without_a_model_plays_the_shipped_model_of_the_tables_player_count(players):
    """SPEC 10: ``mcts:evaluator=value`` values a table of k players with ``value-kp``; the same
    bot (one pickle) moves as a bot given that model by name, at any count it meets."""
    from bots import make_bot
    from bots.value_file import shipped_models
    from engine import new_game

    name = f"value-{players}p"
    if name not in shipped_models():
        pytest.skip(f"{name} is not shipped yet")
    default = pickle.loads(pickle.dumps(make_bot("mcts", seed=2, iterations=120, evaluator="value")))
    named = make_bot("mcts", seed=2, iterations=120, evaluator="value", model=name)
    assert default.table_error(players, "colored") is None and default.name == "mcts(iterations=120, evaluator=value)"
    state = new_game(players=players, seed=5)
    assert [default.analyze(state)[0]["value"]] == [named.analyze(state)[0]["value"]]
    assert default._evaluator.players == players


def test_evaluator_value_at_a_player_count_without_a_shipped_model_is_one_line(monkeypatch):
    from bots import make_bot
    from bots import value_file
    from engine import new_game

    monkeypatch.setattr(value_file, "shipped_models", lambda: ["value-2p", "value-2p-mlp"])
    bot = make_bot("mcts", seed=2, iterations=20, evaluator="value")
    message = "mcts: no shipped value model for 3-player games (value-3p; shipped: value-2p, value-2p-mlp): " \
              "give model=NAME_OR_PATH"
    assert bot.table_error(3, "colored") == message and bot.table_error(2, "colored") is None
    with pytest.raises(ValueError) as caught:
        bot.act(new_game(players=3, seed=1))
    assert str(caught.value) == message
