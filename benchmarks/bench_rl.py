"""Environment steps per second on one core, under random play, for the PettingZoo environment
(each step: ``last()`` with its observation and action mask, a random legal action from the mask,
``step``) and for the OpenSpiel game ``python_azul`` (each step: one action, chance outcomes
included, with ``legal_actions`` or ``chance_outcomes`` to choose it; then the same with an
``observation_tensor`` read at every decision node).

    python benchmarks/bench_rl.py                 # about 10 s
    python benchmarks/bench_rl.py --seconds 1     # quicker, noisier

The target is at least 20,000 PettingZoo steps per second (2 players, coloured wall).
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's packages, installed or not

from engine.rl import pettingzoo_env, register_openspiel  # noqa: E402

TARGET = 20_000


def pettingzoo_steps(seconds: float, players: int, variant: str) -> float:
    env = pettingzoo_env(players=players, variant=variant, seed=1)
    rng = random.Random(1)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.reset()
        for agent in env.agent_iter():
            obs, reward, termination, truncation, info = env.last()
            if termination or truncation:
                env.step(None)
                continue
            legal = obs["action_mask"].nonzero()[0]
            env.step(legal[rng.randrange(len(legal))])
            steps += 1
    return steps / (time.perf_counter() - start)


def openspiel_steps(seconds: float, players: int, variant: str, observe: bool) -> float:
    import pyspiel

    register_openspiel()
    game = pyspiel.load_game("python_azul", {"players": players, "variant": variant})
    rng = random.Random(1)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(outcomes, probs)[0])
            else:
                if observe:
                    state.observation_tensor(state.current_player())
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
            steps += 1
    return steps / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description="engine.rl steps per second under random play")
    parser.add_argument("--seconds", type=float, default=2.0, help="seconds per measurement")
    args = parser.parse_args()
    print(f"{'what':<44} {'steps/s':>10}")
    for players, variant in ((2, "colored"), (4, "gray")):
        rate = pettingzoo_steps(args.seconds, players, variant)
        print(f"{f'pettingzoo {players}p {variant} (obs + mask)':<44} {rate:>10,.0f}")
        if (players, variant) == (2, "colored"):
            verdict = "meets" if rate >= TARGET else "MISSES"
            print(f"  {verdict} the target of {TARGET:,} steps/s")
    for observe in (False, True):
        what = "openspiel 2p colored" + (" (+ observation_tensor)" if observe else "")
        print(f"{what:<44} {openspiel_steps(args.seconds, 2, 'colored', observe):>10,.0f}")


if __name__ == "__main__":
    main()
