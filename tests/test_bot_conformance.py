"""Every registered bot: a legal move in 1,000 random positions (2-4 players, both walls, gray
tiling moves included), the same moves for the same seed, and the state it is shown unchanged."""
import random
import sys
from pathlib import Path

import pytest

from bots import BOTS, make_bot
from engine import new_game

EXAMPLE_BOT = [sys.executable, str(Path(__file__).resolve().parents[1] / "examples" / "random_bot.py")]
# Small budgets keep the suite quick; the bots' own tests cover their parameters.
PARAMS = {"mcts": {"iterations": 100}, "external": {"command": EXAMPLE_BOT},
          "openspiel_mcts": {"iterations": 10}}  # once the registry loads it as a built-in
POSITIONS = 1000


def random_positions(count, seed):
    """Positions where a move is due, from random games of every size and wall."""
    rng = random.Random(seed)
    setups = [(p, v) for p in (2, 3, 4) for v in ("colored", "gray")]
    positions = []
    while len(positions) < count:
        players, variant = setups[len(positions) % len(setups)]
        state = new_game(players, variant, seed=rng.randrange(1 << 30))
        while state.phase != "over" and len(positions) < count:
            if state.phase == "refill":
                state.deal(seed=rng.randrange(1 << 30))
                continue
            if rng.random() < 0.15 or state.phase == "tiling":
                positions.append(state.clone())
            state.play(rng.choice(state.legal_moves()))
    return positions


@pytest.fixture(scope="module")
def positions():
    found = random_positions(POSITIONS, seed=11)
    assert any(p.phase == "tiling" for p in found)
    assert {p.players for p in found} == {2, 3, 4}
    return found


def registered():
    make_bot("random")  # loads every built-in bot type
    return sorted(BOTS)


@pytest.mark.parametrize("bot_type", registered())
def test_a_legal_move_the_same_for_the_same_seed_and_no_change_to_the_state(bot_type, positions):
    count = 100 if bot_type == "external" else len(positions)  # a process round trip per move
    first = make_bot(bot_type, seed=5, **PARAMS.get(bot_type, {}))
    second = make_bot(bot_type, seed=5, **PARAMS.get(bot_type, {}))
    played = 0
    try:
        for state in positions[:count]:
            if first.table_error(state.players, state.variant):  # a preset made for another count
                continue  # refused before any league, play or analysis seats it (test_bot_params_property)
            played += 1
            before = state.to_json()
            move = first.act(state)
            assert move in state.legal_moves(), (bot_type, str(move), before)
            assert state.to_json() == before, f"{bot_type} changed the state it was shown"
            assert second.act(state) == move, f"{bot_type} is not deterministic for a seed"
        assert played >= min(count, len(positions)) // 5  # at the least, the positions of its own count
    finally:
        for bot in (first, second):
            getattr(bot, "close", lambda: None)()
