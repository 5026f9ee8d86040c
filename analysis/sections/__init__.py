"""The report's sections, in the order of the page: each one module, with its computation, HTML,
markdown and figures (docs/analysis.md, "Adding a report section").

A section (``Section``, in ``context.py``) has a ``title`` and four methods: ``compute(ctx)``
returns its data from the report's ``Context`` (the checked runs, the ``games`` and ``results``
frames, the ratings, the faults, the move records' views), or None to leave it out;
``figures(data)`` draws its plots as inline SVG; ``html(data, figures)`` and ``markdown(data)``
give its part of report.html and summary.md. ``analysis.report`` computes every section of
``SECTIONS`` in turn and assembles the three files around them (the header, the notes, elo.csv).
"""
from __future__ import annotations

from . import (event, faults, head_to_head, luck, marker, neighbours, openings, ratings, review, scores, seats, sprt,
               standings, study, tune)
from .context import Context, Section

SECTIONS: list[Section] = [sprt.SECTION, tune.SECTION, event.SECTION, ratings.SECTION, faults.SECTION, standings.SECTION,
                           head_to_head.SECTION, seats.SECTION, luck.SECTION, openings.SECTION, marker.SECTION,
                           review.SECTION, neighbours.SECTION, study.SECTION, scores.SECTION]

__all__ = ["SECTIONS", "Context", "Section"]
