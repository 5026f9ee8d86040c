"""The greedy bot: the move with the best immediate value (docs/bots.md, "greedy")."""
from __future__ import annotations

from engine import GameState, Move
from engine.notation import MOVES

from ._policies import Policy
from .base import Bot, CompiledForm
from .registry import register


@register("greedy")
class GreedyBot(Bot):
    """Wall points the move makes certain this round minus the floor penalty it causes.

    Ties go to the move that puts more tiles into pattern lines, then uniformly at random from
    the bot's own generator (seeded from ``seed`` and reseeded by ``reset``). Gray tiling moves:
    the column whose placement scores most now. The policy runs in C (bots/_policies.pyx).
    """

    def __init__(self, seed: int = 0):
        super().__init__(seed)
        self._policy = Policy("greedy", seed)

    def reset(self) -> None:
        self._policy.reseed(self.seed)

    def act(self, state: GameState) -> Move:
        return MOVES[self._policy.choose(state)]

    def choose_among(self, state: GameState, allowed: list[Move]) -> Move:
        return MOVES[self._policy.choose(state, [m.code for m in allowed])]

    def choose_planned(self, state: GameState, plan: tuple[float, float, float, float]) -> Move:
        return MOVES[self._policy.choose(state, plan=plan)]

    def compiled_form(self) -> CompiledForm:
        """Played in C: its policy, ``greedy_pick``."""
        return CompiledForm("greedy")
