"""The report's faults: per bot that forfeited a game, its forfeits by kind and its first error."""
from __future__ import annotations

import polars as pl

from .. import stats
from .context import Context
from .format import html_table, md_cell


class Faults:
    title = "Faults"

    def compute(self, ctx: Context) -> pl.DataFrame:
        return ctx.faults

    def figures(self, data: pl.DataFrame) -> dict[str, str]:
        return {}

    def html(self, data: pl.DataFrame, figures: dict[str, str]) -> list[str]:
        if data.height == 0:
            return ["<h2>Faults</h2><p>No game was forfeited.</p>"]
        return ["<h2>Faults</h2><p>Games a bot lost by a fault: an exception or garbage (error), an "
                "illegal move, a move past the time limit (timeout); the message of its first.</p>",
                html_table(data, {
                    "bot": ("bot", None), "games": ("games", 0), "forfeits": ("forfeits", 0),
                    **{k: (k, 0) for k in stats.FORFEIT_KINDS}, "rate": ("forfeit_rate", 3),
                    "rating withheld": ("withheld", None), "first error": ("first_error", None)})]

    def markdown(self, data: pl.DataFrame) -> list[str]:
        if data.height == 0:
            return []
        out = ["## Faults", ""]
        for r in data.iter_rows(named=True):
            kinds = ", ".join(f"{r[k]:,} {k}" for k in stats.FORFEIT_KINDS if r[k])
            flag = " (rating withheld)" if r["withheld"] else ""
            out.append(f"- {md_cell(r['bot'])}: forfeited {r['forfeits']:,} of {r['games']:,} games "
                       f"({kinds}){flag}; first: {md_cell(r['first_error'])}")
        return out + [""]


SECTION = Faults()
