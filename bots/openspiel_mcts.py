"""The ``openspiel_mcts`` bot: OpenSpiel's own MCTS (open_spiel.python.algorithms.mcts) searching
the ``python_azul`` game of engine.rl, for comparison with this project's ``mcts``.

The search is OpenSpiel's: its tree, UCT, and its handling of the chance nodes of the deal (one
tile at a time, with the bag's true probabilities). Only the leaf evaluation is ours by default:
``rollout="compiled"`` plays the rest of the game at random in the compiled core (like OpenSpiel's
``RandomRolloutEvaluator``, a hundred times faster); ``rollout="openspiel"`` uses OpenSpiel's
evaluator itself. Leaf values are the ``win`` returns of engine.rl (+1 shared by the winners, -1
by the others). Needs the ``rl`` extra (``pip install -e ".[rl]"``).
"""
from __future__ import annotations

import random
from typing import Annotated, Literal

import numpy as np

from engine import GameState, Move
from engine.notation import MOVES

from .base import Bot
from .registry import Param, register


@register("openspiel_mcts")
class OpenSpielMCTSBot(Bot):
    """OpenSpiel's MCTSBot on python_azul (parameters declared once below, checked by the registry)."""

    def __init__(
        self, seed: int = 0, *,
        iterations: Annotated[int, Param("simulations per move", 1, 10_000_000)] = 1000,
        uct_c: Annotated[float, Param(
            "the UCT exploration constant (OpenSpiel's examples use 2 for values in [-1, 1])", 0, 100)] = 2.0,
        rollouts: Annotated[int, Param("random playouts averaged per leaf", 1, 1000)] = 1,
        rollout: Annotated[Literal["compiled", "openspiel"], Param(
            "compiled: random playouts in the engine's core; openspiel: OpenSpiel's "
            "RandomRolloutEvaluator, in Python")] = "compiled",
    ):
        super().__init__(seed)
        self.iterations, self.uct_c, self.rollouts, self.rollout = iterations, float(uct_c), rollouts, rollout
        self._games: dict = {}

    @property
    def name(self) -> str:
        return f"openspiel_mcts(iterations={self.iterations})"

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_games"] = {}  # pyspiel objects are rebuilt on first use
        return state

    def act(self, state: GameState) -> Move:
        if not isinstance(state, GameState):
            raise ValueError(f"openspiel_mcts: expected a GameState, not {type(state).__name__}")
        if state.phase not in ("draft", "tiling"):
            raise ValueError(f"openspiel_mcts: no move to choose in phase {state.phase}")
        from open_spiel.python.algorithms import mcts

        game = self._game(state.players, state.variant)
        # A search depends on the bot's seed and the position only (like the mcts bot's).
        seed = random.Random(f"{self.seed}:{state.to_json()}").randrange(2**32)
        evaluator = (CompiledRollouts(self.rollouts, seed) if self.rollout == "compiled"
                     else mcts.RandomRolloutEvaluator(self.rollouts, np.random.RandomState(seed)))
        search = mcts.MCTSBot(game, self.uct_c, self.iterations, evaluator, solve=False,
                              random_state=np.random.RandomState(seed))
        root = game.new_initial_state()
        root.set_position(state)
        return MOVES[search.step(root)]

    def _game(self, players: int, variant: str):
        key = (players, variant)
        if key not in self._games:
            import pyspiel

            from engine.rl import register_openspiel

            register_openspiel()
            self._games[key] = pyspiel.load_game("python_azul", {"players": players, "variant": variant})
        return self._games[key]


class CompiledRollouts:
    """An OpenSpiel MCTS evaluator: finish the deal in progress (if any) with the bag's odds,
    then play to the end at random in the compiled core; the value is the ``win`` returns."""

    def __init__(self, rollouts: int = 1, seed: int = 0):
        self.rollouts = rollouts
        self.rng = np.random.RandomState(seed)

    def evaluate(self, state) -> np.ndarray:
        from engine.rl.common import rollout_ranks, win_returns

        if state.is_terminal():
            return np.array(state.returns())
        total = np.zeros(state.num_players())
        for _ in range(self.rollouts):
            working = state
            if working.is_chance_node():
                working = state.clone()
                while working.is_chance_node():
                    colours, probs = zip(*working.chance_outcomes())
                    working.apply_action(colours[self.rng.choice(len(colours), p=probs)])
            if working.is_terminal():
                total += working.returns()
                continue
            total += win_returns(rollout_ranks(working.position, int(self.rng.randint(2**31))))
        return total / self.rollouts

    def prior(self, state) -> list[tuple[int, float]]:
        if state.is_chance_node():
            return state.chance_outcomes()
        legal = state.legal_actions(state.current_player())
        return [(action, 1.0 / len(legal)) for action in legal]
