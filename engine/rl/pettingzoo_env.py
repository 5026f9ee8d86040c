"""Azul as a PettingZoo AEC environment (SPEC section 7, docs/rl.md): ``engine.rl.pettingzoo_env``."""
from __future__ import annotations

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv

from .._rl import legal_mask, observation_size, observe
from ..notation import MOVES
from ..rules import OVER, REFILL
from ..state import GameState, new_game
from ..text import board_text
from .common import (N_ACTIONS, check_action, check_players, check_reward, check_variant, final_returns,
                     truncated)


class AzulEnv(AECEnv):
    """Azul for PettingZoo: one agent per seat, actions are the engine's move codes.

    The environment deals every round itself, from its own generator (``seed``, or
    ``reset(seed=...)``); agents never see a deal before it happens. Rewards come once, at the end
    of the game (``reward="win"`` or ``"score"``, see engine.rl.common). A game still going when
    round ``MAX_ROUNDS + 1`` is due is truncated (every agent's ``truncations`` true, the rewards of
    the position as it stands). An action the mask does not allow raises ``IllegalMoveError`` (a
    ValueError) and changes nothing; an action that is not an integer code is a ValueError.
    ``step``, ``last`` and ``render`` before ``reset``, or after every agent has stepped out of a
    finished game, raise a RuntimeError that says so.
    """

    metadata = {"render_modes": ["ansi"], "name": "azul_v0", "is_parallelizable": False}

    def __init__(self, players: int = 2, variant: str = "colored", seed: int | None = None,
                 reward: str = "win", render_mode: str | None = None):
        super().__init__()
        self.players = check_players(players)
        self.variant = check_variant(variant)
        self.reward = check_reward(reward)
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise ValueError(f"seed must be an integer or None, not {seed!r}")
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(players)]
        self._seat = {agent: i for i, agent in enumerate(self.possible_agents)}
        size = observation_size(players)
        self._observation_space = spaces.Dict({
            "observation": spaces.Box(0.0, np.inf, (size,), np.float32),
            "action_mask": spaces.Box(0, 1, (N_ACTIONS,), np.int8),
        })
        self._action_space = spaces.Discrete(N_ACTIONS)
        self._seed = seed
        self.np_random = None
        self.game: GameState | None = None

    def observation_space(self, agent):
        return self._observation_space

    def action_space(self, agent):
        return self._action_space

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """A new game, dealt from the environment's generator (reseeded when ``seed`` is given)."""
        if seed is not None or self.np_random is None:
            self.np_random, _ = seeding.np_random(seed if seed is not None else self._seed)
        self.game = new_game(self.players, self.variant)
        self._core = self.game._core
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self._deal()

    def step(self, action) -> None:
        self._check_live("step")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        code = action if type(action) is int and 0 <= action < N_ACTIONS else check_action(action)
        self._cumulative_rewards[agent] = 0.0
        if self._core.play(code):
            self.game.play(MOVES[code])  # raises IllegalMoveError with the reason
        if self._core.phase == REFILL:
            self._deal()
        else:
            self._after_move()
        self._accumulate_rewards()

    def observe(self, agent) -> dict:
        """The position as ``agent`` sees it, and its legal moves (all zero unless it is to move)."""
        if self.game is None:
            raise RuntimeError("observe() before reset(): call reset() first")
        seat = self._seat[agent]
        obs = np.empty(self._observation_space["observation"].shape, np.float32)
        observe(self._core, seat, obs)
        mask = np.zeros(N_ACTIONS, np.int8)
        if seat == self._core.to_move:
            legal_mask(self._core, mask)
        return {"observation": obs, "action_mask": mask}

    def last(self, observe: bool = True):
        """The agent to act's observation, reward, termination, truncation and info."""
        self._check_live("last")
        return super().last(observe)

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() without a render_mode: pass render_mode='ansi'")
            return None
        if self.game is None:
            raise RuntimeError("render() before reset(): call reset() first")
        return board_text(self.game.to_json())

    def _check_live(self, what: str) -> None:
        if self.game is None:
            raise RuntimeError(f"{what}() before reset(): call reset() first")
        if not self.agents:
            raise RuntimeError(f"{what}() after the game ended (every agent has stepped out): "
                               "call reset() for a new game")

    def close(self) -> None:
        pass

    # ------------------------------------------------------------ chance and the end
    def _deal(self) -> None:
        while self._core.phase == REFILL and not truncated(self.game):
            self.game.deal(seed=int(self.np_random.integers(0, 2**63)))
        self._after_move()

    def _after_move(self) -> None:
        over = self._core.phase == OVER
        if over or (self._core.phase == REFILL and truncated(self.game)):  # REFILL: past MAX_ROUNDS
            ended = self.terminations if over else self.truncations
            for agent, value in zip(self.agents, final_returns(self.game, self.reward)):
                self.rewards[agent] = value
                ended[agent] = True
        self.agent_selection = self.possible_agents[self._core.to_move]


def pettingzoo_env(players: int = 2, variant: str = "colored", seed: int | None = None,
                   reward: str = "win", render_mode: str | None = None) -> AzulEnv:
    """An ``AzulEnv``, unwrapped: it enforces reset-before-step itself (PettingZoo's
    OrderEnforcingWrapper would halve its speed, every attribute read going through the wrapper)."""
    return AzulEnv(players, variant, seed, reward, render_mode)
