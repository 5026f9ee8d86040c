"""Tables beside the games in a run folder (records.names.SIDE_TABLES: the review's ``reviews/``).

A side table is a folder of parts ``<table>/part-NNNNNN-TTTTTTTT.parquet`` beside ``games/``: the
number comes after the table's last part, ``TTTTTTTT`` is the writer's own random token, so two
writers (two reviews of one run at once) never make one id, and the ids are a namespace of their
own, apart from the game parts a driver writes. A part is written under a hidden temporary name
and committed by a create-only link to its name (the folder's rename that never replaces: of two
writers of one id, the second is refused and takes the next number). No lock is taken: a side
writer writes into a finished run or one a driver is playing, touching nothing the driver writes.
Temporary files a killed writer left are orphans ``records.parts.clean_orphans`` removes (repair).
A run on object storage commits them as its game parts are (records/s3store.py).
"""
from __future__ import annotations

import os
import secrets
from pathlib import Path

import pyarrow as pa

from .columns import TABLES
from .names import SIDE_TABLES
from .parts import PART, parquet_files, part_bytes, part_name


def with_side_tables(names) -> tuple[str, ...]:
    """``names``, and the side tables when a game table is among them (a run's records go together:
    ``RunStore.remove``, ``--fresh``)."""
    names = tuple(names)
    return (*names, *SIDE_TABLES) if set(names) & set(TABLES) else names


def check_side_table(table: str) -> None:
    """A ``ValueError`` naming the side tables when ``table`` is not one of them."""
    if table not in SIDE_TABLES:
        raise ValueError(f"no side table {table!r} (side tables: {', '.join(SIDE_TABLES)})")


def side_part_ids(folder: Path, table: str) -> list[str]:
    """The ids of the side table's committed parts, in order."""
    return sorted(m.group(1) for p in parquet_files(folder, table) if (m := PART.match(p.name)))


def next_side_id(taken: list[str] | set[str]) -> str:
    """A new part id after those ``taken``: the next number and a random token of this writer's."""
    number = max((int(p[:6]) for p in taken), default=0) + 1
    return f"{number:06d}-{secrets.token_hex(4)}"


def write_side_file(folder: Path, table: str, data: pa.Table) -> str:
    """Commit ``data`` as a new part of the side table ``table`` in the folder ``folder``
    (temporary name, then a create-only link); returns its part id."""
    check_side_table(table)
    table_dir = Path(folder) / table
    table_dir.mkdir(parents=True, exist_ok=True)
    payload = part_bytes(data)
    while True:
        part = next_side_id(side_part_ids(folder, table))
        final = table_dir / part_name(part)
        tmp = table_dir / f".{final.name}.{os.getpid()}-{secrets.token_hex(3)}.tmp"
        try:
            tmp.write_bytes(payload)
            os.link(tmp, final)  # create-only: never replaces another writer's part
            return part
        except FileExistsError:
            continue
        finally:
            tmp.unlink(missing_ok=True)
