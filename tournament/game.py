"""Play one league game between bots, as a referee: every move checked, timed and recorded.

The deal of round r of a game is ``state.deal(seed=round_seed(deal_seed, r))`` (r from 1; see
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
from engine import COLOURS, GameState, IllegalMoveError, Move, new_game
from engine import __version__ as ENGINE_VERSION
from engine.notation import MOVES
from engine.position import ranks as engine_ranks
from engine.scoring import placement_points

from .records import RecordBuffer
from .scheduler import GameSpec, bot_game_seed, round_seed, series_id

_DRAFT, _TILING, _REFILL, _OVER = 0, 1, 2, 3
EMPTY = 255
FAULTS = ("error", "illegal", "timeout")


class MoveTimeout(BaseException):
    """Raised inside a bot's ``act`` when its time is up (a BaseException: bots cannot swallow it)."""


@dataclass(frozen=True)
class Seat:
    """What a game needs to know about a bot: its league name, how to build it, its time limit."""

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


# Per move code: (text, source, factory, colour letter, colour index, line, column, is_tiling)
def _move_info(m: Move) -> tuple:
    if m.is_tiling:
        return (str(m), None, None, None, None, m.line, m.column, True)
    return (str(m), "center" if m.from_center else "factory", m.factory, m.colour,
            COLOURS.index(m.colour), m.line, None, False)


MOVE_INFO = [_move_info(m) for m in MOVES]


def play_game(spec: GameSpec, seats: Sequence[Seat], variant: str, buf: RecordBuffer) -> GameOutcome:
    """Play ``spec`` with ``seats[s]`` in seat s, appending its rows to ``buf``."""
    started = time.perf_counter()
    players = len(seats)
    names = [s.name for s in seats]
    state = new_game(players=players, variant=variant, opener=spec.opener)
    core = state._core
    bots: list[Bot | None] = [None] * players
    move_rows = buf.move_rows
    gid = spec.game_id
    termination, error, fault_seat = "normal", None, None
    ply = rnd = 0
    round_open = False
    start_scores: list[int] = []
    start_cells: list[list[int]] = []
    opener = 0
    factories = ""
    penalties = [0] * players
    closed_rounds: list[tuple] = []
    perf = time.perf_counter
    try:
        for s, seat in enumerate(seats):
            try:
                # a bot seated more than once (self-play) gets a seed of its own in each seat
                copy = names[:s].count(seat.name)
                bots[s] = seat.make(bot_game_seed(seat.seed, gid, copy))
                bots[s].reset()
            except Exception as exc:  # a bot that cannot even be built forfeits too
                termination, error, fault_seat = "error", f"seat {s} ({seat.name}): {_describe(exc)}", s
                break
        while termination == "normal":
            phase = core.phase
            if phase == _REFILL:
                rnd += 1
                state.deal(seed=round_seed(spec.deal_seed, rnd))
                raw = core.export()
                # What the referee tracks through the round, for the moves table: the sources,
                # whether the marker is still in the centre, and every seat's pattern lines.
                facs = [list(f) for f in raw["factories"]]
                factories = " ".join([_letters(f) for f in facs])
                centre = list(raw["center"])
                marker_in_centre = raw["marker"] is None
                lines = [[list(x) for x in b[1]] for b in raw["boards"]]
                opener = raw["opener"]
                start_scores = [b[0] for b in raw["boards"]]
                start_cells = [b[2] for b in raw["boards"]]
                round_open = True
                if core.phase == _OVER:  # an empty deal ends the game at once
                    closed_rounds.append(_close_round(rnd, opener, factories, start_scores, start_cells,
                                                      core.export(), True, penalties))
                    round_open = False
                continue
            if phase == _OVER:
                break
            seat = core.to_move
            n_legal = len(core.legal_codes())
            view = state.clone()
            limit = seats[seat].time_limit
            t0 = perf()
            try:
                if limit is None:
                    move = bots[seat].act(view)
                else:
                    move = _act_with_alarm(bots[seat], view, limit)
                think = perf() - t0
                if limit is not None and think > limit:
                    raise MoveTimeout()
                if type(move) is not Move:
                    if not isinstance(move, (Move, str)):
                        raise IllegalMoveError(f"returned {move!r:.60}, not a move")
                    move = Move.parse(move)
                if core.play(move.code):
                    state.play(move)  # refused: this raises IllegalMoveError with the reason
            except MoveTimeout:
                termination = "timeout"
                error = f"seat {seat} ({names[seat]}): no move within the time limit of {limit:g} s"
            except IllegalMoveError as exc:
                termination, error = "illegal", f"seat {seat} ({names[seat]}): {exc}"
            except Exception as exc:
                kind = getattr(exc, "kind", None)
                termination = kind if kind in FAULTS else "error"
                error = f"seat {seat} ({names[seat]}): {_describe(exc)}"
            if termination != "normal":
                fault_seat = seat
                break
            ply += 1
            text, source, factory, colour, c, line, column, tiling = MOVE_INFO[move.code]
            if tiling:
                move_rows.append((gid, ply, rnd, seat, names[seat], text, None, None,
                                  COLOURS[lines[seat][line - 1][0]], None, line, 0, False, n_legal,
                                  think * 1000.0, column))
            else:
                if factory is None:
                    taken = centre[c]
                    centre[c] = 0
                    took_marker = marker_in_centre
                    marker_in_centre = False
                else:
                    src = facs[factory - 1]
                    taken = src[c]
                    src[c] = 0
                    for o in range(5):
                        centre[o] += src[o]
                        src[o] = 0
                    took_marker = False
                put = 0
                if line is not None:
                    held = lines[seat][line - 1]
                    put = min(taken, line - held[1])
                    held[0] = c
                    held[1] += put
                move_rows.append((gid, ply, rnd, seat, names[seat], text, source, factory, colour, taken,
                                  line, taken - put, took_marker, n_legal, think * 1000.0, None))
            if core.phase >= _REFILL:
                closed_rounds.append(_close_round(rnd, opener, factories, start_scores, start_cells,
                                                  core.export(), core.phase == _OVER, penalties))
                round_open = False
    finally:
        for bot in bots:
            close = getattr(bot, "close", None)
            if callable(close):
                try:
                    close()
                except Exception:
                    pass
    final = core.export()
    scores = [b[0] for b in final["boards"]]
    if round_open:  # a forfeit inside a round: its deal is kept (replay needs it), no points yet
        closed_rounds.append(_open_round(rnd, opener, factories, scores))
    rounds = buf.columns["rounds"]
    for rows in closed_rounds:
        for row in rows:
            rounds["game_id"].append(gid)
            for key, value in zip(("round", "seat", "opener", "factories", "wall_points",
                                   "floor_penalty", "score_after"), row):
                rounds[key].append(value)
    walls = [b[2] for b in final["boards"]]
    rows_done = [_complete_rows(w) for w in walls]
    if fault_seat is None:
        places = engine_ranks(scores, rows_done)
    else:
        others = [s for s in range(players) if s != fault_seat]
        sub = engine_ranks([scores[s] for s in others], [rows_done[s] for s in others])
        places = [0] * players
        for s, r in zip(others, sub):
            places[s] = r
        places[fault_seat] = players
    over = termination == "normal"
    results = buf.columns["results"]
    for s in range(players):
        cols = _complete_columns(walls[s])
        colours = _complete_colours(walls[s])
        for key, value in (("game_id", gid), ("seat", s), ("bot", names[s]), ("score", scores[s]),
                           ("rank", places[s]), ("is_winner", places[s] == 1),
                           ("complete_rows", rows_done[s]), ("complete_columns", cols),
                           ("complete_colors", colours),
                           ("bonus_points", 2 * rows_done[s] + 7 * cols + 10 * colours if over else 0),
                           ("floor_penalty_total", penalties[s])):
            results[key].append(value)
    games = buf.columns["games"]
    for key, value in (("game_id", gid), ("deal_seed", spec.deal_seed), ("variant", variant),
                       ("num_players", players), ("rounds", rnd), ("plies", ply),
                       ("termination", termination), ("error", error),
                       ("duration_s", time.perf_counter() - started), ("engine_version", ENGINE_VERSION),
                       ("table", spec.table), ("deal", spec.deal), ("arrangement", spec.arrangement),
                       ("fault_seat", fault_seat), ("series_id", series_id(spec)),
                       ("series_game", spec.series_game)):
        games[key].append(value)
    buf.games += 1
    return GameOutcome(gid, termination, error, scores, places, names, fault_seat)


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


