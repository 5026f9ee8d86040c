"""The report's seat advantage: each seat's win rate (all games, and between equal bots) and
seat 0's edge from the rating fits."""
from __future__ import annotations

import math

import matplotlib.pyplot as plt
import polars as pl

from .. import stats
from ..plots import BLUE, GREY, STYLE, error_bars, to_svg
from .context import Context
from .format import edge_text, esc, html_table
from ..ratings import edge_withheld, no_interval
from .ratings import edge_name


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
                            t["win_rate"], yerr=error_bars(t["win_rate"], t["low"], t["high"]),
                            fmt="o", color=colour, capsize=3, label=label)
            ax.axhline(1.0 / n, color=GREY, lw=0.8, ls=":")
            ax.set_xticks(sorted(here["seat"].unique().to_list()))
            ax.set_xlabel("seat (0 moves first)")
            ax.set_ylabel("win rate")
            ax.set_title(f"{n} players")
            if len(shown) > 1:
                ax.legend(frameon=False, fontsize=7)
    return to_svg(fig)


def seat_lines(ctx: Context, seats: pl.DataFrame) -> list[str]:
    """Per player count: seat 0's edge from the fits (or why it is withheld), and seat 0's win
    rate in all games and between equal bots."""
    lines = []
    for n in sorted(ctx.games_by_players):
        if edge_withheld(ctx.forfeited, n):
            lines.append(f"{edge_name(n)} ({n} players): withheld, {ctx.forfeited[n]:.0%} of the "
                         "games ended by a forfeit")
        elif n in ctx.ratings:
            edge, low, high = ctx.ratings[n].first_move
            if not math.isnan(edge):
                lines.append(f"{edge_name(n)} ({n} players): "
                             f"{edge_text(edge, low, high, no_interval(ctx.ratings[n]))}")
        for between, games in (("all", "games"), ("equal", "games between equal bots")):
            row = seats.filter(pl.col("bot").is_null() & (pl.col("num_players") == n)
                               & (pl.col("seat") == 0) & (pl.col("between") == between))
            if row.height:
                r = row.row(0, named=True)
                lines.append(f"seat 0 ({n} players) wins {r['win_rate']:.1%} of {r['games']:,} "
                             f"{games} (95% {r['low']:.1%} .. {r['high']:.1%}; no edge: "
                             f"{r['expected']:.1%})")
    return lines


class Seats:
    title = "Seat advantage"

    def compute(self, ctx: Context) -> tuple[pl.DataFrame, list[str]]:
        seats = stats.seat_advantage(ctx.results, ctx.games)
        return seats, seat_lines(ctx, seats)

    def figures(self, data) -> dict[str, str]:
        return {"seats": seat_plot(data[0])}

    def html(self, data, figures: dict[str, str]) -> list[str]:
        seats, lines = data
        return ["<h2>Seat advantage</h2>", "".join(f"<p>{esc(s)}</p>" for s in lines),
                f"<figure>{figures['seats']}</figure>",
                html_table(seats, {
                    "players": ("num_players", 0), "between": ("between", None),
                    "bot": ("bot", None), "seat": ("seat", 0),
                    "games": ("games", 0), "win rate": ("win_rate", 3), "low": ("low", 3),
                    "high": ("high", 3), "no edge": ("expected", 3)})]

    def markdown(self, data) -> list[str]:
        return ["## Seats and the marker", "", *(f"- {line}" for line in data[1])]


SECTION = Seats()
