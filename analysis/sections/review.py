"""The report's game review: when the runs hold reviews (``azul review run``; docs/review.md), per
player count the per-bot table of ``azul review show`` (accuracy, mean win probability and points
lost a move, blunders a game) by the analyser named, and where each bot loses most: the kind of
move and the round holding the largest share of the win probability it gave up, with the full
tables by kind and by round in report.html.

A run may hold reviews by several analysers: per player count the one with the most reviewed
moves is shown, and a line names the others."""
from __future__ import annotations

from dataclasses import dataclass, field

import polars as pl

from ..review_read import by_analyser, read_reviews
from ..review_show import per_bot, where_lost
from .context import Context
from .format import esc, fmt, html_table, md_cell

BOTS = {"bot": ("bot", None), "moves": ("moves", 0), "games": ("games", 0), "accuracy": ("accuracy", 1),
        "mean win lost": ("mean_win_loss", 4), "mean points lost": ("mean_points_loss", 2),
        "blunders/game": ("blunders_per_game", 2)}
WHERE = {"bot": ("bot", None), "kind of move": ("kind", None), "% of its loss": ("kind_share", 0),
         "round": ("round", 0), "% of its loss, round": ("round_share", 0)}
LOST = {"moves": ("moves", 0), "mean win lost": ("mean_win_loss", 4), "mean points lost": ("mean_points_loss", 2),
        "blunders": ("blunders", 0), "% of its loss": ("share", 0)}
MEANING = (("accuracy: 0 to 100, the mean over a bot's games of its moves' accuracy (lichess's curve of the win "
            "percentage a move gave up against the analyser's best move); a blunder gives up 0.20 of a win or more"),
           ("mean win lost: the calibrated win probability a move gave up against the best one; mean points lost: "
            "the expected final points it gave up (negative where the best move for winning scores less)"),
           ("where a bot loses most: the kind of move and the round holding the largest share of all the win "
            "probability it gave up"))


@dataclass
class Reviewed:
    """The reviews of one player count, by one analyser."""
    players: int
    analyser: str  # the stored label(s) of the analyser shown
    games: int
    moves: int
    bots: pl.DataFrame  # analysis.review_show.per_bot
    worst: pl.DataFrame  # per bot: kind, kind_share, round, round_share (where it loses most)
    by_kind: pl.DataFrame  # analysis.review_show.where_lost(rows, "kind")
    by_round: pl.DataFrame  # where_lost(rows, "round")
    others: list[str] = field(default_factory=list)  # the other analysers' specs, with their moves


def where_most(bots: pl.DataFrame, by_kind: pl.DataFrame, by_round: pl.DataFrame) -> pl.DataFrame:
    """Per bot of ``bots`` (in its order), the kind of move and the round with the largest share
    of its loss (null where it gave up nothing)."""
    def top(frame: pl.DataFrame, by: str) -> pl.DataFrame:
        return (frame.filter(pl.col("share") > 0).sort(["bot", "share", by], descending=[False, True, False])
                .group_by("bot", maintain_order=True).first().select("bot", by, pl.col("share").alias(f"{by}_share")))
    return (bots.select("bot").join(top(by_kind, "kind"), on="bot", how="left", maintain_order="left")
            .join(top(by_round, "round"), on="bot", how="left", maintain_order="left"))


def reviewed(rows: pl.DataFrame) -> list[Reviewed]:
    """Per player count (of ``rows``, every analyser's), the reviews of its analyser with the most rows."""
    out = []
    for players in sorted(rows["players"].unique().to_list()):
        (_, chosen), *rest = by_analyser(rows.filter(pl.col("players") == players))
        by_kind, by_round = where_lost(chosen, "kind"), where_lost(chosen, "round")
        bots = per_bot(chosen)
        out.append(Reviewed(
            players=players, analyser=", ".join(sorted(chosen["analyser"].unique().to_list())),
            games=chosen.select("run_id", "game_id").unique().height, moves=chosen.height, bots=bots,
            worst=where_most(bots, by_kind, by_round),
            by_kind=by_kind, by_round=by_round, others=[f"{s} ({part.height:,} moves)" for s, part in rest]))
    return out


def headline(r: Reviewed) -> str:
    return f"{r.players} players: {r.moves:,} moves of {r.games:,} games reviewed by {r.analyser}"


def others_line(r: Reviewed) -> str | None:
    if not r.others:
        return None
    return (f"{r.players} players: also reviewed by {', '.join(r.others)}; shown: the analyser with the most "
            "reviewed moves (azul review show RUN --analyser SPEC shows another)")


def percents(frame: pl.DataFrame, *names: str) -> pl.DataFrame:
    """``frame`` with its shares ``names`` in percent, for ``html_table``."""
    return frame.with_columns(pl.col(n) * 100 for n in names)


def worst_text(row: dict) -> str:
    """``factory (54%), round 1 (70%)``, or that the bot gave up nothing."""
    if row["kind"] is None and row["round"] is None:
        return "gave up no win probability"
    return f"{row['kind']} ({row['kind_share']:.0%}), round {row['round']} ({row['round_share']:.0%})"


class Review:
    title = "Game review"

    def compute(self, ctx: Context) -> list[Reviewed] | None:
        try:
            rows = read_reviews(ctx.runs.dirs)
        except ValueError as exc:  # a damaged part of reviews/: the records' report goes on without it
            ctx.notes.append(f"the game review is left out: {exc}")
            return None
        if rows is None or rows.height == 0:
            return None
        return reviewed(rows)

    def figures(self, data) -> dict[str, str]:
        return {}

    def html(self, data: list[Reviewed], figures: dict[str, str]) -> list[str]:
        out = ["<h2>Game review</h2>"]
        for r in data:
            out.append(f"<h3>{esc(headline(r))}</h3>")
            line = others_line(r)
            if line:
                out.append(f"<p>{esc(line)}</p>")
            out.append(html_table(r.bots, BOTS))
            out.append("<p>where each bot loses most (its share of all the win probability it gave up):</p>")
            out.append(html_table(percents(r.worst, "kind_share", "round_share").with_columns(
                pl.col("kind").fill_null("-")), WHERE))
            for by, frame, head in (("kind", r.by_kind, "kind of move"), ("round", r.by_round, "round")):
                table = html_table(percents(frame, "share"),
                                   {"bot": ("bot", None), head: (by, None if by == "kind" else 0), **LOST})
                out.append(f"<details><summary>{esc('by ' + head + ', every bot')}</summary>{table}</details>")
        out.append("<ul>" + "".join(f"<li>{esc(s)}</li>" for s in MEANING) + "</ul>")
        return out

    def markdown(self, data: list[Reviewed]) -> list[str]:
        out = ["## Game review", ""]
        for r in data:
            out.append(f"- {md_cell(headline(r))}")
            line = others_line(r)
            if line:
                out.append(f"  - {md_cell(line)}")
            out += [f"  - {md_cell(b['bot'])}: accuracy {fmt(b['accuracy'], 1)}, mean win lost "
                    f"{fmt(b['mean_win_loss'], 4)}, mean points lost {fmt(b['mean_points_loss'], 2)}, blunders per "
                    f"game {fmt(b['blunders_per_game'], 2)} ({b['moves']:,} moves, {b['games']:,} games); loses most: "
                    f"{md_cell(worst_text(w))}"
                    for b, w in zip(r.bots.iter_rows(named=True), r.worst.iter_rows(named=True))]
        out += ["", *(f"- {md_cell(s)}" for s in MEANING), ""]
        return out


SECTION = Review()
