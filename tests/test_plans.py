"""Plan interventions (bots/intervention.py, docs/bots.md "Plans"): colours, columns, rows and
deny bias how a bot ranks its moves; marker=useful takes the marker only when a partly filled line
stays for the next round.

A plan at weight 0 plays the base bot's games; each bonus's bias at a large weight makes its own
bonus more common in a league's results table; a harmful plan is refuted by a study; the compiled
loop plays plan bots as the Python referee does.
"""
from __future__ import annotations

import json

import pytest

from analysis.records import connect
from analysis.studies import read_study, study_effects
from bots._policies import plan_biases
from bots.spec import bot_from_spec
from engine import new_game
from engine.loop import Moved, play
from kinds.study import StudyConfig, run_study
from test_league_support import league
from tournament import read_table
from tournament.config import parse_config
from tournament.fastloop import compiled_plan
from tournament.runner import run_league
from tournament.scheduler import round_seed


def moves_of(specs: list[str], seed: int, players: int = 2) -> list[str]:
    bots = [bot_from_spec(s, 10 + i) for i, s in enumerate(specs)]
    state = new_game(players=players)
    for b in bots:
        b.reset()
    return [str(e.played.move) for e in play(state, lambda seat, view: bots[seat].act(view),
                                             lambda r: round_seed(seed, r)) if type(e) is Moved]


@pytest.mark.parametrize("spec", ["greedy", "heuristic", "mcts:iterations=60", "mcts:iterations=40,evaluator=score",
                                  "mcts-3p:iterations=60"])  # the last: PUCT with its prior, the bias at its root
def test_a_plan_of_weight_zero_plays_the_base_bots_games(spec):
    joined = "," if ":" in spec else ":"
    for seed in (1, 2):
        base = moves_of([spec, "greedy", spec], seed, players=3)
        zero = moves_of([spec + joined + "colours=0,columns=0,rows=0,deny=0", "greedy", spec], seed, players=3)
        assert zero == base
        # and a weight that matters changes them
        assert moves_of([spec + joined + "rows=20", "greedy", spec], seed, players=3) != base


def test_plan_biases_count_progress_towards_each_bonus_and_what_the_next_seat_loses():
    state = new_game(players=2)
    state.deal(seed=3)
    zero = plan_biases(state, (0, 0, 0, 0))
    assert set(zero.values()) == {0.0} and set(zero) == {m.code for m in state.legal_moves()}
    for weights in ((1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0)):
        biases = plan_biases(state, weights)
        for move in state.legal_moves():
            if move.line is None:  # to the floor: no progress
                assert biases[move.code] == 0
            else:  # the first tiles of an empty wall: (share of the line)^2 / 5 of one bonus
                taken = state.to_json()["center" if move.from_center else "factories"]
                tiles = (taken if move.from_center else taken[move.factory - 1]).count(move.colour)
                share = min(tiles, move.line) / move.line
                assert biases[move.code] == pytest.approx(share * share / 5)
    # deny: the next seat's best greedy draft before the move minus after; some takes remove what
    # it wanted most, others feed it (leftovers to the centre, the marker taken off its centre)
    greedy, seen = bot_from_spec("greedy", 1), set()
    while state.phase == "draft":
        seen |= set(plan_biases(state, (0, 0, 0, 1)).values())
        state.play(greedy.act(state))
    assert max(seen) > 0 and min(seen) < 0 and all(float(v).is_integer() for v in seen)


