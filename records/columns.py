"""The column table of the four record tables (SPEC section 5): every column's table, name, Arrow
type, who fills it, and whether writers build it as a dictionary array. The schemas are derived
from it; nothing else in the project lists the columns.

``SCHEMAS[table]`` is a table as it is stored and read back: SPEC 5's columns first, in SPEC's
order, then those added here (none of SPEC's is renamed or left out). ``WRITE_SCHEMAS[table]`` is
the same columns as writers build them (``records.tables.build_table``): a low-cardinality string
column of the big tables (``dictionary``) is a dictionary array there, which Parquet writes
without hashing every string; on disk it is the same string column (``records.parts`` writes no
Arrow schema), so every reader sees ``SCHEMAS``.

Who fills a column (``source``): ``run`` the run's id (``build_table``); ``schedule`` the game's
place in the schedule (its ``GameSpec``); ``config`` the league's config (variant, seats' bot
names, the engine's version); ``play`` what playing the game gives; ``study`` a strategy study's
columns, added to ``games`` after the others in a study's records only (kinds/study.py), so a
league's records stay exactly as they were; readers over several runs see null there; ``event``
a Swiss or knockout event's columns (tournament/events/), added the same way after the others, in
an event's records only: the event's round, the pairing's number in its round (a Swiss board, a
knockout bracket slot) and the bots with a bye in that round (so the standings rebuild from the
records alone); ``tune`` a tune's columns (kinds/tune.py), added likewise to a tune's
``games`` only: the step of SPSA a game belongs to and the tuned parameters' values (JSON objects
by name) at that step's theta and as theta+ and theta- played them.
"""
from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa

TABLES = ("games", "results", "moves", "rounds")
WRITE_ORDER = ("moves", "rounds", "results", "games")  # a part is written in this order: games last commits it
SOURCES = ("run", "schedule", "config", "play", "study", "event", "tune")
OPTIONAL = ("study", "event", "tune")  # sources whose columns only the runs that fill them have

I32, I64, F64, STR, BOOL = pa.int32(), pa.int64(), pa.float64(), pa.string(), pa.bool_()


@dataclass(frozen=True)
class Column:
    table: str
    name: str
    type: pa.DataType  # as stored and read
    source: str  # who fills it (SOURCES)
    spec: bool = False  # one of SPEC 5's columns: every part of the table has it
    dictionary: bool = False  # built as dictionary<int32, string> by writers

    def __post_init__(self):
        if self.table not in TABLES or self.source not in SOURCES or (self.dictionary and self.type != STR):
            raise ValueError(f"column {self.table}.{self.name}: table one of {TABLES}, source one of "
                             f"{SOURCES}, dictionary only for strings")

    @property
    def write_type(self) -> pa.DataType:
        return pa.dictionary(pa.int32(), self.type) if self.dictionary else self.type


