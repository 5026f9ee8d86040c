"""A person's finished game written as records of the ``played`` kind (kinds/played.py) into the
folder ``azul serve --play-out`` names (or the ``s3://BUCKET/PREFIX`` run it names): the only write
the pages make.

The rows are the league referee's own (``tournament.game.play_game``): the finished game is
played again there, each seat answering with the move it made, on the same deal seeds, so the
four tables are exactly what a league writes for such a game (a series' ``series_id`` and
``series_game`` too); only the thinking times and the game's duration are the table's own, as
measured while it was played. Everything goes through the run's store (``records.store.open_store``:
a local folder, or a run on object storage): the part is written under the store's lock
(``store.lock()``: the folder's flock, or the S3 lock object), ``run.json`` first when the run is new.

A saved game can be reviewed (``review_game``: kinds/review.py's ``review_run`` with the default
analyser, its budget the one the table allows, ``REVIEW_ITERATIONS``), its rows stored beside the
games as the run's ``reviews`` side table, as ``azul review run`` stores them.
"""
from __future__ import annotations

import secrets
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass

import pyarrow as pa

from bots import Bot
from engine import GameState, Move
from kinds.played import PLAYED
from records.folder import RunInUse, new_run_id, run_kind, save_run_id, saved_run_id
from records.names import RUN_FILE
from records.parts import PartWriter
from records.store import RunStore
from records.tables import RecordBuffer
from tournament.game import Seat, play_game
from tournament.scheduler import GameSpec

KIND = PLAYED.name
REVIEW_ITERATIONS = 1000  # the review's budget a search: the default analyser's, the only one the table runs
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


def check_play_out(play_out) -> None:
    """A ValueError in one line when ``play_out`` (a folder, a URL or its store) cannot take a
    person's games: it holds another kind of run, or it is a file (or the store cannot be read)."""
    store = RunStore(play_out)
    if store.blocked():
        raise ValueError(f"--play-out {store}: not a folder")
    try:
        if store.exists(RUN_FILE) or store.has_records():
            kind = run_kind(store.view(parts=False))
            if kind != KIND:
                raise ValueError(f"--play-out {store}: it holds a {kind} run; a person's games go into a "
                                 "folder of their own (a new folder, or one azul serve wrote)")
    except OSError as exc:  # records.objects.ObjectStoreError: the message names the object, never the endpoint
        raise ValueError(f"--play-out {store}: cannot read it ({exc.strerror or exc})") from None


def new_game_id() -> str:
    """A game's (or a series') id in the folder: random, so two servers never share one."""
    return f"web{secrets.token_hex(5)}"


def write_game(play_out, game: FinishedGame) -> str:
    """Write ``game`` as one part of ``play_out`` (a folder, a URL or its store; made a played run
    if new); returns its game id. A ValueError says why it could not be written."""
    store = RunStore(play_out)
    check_play_out(store)
    try:
        with _locked(store):
            check_play_out(store)  # again, under the lock
            run_id = saved_run_id(store.view(parts=False))
            if run_id is None:
                run_id = new_run_id(KIND)
                save_run_id(store, run_id, kind=KIND)
            gid = f"{game.series}-s{game.series_game}" if game.series else new_game_id()
            PartWriter(store).write({name: [t] for name, t in game_tables(game, gid, run_id).items()})
            return gid
    except OSError as exc:
        raise ValueError(f"--play-out {store}: cannot write the game ({exc.strerror or exc})") from None


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


@contextmanager
def _locked(store) -> Iterator[None]:
    """The store's lock while the block runs, waited for ``LOCK_TRIES`` times 0.1 s; a ValueError
    when another writer keeps it."""
    with ExitStack() as held:
        for _ in range(LOCK_TRIES):
            try:
                held.enter_context(store.lock())
                break
            except RunInUse as exc:
                holder = exc
                time.sleep(0.1)
        else:
            raise ValueError(f"{holder}; the game was not saved")
        yield


def review_game(play_out, game_id: str, players: int) -> dict:
    """Review the saved game ``game_id`` of ``play_out`` (a folder, a URL or its store) with the
    default analyser of ``players`` and store it with the run (a game reviewed before is not
    reviewed again); returns ``analyser`` (its label) and ``accuracy`` (per seat, as the replay page
    shows it: present/review_view.py). A ValueError says why it could not be made."""
    from analysis.review_marks import ITERATIONS, default_analyser
    from kinds.review import review_run
    from present.review_view import accuracy

    if ITERATIONS != REVIEW_ITERATIONS:  # the table runs the default analyser only at the capped budget
        raise ValueError(f"the default analyser searches {ITERATIONS:,} iterations, over the table's "
                         f"{REVIEW_ITERATIONS:,}: review it with azul review run")
    store = RunStore(play_out)
    try:
        outcome = review_run(store.address(), [game_id], analyser=default_analyser(players), workers=0)
    except OSError as exc:
        raise ValueError(f"--play-out {store}: cannot store the review ({exc.strerror or exc})") from None
    except Exception as exc:  # noqa: BLE001 - records.errors.AzulError and the analyser's ValueError: one line
        raise ValueError(str(exc) or type(exc).__name__) from None
    rows = [r for r in outcome.rows if r["game_id"] == game_id]
    if not rows:
        raise ValueError(f"the review of game {game_id} holds no move")
    return {"analyser": rows[0]["analyser"], "accuracy": accuracy(rows, players)}
