"""No parameter is accepted that does nothing (issue 42, item 2).

For every built-in bot type and preset in ``bots.BOTS``, each declared parameter set to a value
other than its default either changes what the bot does or is refused in one line by
``make_bot`` (``check_params``, ``Bot.parameters_error``). What it does: its moves on positions
reached by seeded random play at 2, 3 and 4 players, or, for a bot with ``analyze`` (mcts), its
analysis rows, deterministic for a fixed budget and seed; a table the bot refuses
(``table_error``, one line) counts as what it does there. MCTS is checked from several starting
settings (``CONTEXTS``), so that a parameter another setting leaves unread is caught. The
intervention keys (bots/intervention.py) are checked on whole seeded games.

Not checked: ``external`` (an outside program: tests/test_external.py), ``module:Class`` types
(not registered; ``bots.policy:PolicyBot``'s one parameter has no default). ``EXEMPT`` names the
parameters exempted, with why.
"""
from __future__ import annotations

import json
import math
import random

import numpy as np
import pytest

from bots import BOTS, bot_parameters, make_bot
from bots.registry import REQUIRED, bot_maker
from bots.spec import bot_from_spec
from bots.value_file import MAGIC, model_bytes, read_model
from engine import new_game
from engine.loop import Moved, play
from tournament.scheduler import round_seed

SEED = 5
SKIPPED = {"external": "runs an outside program (its parameters: tests/test_external.py)"}
EXEMPT = {
    "seconds": "a time budget: what it changes is not deterministic",
    "allow": "allow=all is the A/A wrapper: by design the same moves as its base (tests/test_studies.py)",
}
# The settings every spec of a type starts from: small budgets, so the whole file runs in seconds.
BASE = {"mcts": {"iterations": 200}, "openspiel_mcts": {"iterations": 20}}
# Other starting settings of MCTS, each a combination that reads a different set of parameters.
# (cutoff=game at 50 iterations, its rollouts being whole games: a search that small holds fewer
# nodes than the least max_nodes, which the other contexts check at 200.)
CONTEXTS = {"mcts": [{}, {"evaluator": "score"}, {"evaluator": "value"},
                     {"cutoff": "game", "iterations": 50, "max_nodes": 1 << 23}],
            "mcts-2p": [{}, {"evaluator": "heuristic", "prior": "none"}]}
# Values chosen by hand where the rule in ``other_values`` would not do: the budgets (kept small),
# the node limit at its least (a search of 200 iterations holds fewer nodes than the default).
CHOSEN = {("mcts", "iterations"): [100], ("mcts", "max_nodes"): [1000],
          ("openspiel_mcts", "iterations"): [10], ("openspiel_mcts", "rollouts"): [4]}


def types():
    make_bot("random")  # loads every built-in type
    return sorted(set(BOTS) - set(SKIPPED))


def base_of(kind: str) -> str:
    return "mcts" if kind.startswith("mcts") else kind


def positions_of(players: int, seed: int, share: float, from_round: int = 1) -> list:
    """Positions where a move is due, about ``share`` of those of one seeded random game from
    round ``from_round`` on (later rounds: shorter searches to the game's end)."""
    rng = random.Random(seed)
    state, found = new_game(players, seed=seed), []
    while state.phase != "over":
        if state.phase == "refill":
            state.deal(seed=rng.randrange(1 << 30))
            continue
        if rng.random() < share and state.round >= from_round:
            found.append(state.clone())
        state.play(rng.choice(state.legal_moves()))
    return found


MOVE_POSITIONS = [s for p in (2, 3, 4) for seed in (1, 2) for s in positions_of(p, 100 * p + seed, 0.5)]
SEARCH_POSITIONS = [s for p in (2, 3, 4) for s in positions_of(p, 7 * p, 0.3, from_round=3)[:3]]
# openspiel_mcts's search is Python: a few positions of 5 to 10 legal moves, where a small budget
# still chooses among visited moves
POSITIONS = {"openspiel_mcts": [s for p in (2, 3, 4) for s in [
    s for seed in (1, 2) for s in positions_of(p, 7 * p + seed, 0.5, from_round=3)
    if 5 <= len(s.legal_moves()) <= 10][:2]]}


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """A model other than the table's for each value preset: a copy of value-Np with its tables
    halved (no other is shipped at 3 and 4 players), with the policy section of the preset's own
    model where the preset searches with a prior (prior=model), so that the model is all that changes."""
    from bots.model_container import pack, unpack
    from bots.prior import SECTION

    folder = tmp_path_factory.mktemp("models")
    out = {"mcts": "value-2p-mlp"}
    for players in (2, 3, 4):
        header, arrays = read_model(model_bytes(f"value-{players}p"))
        text = json.dumps(header).encode()
        body = b"".join((np.asarray(arrays[name], "<f4") * 0.5).tobytes() for name in header["arrays"])
        path = folder / f"half-{players}p.azv"
        data = MAGIC + len(text).to_bytes(4, "little") + text + body
        preset = make_bot(f"mcts-{players}p")
        if preset.prior == "model":
            own = unpack(model_bytes(preset.model), preset.model)
            data = pack(unpack(data, str(path)).value, {SECTION: own.sections[SECTION]})
        path.write_bytes(data)
        out[f"mcts-{players}p"] = str(path)
    return out


