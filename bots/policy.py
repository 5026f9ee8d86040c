"""``PolicyBot``: a policy trained on the PettingZoo environment (engine.rl) as a league bot.

A policy is a callable ``policy(observation, action_mask) -> action``: the float32 observation
vector and the int8 mask exactly as ``engine.rl.pettingzoo_env`` gives them to the seat to move,
and a move code back. Two ways to bring one into a league config (docs/rl.md):

    bots:
      - name: my-agent                      # a function, named by its import path
        type: bots.policy:PolicyBot
        params: {policy: "my_package.agent:act"}
      - name: my-agent-2                    # or a subclass that overrides choose()
        type: my_package.agent:MyPolicyBot

Needs numpy only (not PettingZoo): the observation is built by the compiled engine.
"""
from __future__ import annotations

import importlib
from collections.abc import Callable

import numpy as np

from engine import GameState, IllegalMoveError, Move
from engine.notation import MOVES
from engine.rl import observation

from .base import Bot

Policy = Callable[[np.ndarray, np.ndarray], int]


class PolicyBot(Bot):
    """Plays ``policy(observation, action_mask)``; ``policy`` is a callable or ``"module:function"``.

    Subclasses may override ``choose`` instead (and then need no ``policy``); ``self.rng`` is the
    bot's seeded generator for a policy that samples.
    """

    type_name = "policy"

    def __init__(self, seed: int = 0, *, policy: str | Policy | None = None):
        super().__init__(seed)
        self.policy_name = policy if isinstance(policy, str) else getattr(policy, "__name__", None)
        self._policy = load_policy(policy) if isinstance(policy, str) else policy
        if self._policy is not None and not callable(self._policy):
            raise ValueError(f"policy: parameter policy must be callable or 'module:function', not {policy!r}")
        if self._policy is None and type(self).choose is PolicyBot.choose:
            raise ValueError("policy: give policy='module:function' (or subclass PolicyBot and override choose)")

    @property
    def name(self) -> str:
        return f"policy({self.policy_name})" if self.policy_name else type(self).__name__

    def choose(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The move code to play (one where ``action_mask`` is 1)."""
        return self._policy(observation, action_mask)

    def act(self, state: GameState) -> Move:
        seen = observation(state)
        action = self.choose(seen["observation"], seen["action_mask"])
        try:
            code = int(action)
        except (TypeError, ValueError):
            raise IllegalMoveError(f"{self.name}: the policy returned {action!r}, not a move code") from None
        if not 0 <= code < len(MOVES) or not seen["action_mask"][code]:
            shown = MOVES[code] if 0 <= code < len(MOVES) else "no move"
            raise IllegalMoveError(f"{self.name}: the policy chose action {code} ({shown}), "
                                   "which the action mask does not allow")
        return MOVES[code]


def load_policy(path: str) -> Policy:
    """Import ``"package.module:function"``; a ValueError says what is wrong with it."""
    module_name, sep, attr = path.partition(":")
    if not sep or not module_name or not attr:
        raise ValueError(f"policy: {path!r} is not 'module:function'")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"policy: cannot import {module_name!r} ({exc})") from None
    function = getattr(module, attr, None)
    if not callable(function):
        raise ValueError(f"policy: {module_name} has no callable {attr!r}")
    return function


def first_legal(observation: np.ndarray, action_mask: np.ndarray) -> int:
    """A trivial policy, for examples and tests: the lowest legal move code."""
    return int(np.flatnonzero(action_mask)[0])
