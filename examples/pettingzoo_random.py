#!/usr/bin/env python3
"""Random agents on the PettingZoo Azul environment: one full game, legal moves from the action mask.

    python examples/pettingzoo_random.py [--players 3] [--variant gray] [--seed 7]

Needs the rl extra: pip install -e ".[rl]"
"""
import argparse

import numpy as np

from engine.rl import pettingzoo_env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--variant", default="colored")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()

    env = pettingzoo_env(players=args.players, variant=args.variant, render_mode="ansi")
    env.reset(seed=args.seed)                       # the deals come from this seed
    rng = np.random.default_rng(args.seed)          # the agents' own generator
    steps = 0
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        if termination or truncation:
            print(f"{agent}: reward {reward:+.2f}")
            action = None                           # a finished agent steps with None
        else:
            legal = np.flatnonzero(observation["action_mask"])
            action = int(rng.choice(legal))
            steps += 1
        env.step(action)
    print(f"{steps} moves; final scores {env.game.scores}")
    print(env.render())
    env.close()


if __name__ == "__main__":
    main()
