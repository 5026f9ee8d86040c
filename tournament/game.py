"""Play one league game between bots, as a referee: every move checked, timed and recorded.

The game is played by the one game loop (``engine.loop.play``); the referee is its ``act`` (each
bot's move timed and checked) and turns its events into the rows of the four record tables. The
deal of round r of a game is ``state.deal(seed=round_seed(deal_seed, r))`` (r from 1; see
tournament/scheduler.py), so one ``deal_seed`` fixes a game's whole sequence of deal seeds and the
same deal is played in every seat arrangement.

A bot that raises, returns something that is not a legal move, or thinks past its time limit
forfeits: the game stops there with ``termination`` ``error``, ``illegal`` or ``timeout`` (an
external bot's ``BotForfeit`` brings its own ``kind``), the reason in ``error``, and that seat
ranks last; the other seats are ranked on the position as it stands.
"""
from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bots import Bot
from engine import GameState, IllegalMoveError, Move, new_game
from engine import __version__ as ENGINE_VERSION
from engine.loop import Dealt, Moved, play
from engine.rules import complete_colours, complete_columns, complete_rows, end_bonus, ranks
from records.tables import RecordBuffer

from .scheduler import GameSpec, bot_game_seed, event_values, round_seed, series_id

FAULTS = ("error", "illegal", "timeout")


class MoveTimeout(BaseException):
    """Raised inside a bot's ``act`` when its time is up (a BaseException: bots cannot swallow it)."""


class Forfeit(Exception):
    """A seat lost the game by what its bot did: ``termination``, the ``error`` text, the seat if known."""

    def __init__(self, termination: str, error: str, seat: int | None = None):
        super().__init__(error)
        self.termination, self.error, self.seat = termination, error, seat


@dataclass(frozen=True)
class Seat:
    """What a game needs to know about a bot: its league name, how to build it, its time limit.

    When ``play_game`` is given a ``kept`` dict (a worker's, per config), a seat's bot is built
    once per worker process and seat copy and kept from game to game, told its game's seed with
    ``reseed`` and ``reset`` before each (as the compiled loop does: an external program is
    started once, a model read once); without one, each game builds its own.
    """

    name: str
    make: Callable[[int], Bot]  # seed -> a fresh bot
    seed: int
    time_limit: float | None = None


@dataclass
class GameOutcome:
    game_id: str
    termination: str
    error: str | None
    scores: list[int]
    ranks: list[int]
    names: list[str]
    fault_seat: int | None


class _Referee:
    """The ``act`` of the game loop for a league game: each bot's move timed, checked, or forfeited."""

    def __init__(self, bots: list[Bot], seats: Sequence[Seat]):
        self.bots, self.seats = bots, seats
        self.think = 0.0  # seconds the last move took

    def __call__(self, seat: int, view: GameState) -> Move:
        limit = self.seats[seat].time_limit
        where = f"seat {seat} ({self.seats[seat].name})"
        t0 = time.perf_counter()
        try:
            move = self.bots[seat].act(view) if limit is None else _act_with_alarm(self.bots[seat], view, limit)
            self.think = time.perf_counter() - t0
            if limit is not None and self.think > limit:
                raise MoveTimeout()
            if type(move) is not Move:
                if not isinstance(move, (Move, str)):
                    raise IllegalMoveError(f"returned {move!r:.60}, not a move")
                move = Move.parse(move)
        except MoveTimeout:
            raise Forfeit("timeout", f"{where}: no move within the time limit of {limit:g} s") from None
        except IllegalMoveError as exc:
            raise Forfeit("illegal", f"{where}: {exc}") from None
        except Exception as exc:
            raise Forfeit(_kind(exc), f"{where}: {_describe(exc)}") from None
        return move