@pytest.fixture(scope="module")
def plans_league(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("plans")
    bots = ["heuristic", "heuristic:colours=20", "heuristic:columns=20", "heuristic:rows=20"]
    config = parse_config(league(tmp, bots, name="p", deals=60, seed=3))
    assert compiled_plan(config) is not None  # plan bots are asked from the compiled loop
    summary = run_league(config, progress=False)
    assert summary.complete
    return summary.run_dir


def test_each_bonus_bias_makes_its_own_bonus_more_common(plans_league):
    with connect(plans_league) as con:
        rows = con.execute("""SELECT bot, avg(complete_colors), avg(complete_columns), avg(complete_rows)
                              FROM results GROUP BY bot""").fetchall()
    by = {bot: values for bot, *values in rows}
    assert set(by) == {"heuristic", "heuristic+colours=20", "heuristic+columns=20", "heuristic+rows=20"}
    for i, bot in enumerate(("heuristic+colours=20", "heuristic+columns=20", "heuristic+rows=20")):
        # colour sets are rare in games of about five rounds: 0.05 of a set a game is a lot
        assert by[bot][i] > by["heuristic"][i] + (0.05 if i == 0 else 0.25), (bot, by)
        assert by[bot][i] == max(values[i] for values in by.values()), (bot, by)


def test_a_harmful_plan_is_refuted_and_a_zero_plan_has_no_effect(tmp_path):
    study = StudyConfig(name="rows", bot="greedy", deals=10, out=str(tmp_path),
                        interventions=("rows=-8", "colours=0"))
    summary = run_study(study)
    assert summary.referee == "python"  # a study's games are the referee's, plan bots or not
    with connect(summary.run_dir) as con:
        effects = study_effects(con, read_study(summary.run_dir), times=300)
    harmful = effects.filter(effects["intervention"] == "rows=-8")
    assert (harmful["high"] < 0).all() and harmful.filter(harmful["metric"] == "points")["effect"].item() < -3
    zero = effects.filter(effects["intervention"] == "colours=0")
    assert (zero["effect"] == 0).all() and (zero["low"] == 0).all() and (zero["high"] == 0).all()


SKIP = {"run_id", "think_ms", "duration_s"}


def _rows(run_dir, name):
    return sorted(json.dumps({k: v for k, v in r.items() if k not in SKIP}, sort_keys=True)
                  for r in read_table(run_dir, name).to_pylist())


@pytest.mark.parametrize("players,variant", [(2, "colored"), (3, "gray")])
def test_the_compiled_loop_plays_every_plan_as_the_referee_does(tmp_path, players, variant):
    bots = ["greedy:colours=2,columns=1.4,rows=0.4,deny=0.5", "heuristic:columns=3,deny=1",
            "mcts:iterations=25,colours=-2,rows=1,deny=2", "greedy:marker=useful", "heuristic"]
    runs = {}
    for python in (False, True):
        config = parse_config(league(tmp_path / str(python), bots, name="c", deals=2, seed=11, players=players,
                                     variant=variant, flush_seconds=0, python_referee=python))
        assert (compiled_plan(config) is None) == python
        assert run_league(config, progress=False).complete
        runs[python] = tmp_path / str(python) / "c"
    for name in ("games", "results", "moves", "rounds"):
        assert _rows(runs[False], name) == _rows(runs[True], name), name


def test_marker_useful_takes_the_marker_only_with_a_line_left_to_finish():
    from bots.intervention import useful

    took = {"useful": 0, "idle": 0}

    def watch(bots):
        state = new_game(players=2)

        def act(seat, view):
            move = bots[seat].act(view)
            if seat == 0 and view.phase == "draft" and move.from_center and view.to_json()["marker"] == "center":
                took["useful" if useful(view, move) else "idle"] += 1
            return move
        for _ in play(state, act, lambda r: round_seed(5, r)):
            pass
    for seed in range(6):
        watch([bot_from_spec("greedy:marker=useful", seed), bot_from_spec("greedy", seed + 50)])
    assert took["useful"] > 0 and took["idle"] == 0


def test_plan_spec_errors_are_one_line():
    for spec, words in (("random:rows=2", "ranks none"), ("greedy:rows=abc", "rows is a plan weight"),
                        ("greedy:rows=1,marker=take", "not marker and a plan together"),
                        ("greedy:rows=1000", "from -100 to 100"), ("greedy:marker=sometimes", "useful")):
        with pytest.raises(ValueError) as info:
            bot_from_spec(spec, 0)
        assert words in str(info.value) and "\n" not in str(info.value), spec


def test_a_plan_bots_name_carries_its_weights():
    assert bot_from_spec("mcts-2p:iterations=50,columns=1.4,deny=0.5", 0).name.endswith("+columns=1.4,deny=0.5")
