"""What a point is worth in each MCTS evaluator's units, the map a plan's bias goes through at the
search's root (docs/bots.md, "Plans": 1 / (4 value_scale) a point for the heuristic evaluator,
1/32 for the learned value and the score evaluator).

Plays greedy self-play games (seeded), and at every round's end of a game not yet over asks
each evaluator for the first seat's value; prints the least-squares slope of that value on the
first seat's score lead (its score less the best other's), over the positions whose lead is
within --within points, beside the slope the map uses.

    python benchmarks/bench_plan_units.py --games 200
"""
from __future__ import annotations

import argparse

import numpy as np

from bots import _evaluators
from bots.mcts import MCTSBot
from bots.spec import bot_from_spec
from bots.value_file import default_model, model_bytes
from engine import new_game


def positions(players: int, games: int, seed: int) -> list:
    """Each round's end (phase refill) of ``games`` greedy games, as GameStates."""
    out = []
    for g in range(games):
        bots = [bot_from_spec("greedy", seed + 97 * g + p) for p in range(players)]
        state = new_game(players=players)
        r = 0
        state.deal(seed=seed * 1000 + g * 10 + r)
        while not state.is_over:
            if state.phase == "refill":
                out.append(state.clone())
                r += 1
                state.deal(seed=seed * 1000 + g * 10 + r)
                continue
            state.play(bots[state.to_move].act(state))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--within", type=float, default=15.0, help="points of lead either side")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"{'players':>7} {'evaluator':<10} {'positions':>9} {'slope a point':>14} {'map':>8}")
    for players in (2, 3, 4):
        states = positions(players, args.games, args.seed)
        lead = np.array([s.scores[0] - max(s.scores[1:]) for s in states], float)
        near = np.abs(lead) <= args.within
        for name in ("heuristic", "value"):
            bot = MCTSBot(evaluator=name)
            evaluator = _evaluators.make_evaluator(
                name, model_bytes=model_bytes(default_model(players)) if name == "value" else None,
                value_scale=bot.value_scale)
            values = np.array([evaluator.value(s)[0] for s in states])
            slope = np.polyfit(lead[near], values[near], 1)[0]
            print(f"{players:>7} {name:<10} {int(near.sum()):>9} {slope:>14.4f} {bot.points_value():>8.4f}")


if __name__ == "__main__":
    main()
