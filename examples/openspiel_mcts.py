#!/usr/bin/env python3
"""OpenSpiel's MCTS playing Azul (the python_azul game) against a uniform random player.

    python examples/openspiel_mcts.py [--simulations 50] [--seed 3]

Deals are chance nodes, one tile at a time; the driver samples them with the bag's odds.
Needs the rl extra: pip install -e ".[rl]"
"""
import argparse

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts

from engine.rl import register_openspiel


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--simulations", type=int, default=50)
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args()

    register_openspiel()
    game = pyspiel.load_game("python_azul", {"players": 2})
    rng = np.random.RandomState(args.seed)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    bot = mcts.MCTSBot(game, uct_c=2.0, max_simulations=args.simulations, evaluator=evaluator,
                       random_state=rng)
    state = game.new_initial_state()
    moves = 0
    while not state.is_terminal():
        if state.is_chance_node():                  # the next tile of the deal
            outcomes, probs = zip(*state.chance_outcomes())
            action = rng.choice(outcomes, p=probs)
        elif state.current_player() == 0:
            action = bot.step(state)
            moves += 1
        else:
            action = rng.choice(state.legal_actions())
            moves += 1
        state.apply_action(action)
    position = state.position_json()
    print(f"{moves} moves, {position['round']} rounds")
    print("scores", [b["score"] for b in position["boards"]], "returns", state.returns())


if __name__ == "__main__":
    main()
