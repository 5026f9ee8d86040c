"""A person's finished game written as records of the ``played`` kind (kinds/played.py) into the
folder ``azul serve --play-out`` names: the only write the pages make.

The rows are the league referee's own (``tournament.game.play_game``): the finished game is
played again there, each seat answering with the move it made, on the same deal seeds, so the
four tables are exactly what a league writes for such a game (a series' ``series_id`` and
``series_game`` too); only the thinking times and the game's duration are the table's own, as
measured while it was played. The part is written under the folder's lock (``records.folder``),
``run.json`` first when the folder is new.
"""
from __future__ import annotations

import os
import secrets
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa

from bots import Bot
from engine import GameState, Move
from kinds.played import PLAYED
from records.folder import RunInUse, new_run_id, run_kind, save_run_id, saved_run_id, take_lock
from records.names import RUN_FILE
from records.parts import PartWriter, has_records
from records.store import RunStore
from records.tables import RecordBuffer
from tournament.game import Seat, play_game
from tournament.scheduler import GameSpec

KIND = PLAYED.name
LOCK_TRIES = 20  # times 0.1 s: how long a save waits for another writer of the folder


@dataclass(frozen=True)
class FinishedGame:
    """What the table kept of a finished game: enough to replay it exactly and time it."""

    names: list[str]  # per seat, as the records name them
    variant: str
    deal_seed: int
    opener: int
    moves: list[str]
    think_ms: list[float]  # per move, as measured at the table
    duration_s: float
    series: str | None = None  # the series' id, None for a single game
    series_game: int | None = None


def check_play_out(play_out: Path) -> None:
    """A ValueError in one line when ``play_out`` cannot take a person's games: it holds another
    kind of run, or it is a file."""
    if play_out.exists() and not play_out.is_dir():
        raise ValueError(f"--play-out {play_out}: not a folder")
    if RunStore(play_out).exists(RUN_FILE) or has_records(play_out):
        kind = run_kind(play_out)
        if kind != KIND:
            raise ValueError(f"--play-out {play_out}: it holds a {kind} run; a person's games go into a "
                             "folder of their own (a new folder, or one azul serve wrote)")


def new_game_id() -> str:
    """A game's (or a series') id in the folder: random, so two servers never share one."""
    return f"web{secrets.token_hex(5)}"


def write_game(play_out: Path, game: FinishedGame) -> str:
    """Write ``game`` as one part of ``play_out`` (made a played run if new); returns its game id.
    A ValueError says why it could not be written."""
    check_play_out(play_out)
    fd = _lock(play_out)
    try:
        check_play_out(play_out)  # again, under the lock
        run_id = saved_run_id(play_out)
        if run_id is None:
            run_id = new_run_id(KIND)
            save_run_id(play_out, run_id, kind=KIND)
        gid = f"{game.series}-s{game.series_game}" if game.series else new_game_id()
        PartWriter(play_out).write({name: [t] for name, t in game_tables(game, gid, run_id).items()})
        return gid
    except OSError as exc:
        raise ValueError(f"--play-out {play_out}: cannot write the game ({exc.strerror or exc})") from None
    finally:
        os.close(fd)


def game_tables(game: FinishedGame, game_id: str, run_id: str) -> dict[str, pa.Table]:
    """The four record tables of one finished game (``play_game``'s rows, the table's times)."""
    moves: Iterator[str] = iter(game.moves)
    seats = [Seat(name, lambda seed: _Replayed(moves), 0) for name in game.names]
    spec = GameSpec(game_id, 0, 0, 0, game.deal_seed, tuple(range(len(seats))), game.opener, game.series_game)
    buf = RecordBuffer()
    outcome = play_game(spec, seats, game.variant, buf)
    if outcome.termination != "normal" or next(moves, None) is not None:
        raise RuntimeError(f"the finished game does not replay: {outcome.error or 'moves left over'}")
    tables = buf.to_tables(run_id)
    tables["moves"] = _replaced(tables["moves"], "think_ms", pa.array(game.think_ms, pa.float64()))
    tables["games"] = _replaced(tables["games"], "duration_s", pa.array([game.duration_s], pa.float64()))
    return tables


def _replaced(table: pa.Table, column: str, values: pa.Array) -> pa.Table:
    i = table.schema.get_field_index(column)
    return table.set_column(i, table.schema.field(i), values)


class _Replayed(Bot):
    """Every seat of the game played again: each answers with the next move of the game."""

    type_name = "replayed"

    def __init__(self, moves: Iterator[str]):
        super().__init__(0)
        self.moves = moves

    def act(self, state: GameState) -> Move:
        return Move.parse(next(self.moves))


def _lock(play_out: Path) -> int:
    for _ in range(LOCK_TRIES):
        try:
            return take_lock(play_out)
        except RunInUse as exc:
            holder = exc
            time.sleep(0.1)
    raise ValueError(f"{holder}; the game was not saved")
