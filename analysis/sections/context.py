"""What every report section may read (``Context``), and what a section is (``Section``).

The context is made once per report from the checked run folders: the ``games`` and ``results``
frames, the ratings of each player count, the faults, and a DuckDB connection over the move
records for the sections that need one (opened on first use, once).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

import duckdb
import polars as pl

from ..records import Runs


@dataclass
class Context:
    """The report's shared inputs; ``notes`` collects what a section has to say it left out."""
    runs: Runs
    games: pl.DataFrame
    results: pl.DataFrame
    games_by_players: dict[int, int]
    bots: list[str]
    ratings: dict[int, Any]  # player count -> EloFit
    faults: pl.DataFrame  # stats.faults: per bot that forfeited, by kind, with its first error
    forfeited: dict[int, float]  # player count -> share of games forfeited
    notes: list[str] = field(default_factory=list)
    _moves: duckdb.DuckDBPyConnection | None | bool = None  # None: not opened yet; False: no records

    def moves(self) -> duckdb.DuckDBPyConnection | None:
        """Views over every table (``records.connect``) when every run has move and round
        records; else None, and a note says the move sections are left out."""
        if self._moves is None:
            missing = [str(d) for d in self.runs.dirs
                       if d in self.runs.lacking("moves") or d in self.runs.lacking("rounds")]
            if missing:
                self.notes.append(f"no move records in {', '.join(missing)}: the openings and marker "
                                  "sections are left out")
                self._moves = False
            else:
                from ..records import connect

                self._moves = connect(self.runs)
                self._moves.execute("SET enable_progress_bar = false")  # no bars in the output
        return self._moves or None

    def close(self) -> None:
        if self._moves:
            self._moves.close()
        self._moves = None


class Section(Protocol):
    """One part of the report: its numbers, figures, HTML and markdown (analysis.sections)."""
    title: str

    def compute(self, ctx: Context) -> Any | None:
        """The section's data from the context; None leaves the section out of every file."""

    def figures(self, data: Any) -> dict[str, str]:
        """Its figures by name, as inline ``<svg>`` strings (analysis.plots)."""

    def html(self, data: Any, figures: dict[str, str]) -> list[str]:
        """Its part of report.html: elements, one line each."""

    def markdown(self, data: Any) -> list[str]:
        """Its lines of summary.md ([] for none)."""
