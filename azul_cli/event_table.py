"""An event's own table in the terminal (analysis/events.py): the Swiss table with its
tie-breaks, the knockout bracket round by round, the gauntlet's table against each pool bot.
Printed by ``azul standings --what event`` and, after the standings, by ``azul standings``,
``azul league run`` and ``azul league status`` for a run that is an event."""
from __future__ import annotations

from rich import box
from rich.console import Console
from rich.table import Table

from .common import print_table


def event_table(ev) -> Table:
    """The table of an ``analysis.events.EventStandings``, its title naming the run folder."""
    table = _event_table(ev)
    table.title = f"{ev.run_dir}: {table.title}"
    return table


def _event_table(ev) -> Table:
    if ev.format == "swiss":
        table = Table(box=box.SIMPLE_HEAD, title="Swiss: points (a match won 1, drawn 1/2, a bye 1), "
                      "then Buchholz, Sonneborn-Berger, game points")
        for name in ("#", "bot", "points", "Buchholz", "S-B", "game pts", "rounds", "byes", "games"):
            table.add_column(name, justify="left" if name == "bot" else "right")
        for r in ev.swiss:
            table.add_row(str(r.place), r.bot, f"{r.points:g}", f"{r.buchholz:g}", f"{r.sonneborn_berger:g}",
                          f"{r.game_points:g}", str(r.rounds), str(r.byes), str(r.games))
        return table
    if ev.format == "knockout":
        from analysis.events import champion

        won = champion(ev.bracket)
        table = Table(box=box.SIMPLE_HEAD, title="knockout bracket" + (f": {won} wins" if won else " (under way)"))
        for name in ("round", "match", "bots", "games won", "score", "winner", "decided by"):
            table.add_column(name, justify="left" if name in ("bots", "winner", "decided by") else "right")
        for matches in ev.bracket:
            for m in matches:
                d = m.as_dict()
                table.add_row(str(m.round), str(m.slot), " - ".join(m.bots), " - ".join(f"{w:g}" for w in d["won"]),
                              " - ".join(map(str, d["score"])), m.winner or "", m.decided_by)
        return table
    table = Table(box=box.SIMPLE_HEAD, title="gauntlet: each challenger against each pool bot "
                  "(points: ranked above it 1, level 1/2)")
    for name in ("challenger", "pool bot", "games", "points", "rate", "score margin"):
        table.add_column(name, justify="left" if name in ("challenger", "pool bot") else "right")
    for r in ev.gauntlet.iter_rows(named=True):
        table.add_row(r["challenger"], r["pool_bot"], str(r["games"]), f"{r['points']:g}", f"{r['rate']:.3f}",
                      f"{r['margin']:+.1f}")
    return table


def print_event(console: Console, ev) -> None:
    if ev is not None:
        print_table(event_table(ev), console)