def other_values(kind: str, p, models: dict) -> list:
    """Values of parameter ``p`` other than its default: each other choice; a number well inside
    its range, far from the default (half way to the farther end, or the geometric mean on a span
    of three decades or more)."""
    if (base_of(kind), p.name) in CHOSEN:
        return CHOSEN[base_of(kind), p.name]
    if p.name == "model":
        return [models[kind]]
    if p.choices:
        return [c for c in p.choices if c != p.default]
    if p.kind is bool:
        return [not p.default]
    if p.kind in (int, float):
        far = p.high if abs(p.high - p.default) >= abs(p.default - p.low) else p.low
        value = (math.sqrt(p.default * far) if p.low > 0 and p.high / p.low >= 1000
                 else (p.default + far) / 2)
        return [round(value) if p.kind is int else round(value, 4)]
    raise AssertionError(f"{kind}: no rule for parameter {p.name} ({p})")


def behaviour(kind: str, params: dict):
    """What the bot does: its analysis rows (a bot with ``analyze``) or its moves on the fixed
    positions, each table it refuses as its message."""
    bot = bot_maker(kind, params)(SEED)
    searches = hasattr(bot, "analyze")
    out = []
    for state in POSITIONS.get(kind, SEARCH_POSITIONS if searches else MOVE_POSITIONS):
        refused = bot.table_error(state.players, state.variant)
        if refused:
            assert "\n" not in refused
            out.append(refused)
        else:
            bot.reset()
            out.append(bot.analyze(state) if searches else str(bot.act(state)))
    return out


def refused_in_one_line(kind: str, params: dict, name: str) -> str | None:
    try:
        bot_maker(kind, params)
    except ValueError as exc:
        message = str(exc)
        assert "\n" not in message and name in message, (kind, params, message)
        return message
    return None


@pytest.mark.parametrize("kind", types())
def test_every_parameter_changes_what_the_bot_does_or_is_refused(kind, models):
    if kind == "openspiel_mcts":
        pytest.importorskip("pyspiel")
    for context in CONTEXTS.get(kind, [{}]):
        start = {**BASE.get(base_of(kind), {}), **context}
        before = behaviour(kind, start)
        for p in bot_parameters(kind).values():
            if p.name in EXEMPT or p.name in context:
                continue
            assert p.default is not REQUIRED, (kind, p.name)
            for value in other_values(kind, p, models):
                params = {**start, p.name: value}
                if refused_in_one_line(kind, params, p.name):
                    continue
                assert behaviour(kind, params) != before, \
                    f"{kind} {params}: {p.name}={value} changes nothing (from {context or 'the defaults'})"


def test_the_exemptions_are_parameters_or_keys_that_exist():
    from bots.intervention import KEYS
    known = {p.name for kind in types() for p in bot_parameters(kind).values()} | set(KEYS)
    assert set(EXEMPT) <= known


# ---------------------------------------------------------------- interventions
def game_moves(spec: str, players: int, seat: int, seed: int) -> list[str]:
    """The moves of one seeded game: the bot of ``spec`` in ``seat``, greedy in the others."""
    bots = [make_bot("greedy", seed=8 + s) for s in range(players)]
    bots[seat] = bot_from_spec(spec, 7)
    for b in bots:
        b.reset()
    return [str(e.played.move) for e in play(new_game(players=players), lambda seat, view: bots[seat].act(view),
                                               lambda r: round_seed(seed, r)) if type(e) is Moved]


def games(spec: str) -> list:
    """Games in the first and the second seat (the first player's first move finds no centre)."""
    return [game_moves(spec, players, seat, seed) for players in (2, 3) for seat in (0, 1) for seed in (1, 2)]


INTERVENTIONS = [  # (the spec it is compared with, the key and the value added)
    ("", "marker=take"), ("", "marker=avoid"), ("", "opening=line:1"), ("", "opening=floor"),
    ("", "opening=centre"), ("", "opening=factory+taken:1"), ("opening=floor,", "when=round"),
]


@pytest.mark.parametrize("base", ["greedy", "heuristic", "random", "mcts:iterations=30"])
def test_every_intervention_key_changes_the_games(base):
    sep = "," if ":" in base else ":"
    for before, added in INTERVENTIONS:
        start = base + (sep + before.rstrip(",") if before else "")
        inner = "," if ":" in start else ":"
        assert games(start + inner + added) != games(start), f"{start}{inner}{added} changes nothing"


def test_an_opening_class_that_allows_every_move_is_refused():
    with pytest.raises(ValueError, match=r"greedy: opening=any allows every move: it constrains nothing"):
        bot_from_spec("greedy:opening=any", 1)
    bot_from_spec("greedy:opening=any+floor", 1)  # 'any' beside a term that constrains


