"""Bots behind one interface (``Bot.act(state) -> Move``), made by type name with ``make_bot``."""
from .base import Bot
from .registry import BOTS, bot_parameters, make_bot, register

__all__ = ["BOTS", "Bot", "bot_parameters", "make_bot", "register"]