# ---------------------------------------------------------------- rounds and scoring
def wall_points(before: list[int], after: list[int]) -> int:
    """Points scored by the tiles placed between two walls, top row first (the order of tiling)."""
    if before == after:
        return 0
    cells = list(before)
    total = 0
    for i in range(25):
        b = after[i]
        if b != cells[i]:
            cells[i] = b
            total += placement_points([x != EMPTY for x in cells], *divmod(i, 5))
    return total


_LETTERS: dict[tuple[int, ...], str] = {}


def _letters(counts: list[int]) -> str:
    key = tuple(counts)
    text = _LETTERS.get(key)
    if text is None:
        text = _LETTERS[key] = "".join(COLOURS[c] * n for c, n in enumerate(counts))
    return text


def _complete_rows(cells: list[int]) -> int:
    return sum(all(cells[r * 5 + c] != EMPTY for c in range(5)) for r in range(5))


def _complete_columns(cells: list[int]) -> int:
    return sum(all(cells[r * 5 + c] != EMPTY for r in range(5)) for c in range(5))


def _complete_colours(cells: list[int]) -> int:
    return sum(cells.count(k) == 5 for k in range(5))


def end_bonus(cells: list[int]) -> int:
    return 2 * _complete_rows(cells) + 7 * _complete_columns(cells) + 10 * _complete_colours(cells)


def _close_round(rnd, opener, factories, start_scores, start_cells, raw, over, penalties):
    """Rows of a finished round: wall points from the new tiles, the floor from the score change.

    The floor penalty is what the floor took off the score (the score never goes below 0), so
    ``score_after`` = previous score + ``wall_points`` - ``floor_penalty`` (+ end bonuses in the
    last round).
    """
    rows = []
    for s, board in enumerate(raw["boards"]):
        score, cells = board[0], board[2]
        points = wall_points(start_cells[s], cells)
        bonus = end_bonus(cells) if over else 0
        penalty = start_scores[s] + points + bonus - score
        penalties[s] += penalty
        rows.append((rnd, s, opener, factories, points, penalty, score))
    return rows


def _open_round(rnd, opener, factories, scores):
    return [(rnd, s, opener, factories, None, None, score) for s, score in enumerate(scores)]
