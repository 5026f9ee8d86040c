"""The report's neighbours (3 and 4 players): each bot's win rate and score share by the bot that
plays just before it (``stats.neighbours``), and per bot the predecessor it does best and worst after."""
from __future__ import annotations

import polars as pl

from .. import stats
from .context import Context
from .format import esc, html_table, md_cell


def neighbour_lines(table: pl.DataFrame) -> list[str]:
    """Per player count and bot: its win rate after the predecessor it does best after and after
    the one it does worst after, with intervals."""
    lines = []
    pairs = table.filter(pl.col("before").is_not_null())
    for (n, bot), rows in pairs.group_by(["num_players", "bot"], maintain_order=True):
        if rows.height < 2:
            continue
        best, worst = (rows.sort("win_rate", descending=d).row(0, named=True) for d in (True, False))
        lines.append(f"{bot} ({n} players) wins {best['win_rate']:.1%} of {best['games']:,} games after "
                     f"{best['before']} (95% {best['low']:.1%} .. {best['high']:.1%}) and "
                     f"{worst['win_rate']:.1%} of {worst['games']:,} after {worst['before']} "
                     f"(95% {worst['low']:.1%} .. {worst['high']:.1%})")
    return lines


class Neighbours:
    title = "Neighbours (3 and 4 players)"

    def compute(self, ctx: Context) -> tuple[pl.DataFrame, list[str]] | None:
        """The neighbour table and its lines; None without 3- or 4-player games."""
        if not any(n >= 3 for n in ctx.games_by_players):
            return None
        table = stats.neighbours(ctx.results, ctx.games)
        return table, neighbour_lines(table)

    def figures(self, data) -> dict[str, str]:
        return {}

    def html(self, data, figures: dict[str, str]) -> list[str]:
        table, lines = data
        return ["<h2>Neighbours (3 and 4 players)</h2>",
                "<p>A player takes from what the player before it left: each bot's results by the bot "
                "that moves just before it (after: all pools them).</p>",
                "".join(f"<p>{esc(line)}</p>" for line in lines),
                html_table(table, {
                    "players": ("num_players", 0), "bot": ("bot", None), "after": ("before", None),
                    "games": ("games", 0), "win rate": ("win_rate", 3), "95%": (("low", "high"), 3),
                    "score share": ("score_share", 3), "share 95%": (("share_low", "share_high"), 3)})]

    def markdown(self, data) -> list[str]:
        return ["## Neighbours (3 and 4 players)", "", *(f"- {md_cell(line)}" for line in data[1])] if data[1] else []


SECTION = Neighbours()
