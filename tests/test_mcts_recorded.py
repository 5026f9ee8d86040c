"""MCTS searches as they were recorded: every rollout and cut-off, 2 and 4 players, both walls.

For each setting, searches from positions spread over two random games each give their root
(every move's visits and mean value, the most visited first: the move ``act`` plays); a digest of them is stored
here. The digests were written by the search as it was at 1c18aae, before the leaf evaluator
became a parameter (its default, ``heuristic``, values a cut-off as that search did), so a change
to the tree, the rollouts or the values that alters one search fails here.

To print the digests of the code importable now (e.g. another revision built in place)::

    PYTHONPATH=/path/to/checkout python tests/test_mcts_recorded.py
"""
from __future__ import annotations

import hashlib
import random

import pytest

from bots import make_bot
from engine import new_game

ITERATIONS = 120
SETTINGS = [(players, variant, rollout, cutoff)
            for players in (2, 4) for variant in ("colored", "gray")
            for rollout in ("random", "greedy", "heuristic") for cutoff in ("round", "game")]
RECORDED = {  # 1c18aae
    (2, 'colored', 'random', 'round'): 'eaa5b21faaaefc13',
    (2, 'colored', 'random', 'game'): 'bd1eb5ea1438c2bd',
    (2, 'colored', 'greedy', 'round'): '38e5a7810ec3e7fb',
    (2, 'colored', 'greedy', 'game'): 'a998ed32fb37aaa8',
    (2, 'colored', 'heuristic', 'round'): '21cd9b2289edab2c',
    (2, 'colored', 'heuristic', 'game'): 'd3c2f1e2e58dcbe5',
    (2, 'gray', 'random', 'round'): '77f8dace113dd8cb',
    (2, 'gray', 'random', 'game'): '8c43b39efb1b237d',
    (2, 'gray', 'greedy', 'round'): '40208e12af86452d',
    (2, 'gray', 'greedy', 'game'): 'b77f35ab123e4955',
    (2, 'gray', 'heuristic', 'round'): '836864499201b515',
    (2, 'gray', 'heuristic', 'game'): '1931f3443536a95b',
    (4, 'colored', 'random', 'round'): 'beaab55bf5aa94b3',
    (4, 'colored', 'random', 'game'): 'f18c9bf71936bd16',
    (4, 'colored', 'greedy', 'round'): '3c528ec6db4faf5b',
    (4, 'colored', 'greedy', 'game'): 'c7b663bef888498c',
    (4, 'colored', 'heuristic', 'round'): 'f42b5f841a4297f6',
    (4, 'colored', 'heuristic', 'game'): '25866aaa58f16a13',
    (4, 'gray', 'random', 'round'): 'b8653c532d39d15b',
    (4, 'gray', 'random', 'game'): '594d87b7cf9426a3',
    (4, 'gray', 'greedy', 'round'): 'ed7634687b0731d5',
    (4, 'gray', 'greedy', 'game'): 'd100723400090413',
    (4, 'gray', 'heuristic', 'round'): '2f43c093423c24f9',
    (4, 'gray', 'heuristic', 'game'): 'c290617ba9324600',
}


def positions(players: int, variant: str, seed: int, every: int = 13) -> list:
    """Every `every`-th position of a game of random moves, and its first tiling position."""
    rng = random.Random(seed)
    state = new_game(players, variant, seed=seed)
    found, ply, tiling = [], 0, False
    while state.phase != "over":
        if state.phase == "refill":
            state.deal(seed=rng.getrandbits(32))
            continue
        if ply % every == 0 or (state.phase == "tiling" and not tiling):
            tiling = tiling or state.phase == "tiling"
            found.append(state.clone())
        state.play(rng.choice(state.legal_moves()))
        ply += 1
    return found


def digest(players: int, variant: str, rollout: str, cutoff: str) -> str:
    """A digest of the searches from two games' positions, bot seeds 1 and 2."""
    lines = []
    for seed in (1, 2):
        bot = make_bot("mcts", seed=seed, iterations=ITERATIONS, rollout=rollout, cutoff=cutoff)
        for state in positions(players, variant, seed=100 * seed + 10 * players + len(variant)):
            rows = bot.analyze(state)
            lines.append(" ".join(f"{r['move']}:{r['visits']}:{r['value']:.12f}" for r in rows))
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16]


@pytest.mark.parametrize("setting", SETTINGS, ids=lambda s: "-".join(map(str, s)))
def test_the_default_evaluator_searches_as_recorded(setting):
    assert digest(*setting) == RECORDED[setting]


if __name__ == "__main__":
    for setting in SETTINGS:
        print(f"    {setting!r}: {digest(*setting)!r},", flush=True)
