"""One table of one run folder read back as Arrow: its committed parts only, checked first."""
from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from .checks import check_run_dir, naming_damage
from .columns import SCHEMAS, TABLES
from .parts import committed_parts, part_path


def read_table(run_dir: str | Path, name: str, columns: list[str] | None = None) -> pa.Table:
    """One table of a run: every committed part, concatenated (an empty table if none)."""
    if name not in SCHEMAS:
        raise ValueError(f"no table {name!r} (tables: {', '.join(TABLES)})")
    run_dir = Path(run_dir)
    check_run_dir(run_dir)
    parts = [part_path(run_dir, name, n) for n in committed_parts(run_dir)]
    schema = SCHEMAS[name]
    if columns is not None:
        schema = pa.schema([schema.field(c) for c in columns])
    if not parts:
        return schema.empty_table()
    with naming_damage(run_dir):  # damage inside a part: DamagedRecords naming it
        return pa.concat_tables([pq.read_table(p, columns=columns, schema=schema) for p in parts])


def done_game_ids(run_dir: str | Path) -> set[str]:
    """The ids of the games a run has recorded."""
    return set(read_table(run_dir, "games", ["game_id"]).column("game_id").to_pylist())
