"""The report's standings: per bot, its games, wins, win rate and scores (``stats.standings``)."""
from __future__ import annotations

import polars as pl

from .. import stats
from .context import Context
from .format import html_table


class Standings:
    title = "Standings"

    def compute(self, ctx: Context) -> pl.DataFrame:
        return stats.standings(ctx.results, ctx.games)

    def figures(self, data: pl.DataFrame) -> dict[str, str]:
        return {}

    def html(self, data: pl.DataFrame, figures: dict[str, str]) -> list[str]:
        return ["<h2>Standings</h2>", html_table(data, {
            "bot": ("bot", None), "games": ("games", 0), "wins": ("wins", 0), "shared": ("shared", 0),
            "losses": ("losses", 0), "win rate": ("win_rate", 3), "low": ("low", 3),
            "high": ("high", 3), "score share": ("score_share", 3), "mean score": ("mean_score", 1),
            "floor": ("mean_floor_penalty", 1), "bonus": ("mean_bonus", 1)})]

    def markdown(self, data: pl.DataFrame) -> list[str]:
        return []


SECTION = Standings()
