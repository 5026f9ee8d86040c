"""The Azul rules: a compiled core behind a small Python API (see docs/engine.md)."""
from ._playouts import random_playouts
from .errors import IllegalMoveError, InvalidPositionError
from .notation import COLOURS, Move
from .state import GameState, new_game

__version__ = "0.1.0"

__all__ = [
    "COLOURS", "GameState", "IllegalMoveError", "InvalidPositionError", "Move",
    "new_game", "random_playouts", "__version__",
]
