"""The report's ratings: a table and a plot per player count, the first mover's edge, and the
bots whose ratings the faults withhold (also the leader line's and the seats section's rule)."""
from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
import polars as pl

from ..ratings import edge_withheld, intervals_text, no_interval, unbounded_reason, withheld, withhold
from ..plots import BLUE, GREY, STYLE, error_bars, figure, to_svg
from .context import Context
from .format import edge_text, esc, html_table, interval, md_cell


def rated(ctx, players: int) -> pl.DataFrame:
    """A player count's ratings table with the withheld bots' rating, low and high set to null
    (``ctx``: anything with ``ratings`` and ``faults``, a Context or a Report)."""
    return withhold(ctx.ratings[players].table, withheld(ctx.faults))


def edge_name(players: int) -> str:
    return "first mover's edge" if players == 2 else "seat 0's edge over the other seats' mean"


def ratings_plot(table: pl.DataFrame, title: str) -> str:
    """Ratings (``bot``, ``rating``, ``low``, ``high``) as points with interval bars, best on top."""
    t = table.sort("rating")
    with plt.rc_context(STYLE):
        fig, ax = figure(6.0, 0.6 + 0.35 * t.height)
        y = np.arange(t.height)
        ax.errorbar(t["rating"], y, xerr=error_bars(t["rating"], t["low"], t["high"]), fmt="o",
                    color=BLUE, capsize=3)
        ax.set_yticks(y, t["bot"].to_list())
        ax.axvline(0.0, color=GREY, lw=0.8, ls=":")
        ax.set_xlabel("rating (Elo points), 95% interval")
        ax.set_title(title)
    return to_svg(fig)


class Ratings:
    title = "Ratings"

    def compute(self, ctx: Context) -> dict:
        return {"withheld": withheld(ctx.faults),
                "counts": [(n, fit, rated(ctx, n), edge_withheld(ctx.forfeited, n))
                           for n, fit in sorted(ctx.ratings.items())]}

    def figures(self, data: dict) -> dict[str, str]:
        return {f"ratings_{n}p": ratings_plot(fit.table, f"ratings, {n}-player games")
                for n, fit, _, _ in data["counts"]}

    def html(self, data: dict, figures: dict[str, str]) -> list[str]:
        out = []
        if data["withheld"]:
            out.append(f'<p class="note">ratings withheld (more than half their games forfeited, see '
                       f'Faults): {esc(", ".join(data["withheld"]))}</p>')
        how = intervals_text(data["counts"][0][1]) if data["counts"] else ""
        out += ["<h2>Ratings</h2>", (f"<p>Elo points, the mean bot at 0; {esc(how)}. A bot that "
                                     "forfeited more than half its games has its rating withheld "
                                     "(-).</p>")]
        for n, fit, table, hidden in data["counts"]:
            t = table.with_columns(pl.int_range(1, fit.table.height + 1).alias("rank"))
            out.append(f"<h3>{n}-player games</h3>")
            out.append(html_table(t, {"#": ("rank", 0), "bot": ("bot", None), "games": ("games", 0),
                                      "rating": ("rating", 0), "low": ("low", 0), "high": ("high", 0),
                                      "score share": ("score_share", 3)}))
            edge = fit.first_move[0] if fit.first_move else math.nan
            if not math.isnan(edge) and not hidden:
                out.append(f"<p>{edge_name(n)}: {esc(edge_text(*fit.first_move, no_interval(fit)))}</p>")
            unmeasured = [b for b, low in zip(table["bot"], table["low"])
                          if low is not None and math.isnan(low) and fit.bootstrap]
            if unmeasured:  # the table's low and high read "-": say why in words
                out.append(f'<p class="note">{esc(", ".join(unmeasured))}: {esc(no_interval(fit))}</p>')
            bound = [b for b in fit.unbounded if b not in data["withheld"]]
            if bound:
                out.append(f'<p class="note">{esc(unbounded_reason(n))} (rating and interval only a '
                           f"bound): {esc(', '.join(bound))}</p>")
            out.append(f"<figure>{figures[f'ratings_{n}p']}</figure>")
        return out

    def markdown(self, data: dict) -> list[str]:
        out = []
        for n, fit, table, _ in data["counts"]:
            out += [f"## Ratings, {n} players", "", "| # | bot | rating | 95% interval | games |",
                    "|---:|---|---:|---:|---:|"]
            for i, r in enumerate(table.iter_rows(named=True), 1):
                rating = "withheld" if r["rating"] is None else f"{r['rating']:.0f}"
                span = interval(r["low"], r["high"])
                if span == "-" and r["rating"] is not None:  # no interval: in words why
                    span = no_interval(fit, short=True)
                if r["rating"] is not None and r["bot"] in fit.unbounded:
                    span += " (a bound only)"
                out.append(f"| {i} | {md_cell(r['bot'])} | {rating} | {span} | {r['games']:,} |")
            out.append("")
            bound = [b for b in fit.unbounded if b not in data["withheld"]]
            if bound:
                out += [f"A bound only: {md_cell(', '.join(bound))} {unbounded_reason(n)}.", ""]
        return out


SECTION = Ratings()
