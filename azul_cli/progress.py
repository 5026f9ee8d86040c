"""Progress of a run on the command line: a rich bar or status line on a terminal, plain lines
every few seconds off one (a pipe, a log file). ``azul league run``, ``study``, ``sprt``, ``tune``
and ``train`` share them."""
from __future__ import annotations

import time
from typing import TYPE_CHECKING

from rich.console import Console

if TYPE_CHECKING:
    from tournament.runner import LeagueProgress


def rate_text(games: int, seconds: float) -> str:
    """A rate that reads well: games/s when fast, games/min, else seconds a game."""
    if not games or seconds <= 0:
        return ""
    per_s = games / seconds
    if per_s >= 1:
        return f"{per_s:,.1f} games/s"
    if per_s * 60 >= 1:
        return f"{per_s * 60:,.1f} games/min"
    return f"{seconds / games:,.0f} s/game"


class PlainLines:
    """Progress when the output is not a terminal: a plain line (``text(report)``) at the first
    report, then at most one every ``every`` seconds, and the last report at the end (``close``)
    if it came between two lines. ``azul league run``, ``azul study`` and ``azul sprt`` share it."""

    every = 10.0  # seconds between plain progress lines

    def __init__(self, console: Console, text):
        self.console, self.text = console, text
        self.last: float | None = None  # when the last line was printed
        self.pending = None  # the last report, if not printed

    def update(self, report, final: bool = False) -> None:
        self.pending = report
        now = time.monotonic()
        if self.last is None or now - self.last >= self.every or final:
            self.close()
            self.last = now

    def close(self) -> None:
        if self.pending is not None:
            self.console.print(self.text(self.pending), soft_wrap=True, markup=False)
            self.pending = None


class StatusLine:
    """The live line of a run that is not a league's bar (``azul sprt``, ``azul tune``): rich's
    transient status with ``text(report)`` on a terminal; else plain lines (``PlainLines``)."""

    def __init__(self, console: Console, text, enabled: bool = True):
        self.console, self.text, self.enabled = console, text, enabled
        self.status = None
        self.plain = PlainLines(console, text) if not console.is_terminal else None

    def update(self, report) -> None:
        if not self.enabled:
            return
        if self.plain is not None:
            self.plain.update(report)
        elif self.status is None:
            self.status = self.console.status(self.text(report))
            self.status.start()
        else:
            self.status.update(self.text(report))

    def __enter__(self) -> StatusLine:
        return self

    def __exit__(self, *exc) -> None:
        if self.status is not None:
            self.status.stop()
        if self.plain is not None:
            self.plain.close()


class ProgressBar:
    """A rich progress bar of ``run_league``'s reports: games done of total, the rate, ETA and the
    current leader. It appears at the first report (a league with nothing left to play has none).
    When the output is not a terminal, a plain line every ``PlainLines.every`` seconds and at the end."""

    def __init__(self, console: Console, enabled: bool = True, what: str = "league", leader: bool = True):
        self.console, self.enabled, self.what = console, enabled, what  # what: the run's kind, in the label
        self.leader = leader  # False: no "leader" (a knockout's is its bracket's champion, not the best rate)
        self.progress = None
        self.plain = PlainLines(console, lambda event: _line(event, what, leader)) if not console.is_terminal else None

    def update(self, event: LeagueProgress) -> None:
        if not self.enabled:
            return
        fields = _fields(event, self.leader)
        if self.plain is not None:
            self.plain.update(event, final=event.recorded >= event.total)
            return
        if self.progress is None:
            from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                                       TimeRemainingColumn)
            self.progress = Progress(
                TextColumn("{task.description}", style="bold", markup=False), BarColumn(), MofNCompleteColumn(),
                TextColumn("{task.fields[rate]}"), TextColumn("ETA"), TimeRemainingColumn(),
                TextColumn("{task.fields[leader]}", markup=False), console=self.console, transient=False)
            self.progress.start()
            self.task = self.progress.add_task(f"{self.what} {event.name} ({event.referee})", total=event.total,
                                               completed=event.recorded, **fields)
        else:
            self.progress.update(self.task, completed=event.recorded, **fields)

    def __enter__(self) -> ProgressBar:
        return self

    def __exit__(self, *exc) -> None:
        if self.progress is not None:
            self.progress.stop()
        if self.plain is not None:  # the last report, come between two lines
            self.plain.close()


def _line(event: LeagueProgress, what: str = "league", leader: bool = True) -> str:
    """A plain progress line: games recorded of the total, the rate, the ETA, the leader."""
    fields = _fields(event, leader)
    eta = ""
    if event.played and event.recorded < event.total:
        left = (event.total - event.recorded) * event.seconds / event.played
        eta = f"ETA {int(left // 3600)}:{int(left % 3600 // 60):02d}:{int(left % 60):02d}"
    parts = [f"{what} {event.name} ({event.referee}): {event.recorded:,}/{event.total:,} games",
             fields["rate"], eta, fields["leader"]]
    return ", ".join(p for p in parts if p)


def _fields(event: LeagueProgress, leader: bool = True) -> dict[str, str]:
    lead = event.leader if leader else None
    return {"rate": rate_text(event.played, event.seconds),
            "leader": f"leader: {lead[0]} ({lead[1]:.0%} wins)" if lead else ""}
