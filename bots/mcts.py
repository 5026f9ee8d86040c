"""The MCTS bot: UCT over the compiled engine, its search loop and rollouts in C (bots/_mcts.pyx).

Chance (the next deal) is sampled with the bot's own generator, seeded from the bot's seed and
the position: a search depends on nothing but the position, the seed and the parameters, and
never on the referee's deals (a GameState holds no generator of future deals anyway).
"""
from __future__ import annotations

from typing import Literal

from engine import GameState, Move
from engine.notation import MOVES

from . import _mcts
from .base import Bot
from .registry import register

ROLLOUTS = ("random", "greedy", "heuristic")
CUTOFFS = ("round", "game")
DEFAULTS = {"iterations": 5000, "seconds": None, "exploration": 0.7, "rollout": "greedy",
            "cutoff": "round", "value_scale": 8.0, "max_nodes": 1 << 23}


@register("mcts")
class MCTSBot(Bot):
    """UCT search with a configurable rollout policy and cut-off.

    iterations: search iterations per move (at least 1); the budget unless ``seconds`` is given.
    seconds: a time budget per move (> 0); overrides iterations, and is then not deterministic.
    exploration: the UCT constant c in mean + c * sqrt(ln N / n), values in [0, 1].
    rollout: the policy that plays on from a leaf: "random", "greedy" or "heuristic".
    cutoff: "round" stops each rollout at the end of the round and scores it with the
        heuristic's evaluation; "game" deals the next rounds with the bot's generator and plays on.
    value_scale: points of evaluation margin that make a 73% pairwise value at a cut-off.
    max_nodes: the most tree nodes one search may hold (24 bytes each).
    """

    def __init__(self, seed: int = 0, *, iterations: int = 5000, seconds: float | None = None,
                 exploration: float = 0.7, rollout: Literal["random", "greedy", "heuristic"] = "greedy",
                 cutoff: Literal["round", "game"] = "round", value_scale: float = 8.0,
                 max_nodes: int = 1 << 23):
        super().__init__(seed)
        self.iterations = _integer("iterations", iterations, 1)
        if seconds is not None:
            seconds = _number("seconds", seconds)
            if not seconds > 0:
                raise ValueError(f"mcts: parameter seconds must be greater than 0 (or None), not {seconds!r}")
        self.seconds = seconds
        self.exploration = _number("exploration", exploration)
        if self.exploration < 0:
            raise ValueError(f"mcts: parameter exploration must be at least 0, not {exploration!r}")
        if rollout not in ROLLOUTS:
            raise ValueError(f"mcts: parameter rollout must be one of {', '.join(map(repr, ROLLOUTS))}, "
                             f"not {rollout!r}")
        self.rollout = rollout
        if cutoff not in CUTOFFS:
            raise ValueError(f"mcts: parameter cutoff must be one of {', '.join(map(repr, CUTOFFS))}, "
                             f"not {cutoff!r}")
        self.cutoff = cutoff
        self.value_scale = _number("value_scale", value_scale)
        if not self.value_scale > 0:
            raise ValueError(f"mcts: parameter value_scale must be greater than 0, not {value_scale!r}")
        self.max_nodes = _integer("max_nodes", max_nodes, 1000)
        if self.max_nodes >= 1 << 31:
            raise ValueError(f"mcts: parameter max_nodes must be below 2**31, not {max_nodes!r}")
        self._search = None

    @property
    def name(self) -> str:
        shown = {"iterations": self.iterations, "seconds": self.seconds}
        for key in ("exploration", "rollout", "cutoff", "value_scale", "max_nodes"):
            if getattr(self, key) != DEFAULTS[key]:
                shown[key] = getattr(self, key)
        if self.seconds is None:
            del shown["seconds"]
        else:
            del shown["iterations"]
        return "mcts(" + ", ".join(f"{k}={v}" for k, v in shown.items()) + ")"

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_search"] = None        # the node pool is rebuilt on first use
        return state

    # ------------------------------------------------------------ playing
    def act(self, state: GameState) -> Move:
        """The most visited move at the root after the search (the shown state is not changed)."""
        search = self._run(state, None)
        return MOVES[search.best_move()]

    def analyze(self, state: GameState, iterations: int | None = None) -> list[dict]:
        """Each root move's visits, mean value (for the seat to move, in [0, 1]) and principal
        variation, sorted by visits (most first; the first row is the move ``act`` plays)."""
        search = self._run(state, iterations)
        rows = search.root_rows(8)
        best = search.best_move()
        order = sorted(range(len(rows)), key=lambda i: (rows[i][0] != best, -rows[i][1], -rows[i][2]))
        return [{"move": str(MOVES[rows[i][0]]), "visits": int(rows[i][1]), "value": float(rows[i][2]),
                 "pv": [str(MOVES[c]) for c in rows[i][3]]} for i in order]

    def _run(self, state: GameState, iterations: int | None):
        if not isinstance(state, GameState):
            raise ValueError(f"mcts: expected a GameState, not {type(state).__name__}")
        if state.phase not in ("draft", "tiling"):
            raise ValueError(f"mcts: no move to choose in phase {state.phase}")
        budget = self.iterations if iterations is None else _integer("iterations", iterations, 1)
        seconds = self.seconds if iterations is None else None
        if self._search is None:
            self._search = _mcts.Search(self.max_nodes)
        if seconds is not None:
            budget = 1 << 62
        self._search.run(state._core, self.seed, budget, seconds or 0.0, self.exploration,
                         self.rollout, self.cutoff, self.value_scale)
        return self._search


def _integer(name: str, value, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"mcts: parameter {name} must be an integer, not {value!r}")
    if value < least:
        raise ValueError(f"mcts: parameter {name} must be at least {least}, not {value!r}")
    return value


def _number(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"mcts: parameter {name} must be a number, not {value!r}")
    return float(value)
