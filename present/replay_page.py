"""One self-contained HTML page that replays a recorded game (``azul replay ... --html FILE``).

The page needs no network: its CSS and JavaScript are inline, the boards are drawn as SVG by the
script, and the game (``ReplayGame.to_dict()``) sits in a ``<script type="application/json">``
tag. The page is present/templates/replay.html (with replay.css and replay.js); every name from
the records reaches it escaped (by the template in the markup, ``textContent`` in the script,
``<`` written as ``\\u003c`` inside the JSON).

Elements tests and tools can read: ``#step-label`` (``data-step``, ``data-ply``, ``data-round``),
``.board[data-seat="S"]`` with ``.name`` and ``.score``, pattern lines ``[data-line="K"]``, wall
cells ``.wall [data-row][data-col]`` (``data-color`` on the filled ones), floor slots
``[data-slot]``, ``#factories [data-factory="N"]`` and ``#center`` with tiles as
``[data-color]`` (``1`` is the marker), the move list ``#moves li[data-ply]`` and the table
``#round-scores``.
"""
from __future__ import annotations

import json

from markupsafe import Markup

from engine.rules import COLOURS, FLOOR_COSTS, WALL, wall_colour

from .pages import html_pages

PAGES = html_pages("present")


def page(game: dict) -> str:
    """The HTML page for ``game`` (``ReplayGame.to_dict()``), as one string."""
    seats = ", ".join(f"seat {s} {bot}" for s, bot in enumerate(game["bots"]))
    meta = (f"run {game['run_dir']} | {game['players']} players, {game['variant']} wall | {seats} | "
            f"final scores {' - '.join(str(x) for x in game['scores'])} ({game['termination']})")
    # JSON inside <script>: no "</script>" or "<!--" can close or open anything
    rules = {"colours": COLOURS, "floor_costs": list(FLOOR_COSTS),
             "printed_wall": ["".join(COLOURS[wall_colour(r, c)] for c in range(WALL)) for r in range(WALL)]}
    data = json.dumps({**game, "rules": rules}, separators=(",", ":")).replace("<", "\\u003c")
    return PAGES.get_template("replay.html").render(title=f"Azul replay: {game['game_id']}", meta=meta,
                                                    data=Markup(data))
