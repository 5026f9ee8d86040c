"""The one small interface every bot implements, and how a bot says it runs compiled."""
from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field

from engine import GameState, Move


@dataclass(frozen=True)
class CompiledForm:
    """How the compiled league loop (tournament/fastloop.py) plays a bot.

    ``kind`` names one of the loop's compiled forms (``tournament._fastloop.KINDS``): ``random``,
    ``greedy`` and ``heuristic`` are C policies played whole in C (the heuristic with
    ``weights``, by name); ``callback`` asks the bot's own ``act`` once per move from C (its
    search may run in C, as MCTS's does). Either way the loop writes the rows the Python
    referee writes for the same bot and seeds."""

    kind: str
    weights: Mapping[str, float] = field(default_factory=dict)


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

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "compiled_form" not in cls.__dict__:  # a subclass plays as itself: declared anew, or none
            cls.compiled_form = Bot.compiled_form

    def compiled_form(self) -> CompiledForm | None:
        """How the compiled league loop plays this bot, or None (the default): the Python referee
        plays every game it is in. Not inherited: a subclass that changes how its parent plays
        declares its own form, or has none."""
        return None

    @property
    def name(self) -> str:
        """A short label for tables and records, e.g. ``mcts(iterations=5000)``."""
        return self.type_name

    def reset(self) -> None:
        """Called at the start of each game; bots with memory between moves clear it here."""

    def table_error(self, players: int, variant: str) -> str | None:
        """Why this bot cannot play at a table of ``players`` on ``variant``'s wall (a config names
        it before any game is played), or None: every built-in bot plays them all, but a learned
        value is for one player count."""
        return None

    @classmethod
    def parameters_error(cls, params: dict) -> str | None:
        """Why these parameters (every one, the type's defaults filled in) do not go together, or
        None: ``check_params`` asks it after each parameter's own check, so that no parameter is
        accepted that does nothing (``mcts:model=...`` without ``evaluator=value``)."""
        return None

    def models(self, players: int) -> tuple[str, ...]:
        """The models (shipped names or paths, as ``bots.value_file.model_bytes`` reads them) this
        bot reads at a table of ``players``: what a run pins by content (``run.json``)."""
        return ()

    def reseed(self, seed: int) -> None:
        """Play the next game as if built with ``seed``: a league builds each bot once per worker
        and reuses it across games (tournament/fastloop.py, tournament/game.py), with ``reseed``
        then ``reset`` before each. The default sets ``seed`` and ``rng``; a bot that
        derives more from its seed when it is built overrides it."""
        self.seed = seed
        self.rng = random.Random(seed)

    def act(self, state: GameState) -> Move:
        """A legal move for ``state.to_move`` (draft or gray tiling move)."""
        raise NotImplementedError

    def choose_among(self, state: GameState, allowed: list[Move]) -> Move:
        """A move of ``allowed`` (legal moves of ``state``), chosen as the bot chooses: what an
        intervention (bots/intervention.py) asks of its base bot. Bots that cannot be
        constrained raise a ValueError that says so."""
        raise ValueError(f"{self.type_name}: this bot cannot be constrained to a set of moves")

    def choose_planned(self, state: GameState, plan: tuple[float, float, float, float]) -> Move:
        """The move the bot chooses with a plan intervention's bias (bots/intervention.py: the
        weights colours, columns, rows, deny, in points) added where it ranks its moves. A bot
        that ranks no moves cannot take a plan; ``Bot.choose_planned`` itself says so."""
        raise ValueError(f"{self.type_name}: this bot ranks no moves, so a plan (colours, columns, rows, "
                         "deny) cannot bias it")
