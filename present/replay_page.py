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

A reviewed game (a review stored in the run's ``reviews`` table: present/review_view.py) shows its
review too, read from the run, never made: ``#eval-graph`` (an SVG with one ``path.seat-line``
per seat, ``data-seat``, and the judged moves as ``.eval-mark[data-ply]``), each move of the list
marked (``li[data-class]`` and ``.mark``: ``?!``, ``?``, ``??``), ``#review-move`` (the selected
move's best move, principal variation, win and points lost), ``#accuracy`` (a row per seat,
``tr[data-seat]``) and ``#turning-point`` (the ply the game turned for its winner). Without a
review the page is as before.
"""
from __future__ import annotations

import json

from markupsafe import Markup

from engine.rules import COLOURS, FLOOR_COSTS, WALL, wall_colour

from .pages import html_pages
from .review_view import game_review, turned

PAGES = html_pages("present")
STORED = "stored"  # page()'s review: the one the game's run holds, if any


def page(game: dict, review: dict | str | None = STORED) -> str:
    """The HTML page for ``game`` (``ReplayGame.to_dict()``), as one string. ``review``: the
    game's review as ``present.review_view.game_review`` gives it; by default the one stored in
    the game's run (``game["run_dir"]``), read there; None: none shown."""
    if review == STORED:
        review = game_review(game["run_dir"], game["game_id"])
    if review and "moves" in review:
        review = {**review, **turned(review, game.get("ranks") or [])}
    seats = ", ".join(f"seat {s} {bot}" for s, bot in enumerate(game["bots"]))
    meta = (f"run {game['run_dir']} | {game['players']} players, {game['variant']} wall | {seats} | "
            f"final scores {' - '.join(str(x) for x in game['scores'])} ({game['termination']})")
    # JSON inside <script>: no "</script>" or "<!--" can close or open anything
    rules = {"colours": COLOURS, "floor_costs": list(FLOOR_COSTS),
             "printed_wall": ["".join(COLOURS[wall_colour(r, c)] for c in range(WALL)) for r in range(WALL)]}
    reviewed = {"review": review} if review else {}  # without a review, the data is as before
    data = json.dumps({**game, "rules": rules, **reviewed}, separators=(",", ":")).replace("<", "\\u003c")
    return PAGES.get_template("replay.html").render(title=f"Azul replay: {game['game_id']}", meta=meta,
                                                    data=Markup(data), review=review)
