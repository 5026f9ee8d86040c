"""Bots behind one interface (``Bot.act(state) -> Move``), made by type name with ``make_bot``.

Importing the package registers the built-in types: each module below registers its own class
with ``bots.registry``, which imports none of them.
"""
from . import (external, greedy, heuristic, intervention, mcts, openspiel_mcts,  # noqa: F401
               random_bot)  # (each module registers itself)
from .base import Bot
from .registry import (BOTS, Param, bot_class, bot_maker, bot_parameters, check_params, make_bot,
                       register)

__all__ = ["BOTS", "Bot", "Param", "bot_class", "bot_maker", "bot_parameters", "check_params",
           "make_bot", "register"]
