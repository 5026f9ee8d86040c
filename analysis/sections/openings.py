"""The report's openings: each seat's first move of a game, the most played (move records)."""
from __future__ import annotations

import polars as pl

from ..openings import opening_table
from .context import Context
from .format import html_table

ROWS = 20  # rows of the openings table shown


class Openings:
    title = "Openings"

    def compute(self, ctx: Context) -> pl.DataFrame | None:
        con = ctx.moves()
        if con is None:
            return None
        return opening_table(con, scope="game").sort(["n", "win_rate"], descending=True).head(ROWS)

    def figures(self, data: pl.DataFrame) -> dict[str, str]:
        return {}

    def html(self, data: pl.DataFrame, figures: dict[str, str]) -> list[str]:
        return [(f"<h2>Openings</h2><p>Each seat's first move of a game: where from, how many "
                 f"tiles, to which line (0: the floor); the {ROWS} most played.</p>"),
                html_table(data, {
                    "players": ("num_players", 0), "bot": ("bot", None),
                    "moved first": ("opened", None), "source": ("source", None),
                    "taken": ("taken", 0), "line": ("line", 0), "games": ("n", 0),
                    "win rate": ("win_rate", 3), "low": ("low", 3), "high": ("high", 3),
                    "mean score": ("mean_score", 1)})]

    def markdown(self, data: pl.DataFrame) -> list[str]:
        return []


SECTION = Openings()
