"""The one small interface every bot implements."""
from __future__ import annotations

import random

from engine import GameState, Move


class Bot:
    """A player: built with its parameters and a seed, asked for one move at a time.

    A bot draws randomness only from its own generator (seeded from ``seed``), so a game with
    the same seeds and deals is reproduced exactly. ``act`` never changes the state it is shown.
    """

    type_name = "bot"
    #: The referee's limit for one move, in seconds (None: no limit). A league's referee sets it
    #: before each game; a bot may budget its thinking by it (an external bot passes it on).
    time_limit: float | None = None

    def __init__(self, seed: int = 0):
        self.seed = seed
        self.rng = random.Random(seed)

    @property
    def name(self) -> str:
        """A short label for tables and records, e.g. ``mcts(iterations=5000)``."""
        return self.type_name

    def reset(self) -> None:
        """Called at the start of each game; bots with memory between moves clear it here."""

    def act(self, state: GameState) -> Move:
        """A legal move for ``state.to_move`` (draft or gray tiling move)."""
        raise NotImplementedError

    def choose_among(self, state: GameState, allowed: list[Move]) -> Move:
        """A move of ``allowed`` (legal moves of ``state``), chosen as the bot chooses: what an
        intervention (bots/intervention.py) asks of its base bot. Bots that cannot be
        constrained raise a ValueError that says so."""
        raise ValueError(f"{self.type_name}: this bot cannot be constrained to a set of moves")