def play_game(spec: GameSpec, seats: Sequence[Seat], variant: str, buf: RecordBuffer,
              kept: dict[tuple[str, int], Bot] | None = None) -> GameOutcome:
    """Play ``spec`` with ``seats[s]`` in seat s, appending its rows to ``buf``.

    ``kept`` holds the bots of ``keep`` seats between games (by seat name and copy); the caller
    closes them with ``close_bots`` when it is done. Without it every bot is built for this game.
    """
    started = time.perf_counter()
    players = len(seats)
    names = [s.name for s in seats]
    gid = spec.game_id
    state = new_game(players=players, variant=variant, opener=spec.opener)
    termination, error, fault_seat = "normal", None, None
    move_rows, round_rows = buf.move_rows, []
    penalties = [0] * players
    rnd = ply = opener = 0
    factories, round_open = "", False
    bots: list[Bot] = []
    try:
        bots = _build_bots(seats, gid, kept, spec.bot_seeds)
        referee = _Referee(bots, seats)
        for event in play(state, referee, lambda r: round_seed(spec.deal_seed, r)):
            if type(event) is Moved:
                ply, p = event.ply, event.played
                move = p.move
                source = None if move.is_tiling else "center" if move.from_center else "factory"
                # a moves row, in RecordBuffer.MOVE_ROW's order
                move_rows.append((gid, ply, event.round, p.seat, names[p.seat], str(move), source, move.factory,
                                  p.colour, p.taken, move.line, p.to_floor, p.took_marker, event.legal,
                                  referee.think * 1000.0, move.column))
            elif type(event) is Dealt:
                rnd, opener, factories, round_open = event.round, event.opener, " ".join(event.factories), True
            else:  # RoundEnded
                scores = state.scores
                for s, r in enumerate(event.scoring):
                    penalties[s] += r.floor_penalty
                    round_rows.append((rnd, s, opener, factories, r.wall_points, r.floor_penalty, scores[s]))
                round_open = False
    except Forfeit as f:
        termination, error = f.termination, f.error
        fault_seat = state.to_move if f.seat is None else f.seat
    except IllegalMoveError as exc:  # the move was refused by the rules: the reason says why
        fault_seat = state.to_move
        termination, error = "illegal", f"seat {fault_seat} ({names[fault_seat]}): {exc}"
    finally:
        close_bots(_fresh(bots, kept))
    final = state.to_json()
    scores = [b["score"] for b in final["boards"]]
    walls = [b["wall"] for b in final["boards"]]
    if round_open:  # a forfeit inside a round: its deal is kept (replay needs it), no points yet
        round_rows.extend((rnd, s, opener, factories, None, None, score) for s, score in enumerate(scores))
    buf.append("rounds", ("game_id", "round", "seat", "opener", "factories", "wall_points", "floor_penalty",
                          "score_after"), [(gid, *row) for row in round_rows])
    rows_done = [complete_rows(w) for w in walls]
    places = _places(scores, rows_done, fault_seat)
    over = termination == "normal"
    buf.append("results", ("game_id", "seat", "bot", "score", "rank", "is_winner", "complete_rows",
                           "complete_columns", "complete_colors", "bonus_points", "floor_penalty_total"),
               [(gid, s, names[s], scores[s], places[s], places[s] == 1, rows_done[s], complete_columns(walls[s]),
                 complete_colours(walls[s]), end_bonus(walls[s]) if over else 0, penalties[s])
                for s in range(players)])
    buf.append("games", ("game_id", "deal_seed", "variant", "num_players", "rounds", "plies", "termination",
                         "error", "duration_s", "engine_version", "table", "deal", "arrangement", "fault_seat",
                         "series_id", "series_game", "intervention", "study_seat", "event_round", "pairing",
                         "event_byes"),
               [(gid, spec.deal_seed, variant, players, rnd, ply, termination, error,
                 time.perf_counter() - started, ENGINE_VERSION, spec.table, spec.deal, spec.arrangement,
                 fault_seat, series_id(spec), spec.series_game, spec.intervention, spec.study_seat,
                 *event_values(spec))])
    buf.games += 1
    return GameOutcome(gid, termination, error, scores, places, names, fault_seat)


def _build_bots(seats: Sequence[Seat], gid: str, kept: dict | None,
                seeds: tuple[int, ...] | None = None) -> list[Bot]:
    """A bot per seat (fresh, or kept from the last game), told the time limit and reset outside
    any move's clock (an external program starts here); a bot that cannot be built forfeits.
    ``seeds``: each seat's seed as given (a study's), else derived from the bot's seed and the game."""
    bots: list[Bot] = []
    names = [s.name for s in seats]
    for s, seat in enumerate(seats):
        try:
            # a bot seated more than once (self-play) gets a seed of its own in each seat
            copy = names[:s].count(seat.name)
            seed = seeds[s] if seeds else bot_game_seed(seat.seed, gid, copy)
            if kept is not None:
                bot = kept.get((seat.name, copy))
                if bot is None:
                    bot = kept[(seat.name, copy)] = seat.make(seed)
                else:
                    bot.reseed(seed)  # the game's own seed (an external program is told it in reset)
            else:
                bot = seat.make(seed)
            bots.append(bot)
            bot.time_limit = seat.time_limit
            bot.reset()
        except Exception as exc:
            close_bots(_fresh(bots, kept))
            raise Forfeit(_kind(exc), f"seat {s} ({seat.name}): {_describe(exc)}", s) from None
    return bots


def _fresh(bots: list[Bot], kept: dict | None) -> list[Bot]:
    """The bots built for this game only (closed at its end), not those kept between games."""
    kept_ids = {id(b) for b in (kept or {}).values()}
    return [b for b in bots if id(b) not in kept_ids]


def _kind(exc: Exception) -> str:
    """The forfeit kind of a bot's exception: its own ``kind`` (an external bot's) or "error"."""
    kind = getattr(exc, "kind", None)
    return kind if kind in FAULTS else "error"


def close_bots(bots) -> None:
    """Close every bot that has a ``close`` (external programs), ignoring their errors."""
    for bot in list(bots):
        close = getattr(bot, "close", None)
        if callable(close):
            try:
                close()
            except Exception:
                pass


def _places(scores: list[int], rows: list[int], fault_seat: int | None) -> list[int]:
    """Ranks on the final position; a seat that forfeited is last, the others ranked among themselves."""
    if fault_seat is None:
        return ranks(scores, rows)
    others = [s for s in range(len(scores)) if s != fault_seat]
    places = [len(scores)] * len(scores)
    for s, r in zip(others, ranks([scores[s] for s in others], [rows[s] for s in others])):
        places[s] = r
    return places


def _act_with_alarm(bot: Bot, view: GameState, limit: float) -> Move:
    """``bot.act`` interrupted by SIGALRM at ``limit`` seconds, where signals allow it.

    Only the main thread can take signals; elsewhere (and for compiled code that does not return
    to Python) the move is still timed and forfeited afterwards if it ran past the limit.
    """
    if threading.current_thread() is not threading.main_thread():
        return bot.act(view)
    previous = signal.signal(signal.SIGALRM, _raise_timeout)
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        return bot.act(view)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _raise_timeout(signum, frame):
    raise MoveTimeout()


def _describe(exc: BaseException) -> str:
    text = str(exc)
    kind = type(exc).__name__
    return f"{kind}: {text}" if text else kind
