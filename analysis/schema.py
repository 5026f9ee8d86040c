"""The four record tables of a league (SPEC section 5) as Arrow schemas: the one definition that
the league's writer (tournament/records.py) and the synthetic runs (analysis/synthetic_records.py)
share. Columns beyond SPEC 5 are marked; none of SPEC's is renamed or left out.
"""
from __future__ import annotations

import pyarrow as pa

TABLES = ("games", "results", "moves", "rounds")
WRITE_ORDER = ("moves", "rounds", "results", "games")  # a part is written in this order: games last commits it

_i32, _i64, _f64, _str, _bool = pa.int32(), pa.int64(), pa.float64(), pa.string(), pa.bool_()

SCHEMAS: dict[str, pa.Schema] = {
    "games": pa.schema([
        ("run_id", _str), ("game_id", _str), ("deal_seed", _i64), ("variant", _str),
        ("num_players", _i32), ("rounds", _i32), ("plies", _i32), ("termination", _str),
        ("error", _str), ("duration_s", _f64), ("engine_version", _str),
        # added beyond SPEC 5: where the game sits in the schedule, and who forfeited it
        ("table", _i32), ("deal", _i32), ("arrangement", _i32), ("fault_seat", _i32),
        # added for ``match: series``: the series a game belongs to and which game of it (1 or 2);
        # both null in a league of single games
        ("series_id", _str), ("series_game", _i32),
    ]),
    "results": pa.schema([
        ("run_id", _str), ("game_id", _str), ("seat", _i32), ("bot", _str), ("score", _i32),
        ("rank", _i32), ("is_winner", _bool), ("complete_rows", _i32), ("complete_columns", _i32),
        ("complete_colors", _i32), ("bonus_points", _i32), ("floor_penalty_total", _i32),
    ]),
    "moves": pa.schema([
        ("run_id", _str), ("game_id", _str), ("ply", _i32), ("round", _i32), ("seat", _i32),
        ("bot", _str), ("move", _str), ("source", _str), ("factory", _i32), ("color", _str),
        ("taken", _i32), ("line", _i32), ("to_floor", _i32), ("took_marker", _bool),
        ("legal_moves", _i32), ("think_ms", _f64),
        ("column", _i32),  # added: the wall column of a gray tiling move (1-based)
    ]),
    "rounds": pa.schema([
        ("run_id", _str), ("game_id", _str), ("round", _i32), ("seat", _i32), ("opener", _i32),
        ("factories", _str), ("wall_points", _i32), ("floor_penalty", _i32), ("score_after", _i32),
    ]),
}

# Added after the columns above to ``games`` in a strategy study's records only
# (tournament/study.py), so that a league's records stay exactly as they were: the intervention
# a game plays (``control`` for a control game) and the seat that plays it (null in a control
# game shared by every seat). Readers over several runs (``analysis.records.connect``) see null
# in a league's rows.
STUDY_COLUMNS = pa.schema([("intervention", _str), ("study_seat", _i32)])
