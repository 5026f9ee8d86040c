"""The table in the browser where a person plays the bots."""
from __future__ import annotations

from pathlib import Path


def play_routes(play_out: Path) -> list:
    return []
