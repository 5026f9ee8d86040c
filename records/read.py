"""One table of one run read back as Arrow: its committed parts only, checked first (through the
run's local view: a folder is its own)."""
from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq

from .checks import check_run_dir, naming_damage
from .columns import SCHEMAS, TABLES
from .interface import RunStore
from .parts import committed_parts, part_path


def read_table(run: RunStore, name: str, columns: list[str] | None = None) -> pa.Table:
    """One table of a run (its store; a path or URL is opened): every committed part,
    concatenated (an empty table if none)."""
    if name not in SCHEMAS:
        raise ValueError(f"no table {name!r} (tables: {', '.join(TABLES)})")
    folder = RunStore(run).view()
    check_run_dir(folder)
    parts = [part_path(folder, name, n) for n in committed_parts(folder)]
    schema = SCHEMAS[name]
    if columns is not None:
        schema = pa.schema([schema.field(c) for c in columns])
    if not parts:
        return schema.empty_table()
    with naming_damage(folder):  # damage inside a part: DamagedRecords naming it
        return pa.concat_tables([pq.read_table(p, columns=columns, schema=schema) for p in parts])


def done_game_ids(run: RunStore) -> set[str]:
    """The ids of the games a run has recorded."""
    return set(read_table(run, "games", ["game_id"]).column("game_id").to_pylist())
