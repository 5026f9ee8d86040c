"""The report's score distributions: a histogram of final scores per bot."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import polars as pl

from ..plots import STYLE, figure, to_svg
from .context import Context


def score_plot(results: pl.DataFrame, bots: list[str], bins: int = 30) -> str:
    """Histogram of final scores per bot (one step line each), from the results table."""
    scores = results.select("bot", pl.col("score").cast(pl.Float64))
    lo, hi = scores["score"].min(), scores["score"].max()
    edges = np.linspace(lo, hi if hi > lo else lo + 1.0, bins + 1)
    with plt.rc_context(STYLE):
        fig, ax = figure(6.0, 3.2)
        for bot in bots:
            values = scores.filter(pl.col("bot") == bot)["score"].to_numpy()
            counts, _ = np.histogram(values, bins=edges)
            share = counts / max(len(values), 1)
            ax.stairs(share, edges, label=bot)
        ax.set_xlabel("final score")
        ax.set_ylabel("share of the bot's games")
        ax.set_title("score distributions")
        ax.legend(frameon=False, fontsize=7)
    return to_svg(fig)


class Scores:
    title = "Score distributions"

    def compute(self, ctx: Context) -> tuple[pl.DataFrame, list[str]]:
        return ctx.results, ctx.bots

    def figures(self, data) -> dict[str, str]:
        return {"scores": score_plot(*data)}

    def html(self, data, figures: dict[str, str]) -> list[str]:
        return ["<h2>Score distributions</h2>", f"<figure>{figures['scores']}</figure>"]

    def markdown(self, data) -> list[str]:
        return []


SECTION = Scores()