# ---------------------------------------------------------------- the fixes, one by one
@pytest.mark.parametrize("spec, message", [
    ("mcts:evaluator=value,value_scale=3", ("mcts: value_scale=3.0 is read only by evaluator=heuristic (evaluator "
                                            "is value): add evaluator=heuristic, or leave value_scale out")),
    ("mcts:evaluator=score,line=2", "mcts: line=2.0 is read only by evaluator=heuristic (evaluator is score)"),
    ("mcts-2p:marker=3", "mcts-2p: marker=3.0 is read only by evaluator=heuristic (evaluator is value)"),
    ("mcts-3p:value_scale=2.598", "mcts-3p: value_scale=2.598 is read only by evaluator=heuristic"),
    ("mcts:rollout=heuristic,evaluator=score,colour_set=2", "colour_set=2.0 is read only by evaluator=heuristic"),
    ("mcts:cutoff=game,evaluator=score", ("mcts: evaluator=score is read only with cutoff=round (cutoff=game "
                                          "plays every rollout to the game's end, where no evaluator is asked)")),
    ("mcts:cutoff=game,value_scale=3", "value_scale=3.0 is read only with cutoff=round"),
    ("mcts-2p:cutoff=game,prior=none,model=value-2p-mlp", "model=value-2p-mlp is read only with cutoff=round"),
    ("mcts:iterations=1000,seconds=0.5", ("mcts: iterations=1000 is the budget only without seconds "
                                          "(seconds=0.5 replaces it): give one of them")),
    ("mcts:model=value-2p", "mcts: model=value-2p is read only by evaluator=value (evaluator is heuristic)"),
])
def test_a_parameter_its_other_settings_leave_unread_is_refused_in_one_line(spec, message):
    with pytest.raises(ValueError) as caught:
        bot_from_spec(spec, 1)
    assert message in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize("spec", [
    "mcts:evaluator=value,value_scale=8", "mcts-2p:value_scale=8.0,line=0.5", "mcts:cutoff=game,evaluator=heuristic",
    "mcts-2p:cutoff=game,prior=none", "mcts:seconds=0.5,iterations=5000", "mcts-2p:seconds=0.05", "mcts:seconds=0.5",
    "mcts:evaluator=heuristic,value_scale=3,line=2", "mcts-2p:evaluator=heuristic,prior=none,value_scale=3",
    "mcts:evaluator=value,model=value-2p-mlp",
])
def test_a_default_written_out_and_a_parameter_that_is_read_are_accepted(spec):
    bot_from_spec(spec, 1)


def test_a_value_preset_refuses_a_table_of_another_player_count():
    for players in (2, 3, 4):
        for made_for in (2, 3, 4):
            error = make_bot(f"mcts-{made_for}p").table_error(players, "colored")
            if players == made_for:
                assert error is None
            else:
                assert error == (f"mcts-{made_for}p is made for {made_for}-player tables, not a {players}-player "
                                 f"one: at {players} players play mcts-{players}p (or mcts:evaluator=value)")
    assert make_bot("mcts-3p", evaluator="heuristic", prior="none").table_error(2, "colored").startswith(
        "mcts-3p is made for 3")
    # the heuristic presets read no model: weights tuned at a count, played at every table
    assert all(make_bot(k).table_error(p, "colored") is None for k in ("heuristic-3p", "heuristic-4p") for p in (2, 3, 4))


def test_a_league_config_refuses_a_value_preset_at_another_table():
    from tournament.config import ConfigError, parse_config
    data = {"name": "t", "players": 2, "deals": 1, "bots": [{"type": "mcts-3p", "params": {"iterations": 10}}, "greedy"]}
    with pytest.raises(ConfigError, match="mcts-3p is made for 3-player tables, not a 2-player one"):
        parse_config(data)


def test_an_intervention_keeps_its_base_bots_table_and_models():
    assert bot_from_spec("mcts-3p:marker=take", 1).table_error(2, "colored").startswith("mcts-3p is made for 3")
    wrapped = bot_from_spec("mcts:evaluator=value,model=value-2p-mlp,opening=floor", 1)
    assert wrapped.models(2) == ("value-2p-mlp",)
    assert "values 2-player games" in wrapped.table_error(3, "colored")


def test_a_game_cutoff_pins_no_model():
    assert make_bot("mcts-2p", cutoff="game", prior="none").models(2) == ()
    assert make_bot("mcts-2p").models(2) == ("value-2p-prior",)


def test_play_and_analyze_refuse_a_preset_made_for_another_table():
    """``azul play --vs`` and ``azul analyze --bot`` ask a bot's table as leagues do: ``mcts-3p`` at a
    2-player table is refused in one line, never played with ``value-2p`` under its name."""
    from typer.testing import CliRunner

    from azul_cli.main import app
    from present.analyze import run_analysis
    from engine import new_game

    played = CliRunner().invoke(app, ["play", "--vs", "mcts-3p", "--seed", "1"], input="")
    assert played.exit_code == 1 and "error: --vs: mcts-3p is made for 3-player tables" in played.output
    with pytest.raises(ValueError, match="mcts-4p is made for 4-player tables, not a 2-player one"):
        run_analysis(new_game(2, seed=1), "mcts-4p", 20, 1)
    assert run_analysis(new_game(3, seed=1), "mcts-3p", 20, 1)  # at its own table it searches
