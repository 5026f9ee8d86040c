"""A game's stored review as the replay page shows it (issue 45; docs/replay.md, "A reviewed game"):
plain data for the page's embedded JSON and its template, read from the run's ``reviews`` table
by ``analysis.review_read.game_review`` (the reader ``azul replay``'s terminal marks use, so both
show the same review: when several analysers reviewed the game, the one with the most reviewed
moves, the others named). This module only reads: a page never starts a review.

    review = game_review("runs/quick", "t000-d00000-a00")   # None: the game has no stored review
    review["moves"]      # per reviewed ply: move, best, pv, class, mark, win and points lost, wins
    review["accuracy"]   # per seat: bot, moves, accuracy (0 to 100), the count of each class
    review["chart"]      # each seat's win probability by ply, placed in the chart's frame

What cannot be read (a damaged part, a store that cannot be reached) is the data's ``error``,
which the page says, never an exception.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

from analysis.review_marks import CLASSES, game_turning_point
from analysis.review_read import MARKS, seat_marks

JUDGED = ("inaccuracy", "mistake", "blunder")  # the classes the chart marks
WIDTH, HEIGHT, PAD = 640, 200, 36  # the chart's frame, as web/svg.py's line charts


def game_review(run, game_id: str) -> dict | None:
    """The review of ``game_id`` stored in ``run`` (a folder, a URL or its store) as the page shows
    it; None when the run holds no review of that game; ``{"error": ...}`` when it cannot be read."""
    from analysis.review_read import game_review as read

    try:
        found = read(run, game_id)
    except Exception as exc:  # noqa: BLE001 - a damaged part, a store that cannot be read: said on the page
        return {"error": f"the review of this game cannot be read: {type(exc).__name__}: {exc}"}
    if found is None:
        return None
    return review_data([found.moves[p] for p in sorted(found.moves)], found.analyser, found.others)


def review_data(rows: Sequence[dict], analyser: str, others: Sequence[str] = ()) -> dict:
    """The page's data of one game's review rows (one analyser's, in ply order): ``others`` are
    the other analysers that reviewed the game (not shown)."""
    players = len(rows[0]["wins"])
    bots: dict[int, str] = {}
    for r in rows:
        bots.setdefault(r["seat"], r["bot"])
    moves = [{"ply": r["ply"], "seat": r["seat"], "round": r["round"], "move": r["move"], "best": r["best"],
              "pv": r["pv"] or "", "class": r["class"], "mark": MARKS.get(r["class"], ""),
              "win_before": _num(r["win_before"]), "win_loss": _num(r["win_loss"]),
              "win_after": _num(r["wins_played"][r["seat"]]) if r["wins_played"] else None,
              "points_loss": _num(r["points_loss"]), "points_best": _num(r["points_best"]),
              "points_played": _num(r["points_played"]), "wins": [_num(w) for w in r["wins"]],
              "wins_played": [_num(w) for w in r["wins_played"] or []]} for r in rows]
    return {"analyser": analyser, "others": list(others), "moves": moves,
            "accuracy": accuracy(rows, players, bots), "chart": chart(rows, players, bots)}


def turned(review: dict, ranks: Sequence[int]) -> dict:
    """``winner`` (the first seat ranked first) and ``turning_point`` (the ply the game turned for
    it: analysis.review_marks.game_turning_point) of a game's review data; both None without a
    winner or with a move of the game not reviewed."""
    winner = next((seat for seat, rank in enumerate(ranks) if rank == 1), None)
    moves = review["moves"]
    if winner is None or [m["ply"] for m in moves] != list(range(1, len(moves) + 1)):
        return {"winner": None, "turning_point": None}
    return {"winner": winner, "turning_point": game_turning_point(moves, winner)}


def accuracy(rows: Sequence[dict], players: int, bots: dict[int, str] | None = None) -> list[dict]:
    """Per seat: ``seat``, ``bot``, ``moves``, ``accuracy`` (0 to 100, the mean of its moves'
    ``analysis.review_marks.move_accuracy``, rounded to 0.1; None for a seat with no move
    reviewed), and the count of each class (``best`` ... ``blunder``)."""
    bots = bots or {}
    out = []
    for seat, marks in seat_marks(rows, players).items():
        mine = next((r for r in rows if r["seat"] == seat), None)
        value = marks["accuracy"]
        out.append({"seat": seat, "bot": bots.get(seat, mine["bot"] if mine else "?"), "moves": marks["moves"],
                    "accuracy": None if math.isnan(value) else round(value, 1),
                    **{c: marks[c] for c in CLASSES}})
    return out


def chart(rows: Sequence[dict], players: int, bots: dict[int, str]) -> dict:
    """Each seat's win probability by ply, placed in a ``WIDTH`` x ``HEIGHT`` frame (y from 0 to
    1): before the first reviewed move its ``wins`` (the position before it), at each reviewed ply
    the ``wins_played`` of its move (the position after it). ``paths`` (one per seat: ``d`` of an
    SVG path), ``marks`` (the judged moves, on the mover's line), ``plies`` and the frame's ``left``
    and ``right`` (the page puts its cursor at ``left + ply / plies * (right - left)``)."""
    plies = max(r["ply"] for r in rows)
    left, right, top, bottom = PAD, WIDTH - PAD, PAD / 2, HEIGHT - PAD

    def x(ply: int) -> float:
        return round(left + ply / max(plies, 1) * (right - left), 1)

    def y(p: float | None) -> float:
        return round(bottom - min(max(p or 0.0, 0.0), 1.0) * (bottom - top), 1)

    points: list[list[tuple[float, float]]] = [[] for _ in range(players)]
    first = rows[0]
    for seat, p in enumerate(first["wins"] or []):
        points[seat].append((x(first["ply"] - 1), y(p)))
    for r in rows:
        for seat, p in enumerate(r["wins_played"] or []):
            points[seat].append((x(r["ply"]), y(p)))
    paths = [{"seat": s, "bot": bots.get(s, "?"),
              "d": " ".join(f"{'M' if i == 0 else 'L'}{px},{py}" for i, (px, py) in enumerate(pts))}
             for s, pts in enumerate(points)]
    marks = [{"ply": r["ply"], "seat": r["seat"], "class": r["class"], "mark": MARKS.get(r["class"], ""),
              "x": x(r["ply"]), "y": y(r["wins_played"][r["seat"]])}
             for r in rows if r["class"] in JUDGED and r["wins_played"]]
    return {"width": WIDTH, "height": HEIGHT, "left": left, "right": right, "top": top, "bottom": bottom,
            "half": y(0.5), "plies": plies, "paths": paths, "marks": marks}


def _num(value) -> float | None:
    """A float for the JSON (None for a missing or non-finite value: strict JSON has no NaN)."""
    return None if value is None or not math.isfinite(value) else float(value)
