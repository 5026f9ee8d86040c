"""Azul for reinforcement learning (SPEC section 7, docs/rl.md).

    from engine.rl import pettingzoo_env, register_openspiel

    env = pettingzoo_env(players=2, seed=1)         # a PettingZoo AEC environment
    register_openspiel()                            # pyspiel.load_game("python_azul(players=3)")

PettingZoo and OpenSpiel are optional (``pip install -e ".[rl]"``): they are imported only when
these functions are called, so ``import engine`` and ``import engine.rl`` never need them.
"""
from __future__ import annotations

from .common import (MAX_ROUNDS, N_ACTIONS, observation, observation_layout, score_returns, split_observation,
                     win_returns)


def pettingzoo_env(players: int = 2, variant: str = "colored", seed: int | None = None,
                   reward: str = "win", render_mode: str | None = None):
    """A PettingZoo AEC environment: agents ``player_0``..``player_{n-1}``, actions move codes."""
    from .common import check_players, check_reward, check_variant

    check_players(players), check_variant(variant), check_reward(reward)
    _need("pettingzoo")
    from .pettingzoo_env import pettingzoo_env as make

    return make(players, variant, seed, reward, render_mode)


def register_openspiel() -> None:
    """Register the OpenSpiel game ``python_azul`` (parameters ``players``, ``variant``); idempotent."""
    _need("pyspiel", "open_spiel")
    from .openspiel_game import register

    register()


def _need(module: str, package: str | None = None) -> None:
    import importlib.util

    if importlib.util.find_spec(module) is None:
        raise ImportError(f"engine.rl needs {package or module}: pip install -e \".[rl]\"")


__all__ = ["MAX_ROUNDS", "N_ACTIONS", "observation", "observation_layout", "pettingzoo_env", "register_openspiel",
           "score_returns", "split_observation", "win_returns"]
