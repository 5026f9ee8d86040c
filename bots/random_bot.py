"""The random bot: every legal move equally likely."""
from __future__ import annotations

from engine import GameState, Move

from .base import Bot, CompiledForm
from .registry import register


@register("random")
class RandomBot(Bot):
    def act(self, state: GameState) -> Move:
        moves = state.legal_moves()
        if not moves:
            raise ValueError(f"random: no legal move in phase {state.phase}")
        return self.rng.choice(moves)

    def choose_among(self, state: GameState, allowed: list[Move]) -> Move:
        if not allowed:
            raise ValueError("random: no move is allowed")
        return self.rng.choice(allowed)

    def compiled_form(self) -> CompiledForm:
        """Played in C: Python's ``random.Random(seed).choice`` over the legal moves, replicated."""
        return CompiledForm("random")