COLUMNS: tuple[Column, ...] = (
    Column("games", "run_id", STR, "run", spec=True),
    Column("games", "game_id", STR, "schedule", spec=True),
    Column("games", "deal_seed", I64, "schedule", spec=True),
    Column("games", "variant", STR, "config", spec=True),
    Column("games", "num_players", I32, "config", spec=True),
    Column("games", "rounds", I32, "play", spec=True),
    Column("games", "plies", I32, "play", spec=True),
    Column("games", "termination", STR, "play", spec=True),
    Column("games", "error", STR, "play", spec=True),
    Column("games", "duration_s", F64, "play", spec=True),
    Column("games", "engine_version", STR, "config", spec=True),
    # added: where the game sits in the schedule, and who forfeited it
    Column("games", "table", I32, "schedule"),
    Column("games", "deal", I32, "schedule"),
    Column("games", "arrangement", I32, "schedule"),
    Column("games", "fault_seat", I32, "play"),
    # added for ``match: series``: the series a game belongs to, which game of it (1 or 2)
    Column("games", "series_id", STR, "schedule"),
    Column("games", "series_game", I32, "schedule"),
    # a strategy study's: the intervention a game plays (``control``) and the seat that plays it
    Column("games", "intervention", STR, "study"),
    Column("games", "study_seat", I32, "study"),
    # a Swiss or knockout event's (tournament/events/): the round, the pairing's number in it, the byes
    Column("games", "event_round", I32, "event"),
    Column("games", "pairing", I32, "event"),
    Column("games", "event_byes", pa.list_(STR), "event"),
    # a tune's: the step, and the tuned values at theta, theta+ and theta- (JSON objects by name)
    Column("games", "tune_step", I32, "tune"),
    Column("games", "tune_theta", STR, "tune"),
    Column("games", "tune_plus", STR, "tune"),
    Column("games", "tune_minus", STR, "tune"),

    Column("results", "run_id", STR, "run", spec=True),
    Column("results", "game_id", STR, "schedule", spec=True),
    Column("results", "seat", I32, "play", spec=True),
    Column("results", "bot", STR, "config", spec=True),
    Column("results", "score", I32, "play", spec=True),
    Column("results", "rank", I32, "play", spec=True),
    Column("results", "is_winner", BOOL, "play", spec=True),
    Column("results", "complete_rows", I32, "play", spec=True),
    Column("results", "complete_columns", I32, "play", spec=True),
    Column("results", "complete_colors", I32, "play", spec=True),
    Column("results", "bonus_points", I32, "play", spec=True),
    Column("results", "floor_penalty_total", I32, "play", spec=True),

    Column("moves", "run_id", STR, "run", spec=True, dictionary=True),
    Column("moves", "game_id", STR, "schedule", spec=True, dictionary=True),
    Column("moves", "ply", I32, "play", spec=True),
    Column("moves", "round", I32, "play", spec=True),
    Column("moves", "seat", I32, "play", spec=True),
    Column("moves", "bot", STR, "config", spec=True, dictionary=True),
    Column("moves", "move", STR, "play", spec=True, dictionary=True),
    Column("moves", "source", STR, "play", spec=True, dictionary=True),
    Column("moves", "factory", I32, "play", spec=True),
    Column("moves", "color", STR, "play", spec=True, dictionary=True),
    Column("moves", "taken", I32, "play", spec=True),
    Column("moves", "line", I32, "play", spec=True),
    Column("moves", "to_floor", I32, "play", spec=True),
    Column("moves", "took_marker", BOOL, "play", spec=True),
    Column("moves", "legal_moves", I32, "play", spec=True),
    Column("moves", "think_ms", F64, "play", spec=True),
    # added: the wall column of a gray tiling move (1-based)
    Column("moves", "column", I32, "play"),

    Column("rounds", "run_id", STR, "run", spec=True, dictionary=True),
    Column("rounds", "game_id", STR, "schedule", spec=True, dictionary=True),
    Column("rounds", "round", I32, "play", spec=True),
    Column("rounds", "seat", I32, "play", spec=True),
    Column("rounds", "opener", I32, "play", spec=True),
    Column("rounds", "factories", STR, "play", spec=True),
    Column("rounds", "wall_points", I32, "play", spec=True),
    Column("rounds", "floor_penalty", I32, "play", spec=True),
    Column("rounds", "score_after", I32, "play", spec=True),
)


def columns_of(table: str, study: bool = False, event: bool = False) -> list[Column]:
    """The columns of ``table`` in order (a study's ``games`` columns too with ``study``, an
    event's with ``event``)."""
    if table not in TABLES:
        raise ValueError(f"no table {table!r} (tables: {', '.join(TABLES)})")
    wanted = {"study": study, "event": event}  # a tune's columns come from its stages (tables.with_columns)
    return [c for c in COLUMNS if c.table == table and (c.source not in OPTIONAL or wanted.get(c.source, False))]


SCHEMAS: dict[str, pa.Schema] = {t: pa.schema([(c.name, c.type) for c in columns_of(t)]) for t in TABLES}
WRITE_SCHEMAS: dict[str, pa.Schema] = {t: pa.schema([(c.name, c.write_type) for c in columns_of(t)])
                                       for t in TABLES}
STUDY_COLUMNS = pa.schema([(c.name, c.type) for c in COLUMNS if c.source == "study"])
EVENT_COLUMNS = pa.schema([(c.name, c.type) for c in COLUMNS if c.source == "event"])
TUNE_COLUMNS = pa.schema([(c.name, c.type) for c in COLUMNS if c.source == "tune"])
# The columns every part of a table has (SPEC 5's); columns added later may be missing in older
# runs (readers read them as null).
REQUIRED: dict[str, list[str]] = {t: [c.name for c in columns_of(t) if c.spec] for t in TABLES}

# The side tables' columns (records.names.SIDE_TABLES), written by records/side.py's parts: the
# review's (SPEC 11; kinds/review_move.py fills them), one row per reviewed move. SPEC's columns
# first; ``wins`` and ``wins_played`` are each seat's calibrated win probability after the best
# move and after the played one (each list sums to 1), ``points_best`` and ``points_played`` the
# mover's expected final score after each, ``pv`` the best move's principal variation (notation,
# spaces between), ``source`` ``factory``, ``center`` (the moves table's words) or ``tiling``,
# ``iterations`` the analyser's budget a search.
SIDE_SCHEMAS: dict[str, pa.Schema] = {"reviews": pa.schema([
    ("run_id", STR), ("game_id", STR), ("ply", I32), ("seat", I32), ("bot", STR), ("move", STR), ("best", STR),
    ("win_before", F64), ("win_loss", F64), ("points_loss", F64), ("class", STR), ("analyser", STR),
    ("round", I32), ("wins", pa.list_(F64)), ("wins_played", pa.list_(F64)), ("points_best", F64),
    ("points_played", F64), ("pv", STR), ("source", STR), ("to_floor", BOOL), ("took_marker", BOOL),
    ("iterations", I64)])}
