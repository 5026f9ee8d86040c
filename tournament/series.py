"""The two-game series (a house rule of rules text 000), played by any players.

    from tournament.series import play_series
    result = play_series(2, "colored", seed=7, make_player=lambda seat: make_bot("greedy", seed=seat))
    result.totals, result.ranks, result.decided_by

The same players play two complete games in the same seats. Game one opens with seat 0, game
two with the next seat clockwise (seat 1). Each seat's two final scores are added: the higher
combined score wins; a tie on it is broken by the total of complete wall rows over both games;
players still tied share the result (ranks 1, 1, 3 as in a game). Deals: game g plays
``series_deal_seed(seed, g)`` (game 1 the seed itself), round r of it
``round_seed(that, r)``, exactly as a league with ``match: series`` does (tournament/scheduler.py).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from engine import GameState, IllegalMoveError, Move, new_game
from engine.loop import Dealt, Moved, play
from engine.rules import complete_rows as wall_rows
from engine.rules import ranks as game_ranks
from records.store import RunStore

from .errors import AzulError
from .scheduler import SERIES_GAMES, round_seed, series_deal_seed


class Player(Protocol):
    def act(self, state: GameState) -> Move | str: ...


class SeriesError(AzulError, ValueError):
    """A series that cannot be played on: bad arguments, or a player that failed (an illegal
    move, an exception from its ``act`` or ``reset``, an external program's forfeit)."""


def fault_text(exc: Exception) -> str:
    """A player's failure in words: a forfeit's own reason (an exception with a ``kind``, as an
    external bot's ``BotForfeit``), else ``Type: message`` as a league records it."""
    text = str(exc)
    if getattr(exc, "kind", None) is not None and text:
        return text
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


@dataclass(frozen=True)
class SeriesGame:
    """One finished game of a series."""

    number: int  # 1 or 2
    opener: int  # the seat that opened round 1
    deal_seed: int
    scores: list[int]
    complete_rows: list[int]
    ranks: list[int]  # within this game
    rounds: int
    moves: list[str] = field(default_factory=list)
    final: dict[str, Any] = field(default_factory=dict)  # the final position (azul-position/1)


@dataclass(frozen=True)
class SeriesResult:
    """Both games, the combined totals and the series ranks with the tie-break that settled first place."""

    games: list[SeriesGame]
    totals: list[int]  # combined score per seat
    complete_rows: list[int]  # complete wall rows per seat, both games together
    ranks: list[int]  # 1 best; tied seats share a rank
    decided_by: str  # "combined score", "complete rows" or "shared"

    @property
    def winners(self) -> list[int]:
        return [s for s, r in enumerate(self.ranks) if r == 1]


def series_ranks(totals: Sequence[int], complete_rows: Sequence[int]) -> tuple[list[int], str]:
    """Series ranks (combined score, then complete rows, then shared) and what decided first place."""
    if len(totals) != len(complete_rows) or not totals:
        raise ValueError("series_ranks: one combined score and one row count per seat")
    places = game_ranks(list(totals), list(complete_rows))
    best = max(totals)
    level = [s for s, t in enumerate(totals) if t == best]
    if len(level) == 1:
        return places, "combined score"
    if sum(1 for s in level if places[s] == 1) == 1:
        return places, "complete rows"
    return places, "shared"


def combine(games: Sequence[SeriesGame]) -> SeriesResult:
    """The series result of its finished games (each game's scores and complete rows per seat)."""
    if not games:
        raise ValueError("combine: no games")
    n = len(games[0].scores)
    if any(len(g.scores) != n or len(g.complete_rows) != n for g in games):
        raise ValueError("combine: the games have different numbers of seats")
    totals = [sum(g.scores[s] for g in games) for s in range(n)]
    rows = [sum(g.complete_rows[s] for g in games) for s in range(n)]
    places, decided = series_ranks(totals, rows)
    return SeriesResult(list(games), totals, rows, places, decided)


def complete_rows(position: dict[str, Any]) -> list[int]:
    """Complete wall rows per seat of a position (azul-position/1)."""
    return [wall_rows(b["wall"]) for b in position["boards"]]


def opener_of(game: int, players: int, first_opener: int = 0) -> int:
    """The seat that opens game ``game`` (1-based): each game the next seat clockwise."""
    return (first_opener + game - 1) % players


def play_series(players: int, variant: str, seed: int, make_player: Callable[[int], Player], *,
                on_game_start: Callable[[int, int], None] | None = None,
                on_deal: Callable[[int, GameState], None] | None = None,
                on_move: Callable[[int, int, Move, GameState], None] | None = None,
                on_game_end: Callable[[SeriesGame], None] | None = None) -> SeriesResult:
    """Play a two-game series; ``make_player(seat)`` builds the player of each seat once.

    A player's ``reset()`` (if it has one) is called before each game; ``act(state)`` is shown a
    copy of the position and returns a move. Callbacks: ``on_game_start(game, opener)``,
    ``on_deal(game, state)`` after each deal, ``on_move(game, seat, move, state)`` after each
    move, ``on_game_end(SeriesGame)`` once a game is over (game one's totals and complete rows,
    before game two starts). A player that fails (a move the rules forbid, an ``Exception`` from
    its ``act`` or ``reset``) ends the series: ``SeriesError`` names the game, the seat and why.
    A BaseException (Ctrl-C, a person leaving ``azul series``) passes through as it is.
    """
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise SeriesError(f"seed must be a whole number, 0 or more, not {seed!r}")
    try:
        new_game(players=players, variant=variant)
    except ValueError as exc:
        raise SeriesError(str(exc)) from None
    seats = [make_player(s) for s in range(players)]
    games = []
    for number in range(1, SERIES_GAMES + 1):
        game = _play_one(number, players, variant, series_deal_seed(seed, number),
                         opener_of(number, players), seats, on_game_start, on_deal, on_move)
        games.append(game)
        if on_game_end is not None:
            on_game_end(game)
    return combine(games)


def _play_one(number, players, variant, deal_seed, opener, seats, on_game_start, on_deal, on_move):
    for seat, player in enumerate(seats):
        reset = getattr(player, "reset", None)
        if callable(reset):
            try:
                reset()
            except Exception as exc:  # e.g. an external program that does not start
                raise SeriesError(f"game {number}, seat {seat}: {fault_text(exc)}") from None
    if on_game_start is not None:
        on_game_start(number, opener)
    state = new_game(players=players, variant=variant, opener=opener)
    rounds = 0
    moves: list[str] = []

    def act(seat: int, view: GameState) -> Move:
        try:
            move = seats[seat].act(view)
        except Exception as exc:  # a forfeit (BotForfeit), a bot's own bug
            raise SeriesError(f"game {number}, seat {seat}: {fault_text(exc)}") from None
        try:
            return move if isinstance(move, Move) else Move.parse(move)
        except (IllegalMoveError, ValueError, TypeError) as exc:
            raise SeriesError(f"game {number}, seat {seat}: {exc}") from None

    try:
        for event in play(state, act, lambda r: round_seed(deal_seed, r)):
            if type(event) is Dealt:
                rounds = event.round
                if on_deal is not None:
                    on_deal(number, state)
            elif type(event) is Moved:
                moves.append(str(event.played.move))
                if on_move is not None:
                    on_move(number, event.played.seat, event.played.move, state)
    except IllegalMoveError as exc:  # refused by the rules
        raise SeriesError(f"game {number}, seat {state.to_move}: {exc}") from None
    final = state.to_json()
    return SeriesGame(number, opener, deal_seed, list(state.scores), complete_rows(final),
                      list(final["ranks"]), rounds, moves, final)


def recorded_series(run: RunStore) -> dict[str, SeriesResult]:
    """The series of a league run with ``match: series``, by ``series_id``, scored by the series rule.

    Only series whose two games are both recorded count; a game that ended in a forfeit counts
    with the scores it stopped at (its record ranks the forfeiting seat last, a series does not).
    """
    from records.read import read_table

    games = read_table(run, "games", ["game_id", "deal_seed", "rounds", "series_id", "series_game"])
    info = {g["game_id"]: g for g in games.to_pylist() if g["series_id"] is not None}
    seats: dict[str, dict[int, tuple[int, int]]] = {}
    for r in read_table(run, "results", ["game_id", "seat", "score", "complete_rows"]).to_pylist():
        if r["game_id"] in info:
            seats.setdefault(r["game_id"], {})[r["seat"]] = (r["score"], r["complete_rows"])
    by_series: dict[str, list[SeriesGame]] = {}
    for gid, g in sorted(info.items()):
        row = seats.get(gid, {})
        scores = [row[s][0] for s in sorted(row)]
        rows = [row[s][1] for s in sorted(row)]
        by_series.setdefault(g["series_id"], []).append(SeriesGame(
            g["series_game"], opener_of(g["series_game"], len(scores)), g["deal_seed"], scores, rows,
            game_ranks(scores, rows), g["rounds"]))
    return {sid: combine(sorted(gs, key=lambda x: x.number)) for sid, gs in sorted(by_series.items())
            if len(gs) == SERIES_GAMES}
