"""The report's figures (matplotlib, Agg), each returned as an inline ``<svg>`` string.

Every function takes small aggregate frames (a ratings table, a crosstable, seat rates, ...),
never the move records. The SVG is deterministic (fixed ``svg.hashsalt``, no date), its text kept
as text (``svg.fonttype: none``, so names stay searchable), and stripped of the XML prologue,
namespaces and metadata so that it embeds in HTML without a single URL.
"""
from __future__ import annotations

import io
import re

import matplotlib

matplotlib.use("Agg")  # no display, ever

import matplotlib.pyplot as plt
import numpy as np
import polars as pl

STYLE = {
    "svg.hashsalt": "azul-report",  # ids in the SVG do not change from run to run
    "svg.fonttype": "none",  # text as <text>, not glyph paths
    "text.parse_math": False,  # a '$' in a bot's name is just a character
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
}
BLUE, GREY = "#3366aa", "#888888"


def to_svg(fig) -> str:
    """A figure as an ``<svg>`` element for inline HTML (closes the figure)."""
    buf = io.StringIO()
    with plt.rc_context(STYLE):
        fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
    plt.close(fig)
    text = buf.getvalue()
    text = text[text.index("<svg"):]
    text = re.sub(r"<metadata>.*?</metadata>\s*", "", text, flags=re.DOTALL)
    return re.sub(r'\s+xmlns(:xlink)?="[^"]*"', "", text)


def _figure(width: float, height: float):
    with plt.rc_context(STYLE):
        return plt.subplots(figsize=(width, height))


def _err(values, low, high):
    """Error bar lengths (below, above); nan intervals draw no bar."""
    v, lo, hi = (np.asarray(x, dtype=float) for x in (values, low, high))
    return np.nan_to_num(np.vstack([v - lo, hi - v]), nan=0.0).clip(min=0.0)


def ratings_plot(table: pl.DataFrame, title: str) -> str:
    """Ratings (``bot``, ``rating``, ``low``, ``high``) as points with interval bars, best on top."""
    t = table.sort("rating")
    with plt.rc_context(STYLE):
        fig, ax = _figure(6.0, 0.6 + 0.35 * t.height)
        y = np.arange(t.height)
        ax.errorbar(t["rating"], y, xerr=_err(t["rating"], t["low"], t["high"]), fmt="o",
                    color=BLUE, capsize=3)
        ax.set_yticks(y, t["bot"].to_list())
        ax.axvline(0.0, color=GREY, lw=0.8, ls=":")
        ax.set_xlabel("rating (Elo points), 95% interval")
        ax.set_title(title)
    return to_svg(fig)


def heatmap_plot(cross: pl.DataFrame, bots: list[str]) -> str:
    """Head to head: the row bot's points per game against the column bot (crosstable rows)."""
    n = len(bots)
    index = {b: i for i, b in enumerate(bots)}
    grid = np.full((n, n), np.nan)
    for row in cross.iter_rows(named=True):
        if row["bot"] in index and row["opponent"] in index:
            grid[index[row["bot"]], index[row["opponent"]]] = row["score"]
    with plt.rc_context(STYLE):
        fig, ax = _figure(1.5 + 0.6 * n, 1.0 + 0.5 * n)
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


def seat_plot(seats: pl.DataFrame) -> str:
    """Win rate by seat with intervals, one panel per player count (rows with ``bot`` null): all
    games, and beside them the games between equal bots where there are any."""
    pooled = seats.filter(pl.col("bot").is_null())
    counts = sorted(pooled["num_players"].unique().to_list())
    kinds = [("all", "all games", BLUE, 0.0), ("equal", "equal bots", "#cc6633", 0.15)]
    with plt.rc_context(STYLE):
        fig, axes = plt.subplots(1, len(counts), figsize=(3.2 * len(counts), 2.8), squeeze=False)
        for ax, n in zip(axes[0], counts):
            here = pooled.filter(pl.col("num_players") == n)
            shown = [k for k in kinds if here.filter(pl.col("between") == k[0]).height]
            for between, label, colour, shift in shown:
                t = here.filter(pl.col("between") == between).sort("seat")
                ax.errorbar(t["seat"].to_numpy() + (shift if len(shown) > 1 else 0.0),
                            t["win_rate"], yerr=_err(t["win_rate"], t["low"], t["high"]),
                            fmt="o", color=colour, capsize=3, label=label)
            ax.axhline(1.0 / n, color=GREY, lw=0.8, ls=":")
            ax.set_xticks(sorted(here["seat"].unique().to_list()))
            ax.set_xlabel("seat (0 moves first)")
            ax.set_ylabel("win rate")
            ax.set_title(f"{n} players")
            if len(shown) > 1:
                ax.legend(frameon=False, fontsize=7)
    return to_svg(fig)


def marker_plot(timing: pl.DataFrame, effect: pl.DataFrame | None) -> str:
    """When the first-player marker is taken (share by ply of the round) and its effect."""
    counts = sorted(timing["num_players"].unique().to_list())
    panels = 1 + (effect is not None and effect.height > 0)
    with plt.rc_context(STYLE):
        fig, axes = plt.subplots(1, panels, figsize=(4.2 * panels, 3.0), squeeze=False)
        ax = axes[0][0]
        for n in counts:
            t = timing.filter(pl.col("num_players") == n).sort("ply_in_round")
            ax.plot(t["ply_in_round"], t["share"], marker="o", label=f"{n} players")
        ax.set_xlabel("ply of the round")
        ax.set_ylabel("share of marker takes")
        ax.set_title("when the marker is taken")
        ax.legend(frameon=False)
        if panels == 2:
            ax = axes[0][1]
            e = effect.sort("num_players")
            y = np.arange(e.height)
            ax.errorbar(e["estimate"], y, xerr=_err(e["estimate"], e["low"], e["high"]), fmt="o",
                        color=BLUE, capsize=3)
            ax.set_yticks(y, [f"{n} players" for n in e["num_players"].to_list()])
            ax.axvline(0.0, color=GREY, lw=0.8, ls=":")
            ax.set_xlabel("effect on winning (log-odds), 95% interval")
            ax.set_title("taking the marker")
    return to_svg(fig)


def score_plot(results: pl.DataFrame, bots: list[str], bins: int = 30) -> str:
    """Histogram of final scores per bot (one step line each), from the results table."""
    scores = results.select("bot", pl.col("score").cast(pl.Float64))
    lo, hi = scores["score"].min(), scores["score"].max()
    edges = np.linspace(lo, hi if hi > lo else lo + 1.0, bins + 1)
    with plt.rc_context(STYLE):
        fig, ax = _figure(6.0, 3.2)
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
