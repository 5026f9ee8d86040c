"""The pages over the runs under the served folders."""
from __future__ import annotations

from pathlib import Path


def view_routes(runs: list[Path]) -> list:
    return []
