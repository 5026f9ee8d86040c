# cython: language_level=3
"""UCT search over the engine's C state (lands with the MCTS bot)."""
