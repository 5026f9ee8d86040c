"""The report's event tables, for each run folder that is an event (analysis/events.py): the
Swiss table with its tie-breaks, the gauntlet's table against each pool bot, and the knockout
bracket drawn as an SVG (rounds left to right, each match's bots with games won and total score,
the winner in bold, lines to the match it feeds)."""
from __future__ import annotations

import polars as pl

from ..events import EventStandings, Match, champion, event_standings
from .context import Context
from .format import esc, html_table

BOX_W, BOX_H, GAP_X, ROW_H = 210, 44, 40, 56  # the bracket's geometry, in pixels


class Event:
    title = "Event"

    def compute(self, ctx: Context) -> list[EventStandings] | None:
        found = [ev for d in ctx.runs.dirs if (ev := event_standings(d, ctx.results, ctx.games)) is not None]
        return found or None

    def figures(self, data: list[EventStandings]) -> dict[str, str]:
        return {ev.run_dir: bracket_svg(ev.bracket) for ev in data if ev.format == "knockout" and ev.bracket}

    def html(self, data: list[EventStandings], figures: dict[str, str]) -> list[str]:
        out = []
        for ev in data:
            out.append(f"<h2>{esc(ev.format.capitalize())}: {esc(ev.run_dir)}</h2>")
            if ev.format == "swiss":
                out.append("<p>Points: a match won 1, drawn 1/2, a bye 1; ties broken by Buchholz, then "
                           "Sonneborn-Berger, then game points, then seed.</p>")
                out.append(html_table(pl.DataFrame([r.as_dict() for r in ev.swiss]).drop("opponents"), {
                    "#": ("place", 0), "bot": ("bot", None), "points": ("points", 1),
                    "Buchholz": ("buchholz", 2), "Sonneborn-Berger": ("sonneborn_berger", 2),
                    "game points": ("game_points", 1), "rounds": ("rounds", 0), "byes": ("byes", 0),
                    "games": ("games", 0)}))
            elif ev.format == "gauntlet":
                out.append(html_table(ev.gauntlet, {
                    "challenger": ("challenger", None), "pool bot": ("pool_bot", None), "games": ("games", 0),
                    "points": ("points", 1), "rate": ("rate", 3), "score margin": ("margin", 1)}))
            else:
                won = champion(ev.bracket)
                out.append(f"<p>{'Winner: <b>' + esc(won) + '</b>. ' if won else 'Under way. '}A match goes "
                           "to the bot with more games won, then the higher total score, then the better "
                           "seed.</p>")
                out.append(figures.get(ev.run_dir, ""))
        return out

    def markdown(self, data: list[EventStandings]) -> list[str]:
        return []


def bracket_svg(rounds: list[list[Match]]) -> str:
    """The bracket as an inline SVG: round r's match m sits between the two matches feeding it."""
    first = len(rounds[0])
    width, height = len(rounds) * (BOX_W + GAP_X), first * ROW_H + 10
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="bracket" width="{width}" height="{height}" '
             f'font-family="sans-serif" font-size="12">']
    for r, matches in enumerate(rounds):
        span = ROW_H * (1 << r)  # the rows a match of this round covers
        for m in matches:
            x, y = r * (BOX_W + GAP_X), (m.slot - 1) * span + (span - BOX_H) / 2 + 5
            parts.append(f'<rect x="{x}" y="{y}" width="{BOX_W}" height="{BOX_H}" fill="#f6f6f6" stroke="#888"/>')
            d = m.as_dict()
            for i, bot in enumerate(m.bots):
                detail = (f" ({d['won'][i]:g} won, {d['score'][i]})" if d["won"] else
                          " (bye)" if m.decided_by == "bye" else "")
                weight = "bold" if bot == m.winner else "normal"
                parts.append(f'<text x="{x + 6}" y="{y + 17 + 18 * i}" font-weight="{weight}">'
                             f'{esc(bot)}{esc(detail)}</text>')
            if r + 1 < len(rounds):  # a line to the match this one feeds
                ny = ((m.slot - 1) // 2) * 2 * span + span + 5
                parts.append(f'<path d="M{x + BOX_W},{y + BOX_H / 2} H{x + BOX_W + GAP_X / 2} V{ny} '
                             f'H{x + BOX_W + GAP_X}" fill="none" stroke="#888"/>')
    parts.append("</svg>")
    return "".join(parts)


SECTION = Event()
