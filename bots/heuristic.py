"""The heuristic bot: one ply over a weighted evaluation (docs/bots.md, "heuristic")."""
from __future__ import annotations

from typing import Annotated

from engine import GameState, Move
from engine.notation import MOVES

from ._policies import Policy
from .base import Bot, CompiledForm
from .registry import Param, changed_parameters, register, register_preset

WEIGHTS = ("line", "later", "column", "row", "colour_set", "floor_risk", "marker", "denial", "reply")

# The weights that also value MCTS's round ends (bots/mcts.py takes them as parameters too).
Line = Annotated[float, Param("weight on partial lines", 0.0, 10.0)]
Later = Annotated[float, Param("chance a line short of tiles this round completes in a later round", 0.0, 1.0)]
Column = Annotated[float, Param("weight on the column bonus potential", 0.0, 10.0)]
Row = Annotated[float, Param("weight on the row bonus potential", 0.0, 10.0)]
ColourSet = Annotated[float, Param("weight on the colour-set potential", 0.0, 10.0)]
Marker = Annotated[float, Param("points for opening the next round", -10.0, 10.0)]


@register("heuristic")
class HeuristicBot(Bot):
    """Plays the move after which its evaluation is best: its own board's worth minus
    ``denial`` times the best opponent's. Exact ties are broken at random (seeded)."""

    def __init__(
        self, seed: int = 0, *,
        line: Line = 0.5,
        later: Later = 0.2,
        column: Column = 0.5,
        row: Row = 0.5,
        colour_set: ColourSet = 0.5,
        floor_risk: Annotated[float, Param(
            "points per tile the seat is likely to be forced to floor this round", 0.0, 10.0)] = 1.0,
        marker: Marker = 1.5,
        denial: Annotated[float, Param("weight on the best opponent's value", 0.0, 2.0)] = 1.0,
        reply: Annotated[float, Param(
            "weight on the next player's best immediate (greedy) move value", 0.0, 2.0)] = 1.25,
    ):
        super().__init__(seed)
        values = (line, later, column, row, colour_set, floor_risk, marker, denial, reply)
        self.weights = {name: float(value) for name, value in zip(WEIGHTS, values)}
        self._policy = Policy("heuristic", seed, self.weights)

    @property
    def name(self) -> str:
        """``heuristic``, with the weights that differ from the defaults: ``heuristic(denial=0.8)``
        (a preset's: ``heuristic-4p(marker=2)``)."""
        changed = [f"{k}={v:g}" for k, v in changed_parameters(self, self.weights).items()]
        return f"{self.type_name}({', '.join(changed)})" if changed else self.type_name

    def reset(self) -> None:
        self._policy.reseed(self.seed)

    def act(self, state: GameState) -> Move:
        return MOVES[self._policy.choose(state)]

    def choose_among(self, state: GameState, allowed: list[Move]) -> Move:
        return MOVES[self._policy.choose(state, [m.code for m in allowed])]

    def choose_planned(self, state: GameState, plan: tuple[float, float, float, float]) -> Move:
        return MOVES[self._policy.choose(state, plan=plan)]

    def compiled_form(self) -> CompiledForm:
        """Played in C: its policy, ``heuristic_pick``, with its weights."""
        return CompiledForm("heuristic", self.weights)


# ---------------------------------------------------------------- presets
# Weights tuned by ``azul tune`` for one player count (configs/tunes/, docs/tune.md "Tuned values"),
# each offered as a bot type of its own: ``heuristic-4p`` is the heuristic with these weights as its
# defaults (a spec may still set any weight: ``heuristic-4p:marker=2``). The heuristic's own
# defaults do not change.
PRESETS: dict[str, dict[str, float]] = {
    "heuristic-3p": {"line": 0.7466, "later": 0.05542, "column": 1.132, "row": 0.1114, "colour_set": 2.26,
                     "floor_risk": 0.9179, "marker": 5.183, "denial": 0.6802, "reply": 1.146},
    "heuristic-4p": {"line": 0.6024, "later": 0.2134, "column": 1.328, "row": 0.3785, "colour_set": 1.953,
                     "floor_risk": 0.4879, "marker": 3.509, "denial": 0.9069, "reply": 1.101},
}


for _name, _weights in PRESETS.items():
    register_preset(_name, HeuristicBot, _weights,
                    f"The heuristic with the weights tuned for {_name[-2:]} (docs/tune.md).")
