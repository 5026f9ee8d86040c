"""The heuristic bot: one ply over a weighted evaluation (docs/bots.md, "heuristic")."""
from __future__ import annotations

import math

from engine import GameState, Move
from engine.notation import MOVES

from ._policies import Policy
from .base import Bot
from .registry import register

# Allowed range of each weight (the defaults live in C: bots._policies.default_weight_values()).
RANGES = {
    "line": (0.0, 10.0), "later": (0.0, 1.0), "column": (0.0, 10.0), "row": (0.0, 10.0),
    "colour_set": (0.0, 10.0), "floor_risk": (0.0, 10.0), "marker": (-10.0, 10.0),
    "denial": (0.0, 2.0), "reply": (0.0, 2.0),
}


@register("heuristic")
class HeuristicBot(Bot):
    """Plays the move after which its evaluation is best: its own board's worth minus
    ``denial`` times the best opponent's. Exact ties are broken at random (seeded)."""

    def __init__(self, seed: int = 0, *, line: float = 0.5, later: float = 0.2,
                 column: float = 0.5, row: float = 0.5, colour_set: float = 0.5,
                 floor_risk: float = 1.0, marker: float = 1.5, denial: float = 1.0,
                 reply: float = 1.25):
        super().__init__(seed)
        weights = {"line": line, "later": later, "column": column, "row": row,
                   "colour_set": colour_set, "floor_risk": floor_risk, "marker": marker,
                   "denial": denial, "reply": reply}
        for name, value in weights.items():
            low, high = RANGES[name]
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ValueError(f"heuristic: parameter {name} must be a number, not {value!r}")
            if not (math.isfinite(value) and low <= value <= high):
                raise ValueError(f"heuristic: parameter {name} must be in [{low:g}, {high:g}], not {value!r}")
        self.weights = {name: float(value) for name, value in weights.items()}
        self._policy = Policy("heuristic", seed, self.weights)

    @property
    def name(self) -> str:
        """``heuristic``, with the weights that differ from the defaults: ``heuristic(denial=0.8)``."""
        defaults = HeuristicBot.__init__.__kwdefaults__
        changed = [f"{k}={v:g}" for k, v in self.weights.items() if v != defaults[k]]
        return f"heuristic({', '.join(changed)})" if changed else "heuristic"

    def reset(self) -> None:
        self._policy.reseed(self.seed)

    def act(self, state: GameState) -> Move:
        return MOVES[self._policy.choose(state._core)]
