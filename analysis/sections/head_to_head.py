"""The report's 2-player head to head: a heatmap of each pair's win share and its table."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import polars as pl

from .. import stats
from ..plots import STYLE, figure, to_svg
from .context import Context
from .format import html_table


def heatmap_plot(cross: pl.DataFrame, bots: list[str]) -> str:
    """Head to head: the row bot's points per game against the column bot (crosstable rows)."""
    n = len(bots)
    index = {b: i for i, b in enumerate(bots)}
    grid = np.full((n, n), np.nan)
    for row in cross.iter_rows(named=True):
        if row["bot"] in index and row["opponent"] in index:
            grid[index[row["bot"]], index[row["opponent"]]] = row["score"]
    with plt.rc_context(STYLE):
        fig, ax = figure(1.5 + 0.6 * n, 1.0 + 0.5 * n)
        image = ax.imshow(grid, cmap="RdBu", vmin=0.0, vmax=1.0)
        ax.set_xticks(range(n), bots, rotation=45, ha="right")
        ax.set_yticks(range(n), bots)
        for i in range(n):
            for j in range(n):
                if not np.isnan(grid[i, j]):
                    ax.text(j, i, f"{grid[i, j]:.2f}", ha="center", va="center", fontsize=8,
                            color="white" if abs(grid[i, j] - 0.5) > 0.3 else "black")
        ax.set_xlabel("opponent")
        ax.set_title("2-player head to head: row bot's win share")
        fig.colorbar(image, ax=ax, shrink=0.8)
    return to_svg(fig)


class HeadToHead:
    title = "Head to head (2 players)"

    def compute(self, ctx: Context) -> tuple[pl.DataFrame, list[str]] | None:
        """The crosstable and the bots in the heatmap's order (best first); None without
        2-player games."""
        if 2 not in ctx.games_by_players:
            return None
        bots = ctx.ratings[2].table["bot"].to_list() if 2 in ctx.ratings else ctx.bots
        return stats.crosstable(ctx.results, ctx.games), bots

    def figures(self, data) -> dict[str, str]:
        cross, bots = data
        return {"heatmap": heatmap_plot(cross, bots)} if cross.height else {}

    def html(self, data, figures: dict[str, str]) -> list[str]:
        return ["<h2>Head to head (2 players)</h2>", f"<figure>{figures.get('heatmap', '')}</figure>",
                html_table(data[0], {
                    "bot": ("bot", None), "opponent": ("opponent", None), "games": ("games", 0),
                    "wins": ("wins", 0), "shared": ("shared", 0), "losses": ("losses", 0),
                    "win rate": ("score", 3), "low": ("low", 3), "high": ("high", 3)})]

    def markdown(self, data) -> list[str]:
        return []


SECTION = HeadToHead()
