"""Record tables built from per-column values: the one way every writer makes its tables.

``build_table(name, columns, run_id)`` takes one value list (a Python list, a numpy array or an
Arrow array) per column of the table (records/columns.py), ``run_id`` aside, and returns a table
of exactly ``WRITE_SCHEMAS[name]``; a missing or unknown column, a column of the wrong length or
an Arrow array of the wrong type is a ``ValueError`` naming it. ``coded(indices, values)`` makes
a dictionary column from a small array of values and an index per row (the compiled loop's
lookups). ``RecordBuffer`` gathers rows as Python lists, fast to append to, for the referee.
``with_columns(name, table, values)`` adds columns of an optional source (a tune's) holding one
value for every row: a stage's columns (tournament/stages.py).
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pyarrow as pa

from .columns import COLUMNS, EVENT_COLUMNS, OPTIONAL, STR, STUDY_COLUMNS, TABLES, WRITE_SCHEMAS, columns_of


def build_table(name: str, columns: Mapping[str, object], run_id: str) -> pa.Table:
    """The table ``name`` of ``run_id`` from one value list per column (``run_id``'s aside).

    A ``games`` table may also be given the study columns (``STUDY_COLUMNS``) and the event columns
    (``EVENT_COLUMNS``): each group is kept when any of its values is not null (a study's games, an
    event's), after the others, so a league's games stay as they were."""
    if name not in TABLES:
        raise ValueError(f"no table {name!r} (tables: {', '.join(TABLES)})")
    schema = WRITE_SCHEMAS[name]
    study = name == "games" and any(c.name in columns for c in STUDY_COLUMNS)
    event = name == "games" and any(c.name in columns for c in EVENT_COLUMNS)
    known = [c for c in columns_of(name, study, event) if c.name != "run_id"]
    names = {c.name for c in known}
    unknown = [k for k in columns if k not in names]
    if unknown:
        raise ValueError(f"the {name} table has no column {unknown[0]!r} (its columns: run_id, "
                         f"{', '.join(c.name for c in known)})")
    missing = [c.name for c in known if c.name not in columns]
    if missing:
        raise ValueError(f"the {name} table's column {missing[0]!r} is missing")
    rows = len(columns["game_id"])
    arrays = {c.name: _array(name, c.name, columns[c.name], c.write_type, rows) for c in known}
    run_type = schema.field("run_id").type
    runs = pa.DictionaryArray.from_arrays(pa.array(np.zeros(rows, np.int32)), pa.array([run_id], STR))
    arrays["run_id"] = runs if pa.types.is_dictionary(run_type) else runs.cast(STR)
    fields = list(schema)
    for given, group in ((study, STUDY_COLUMNS), (event, EVENT_COLUMNS)):
        if given and any(arrays[f.name].null_count < rows for f in group):
            fields += list(group)
    return pa.Table.from_arrays([arrays[f.name] for f in fields], schema=pa.schema(fields))


def with_columns(name: str, table: pa.Table, values: Mapping[str, object]) -> pa.Table:
    """``table`` (of table ``name``) with a column per ``values`` entry, that value in every row:
    columns of an optional source (records.columns.OPTIONAL) the table does not have yet; a
    ValueError names any other."""
    kinds = {c.name: c for c in COLUMNS if c.table == name and c.source in OPTIONAL}
    for column, value in values.items():
        if column not in kinds or column in table.column_names:
            raise ValueError(f"the {name} table takes no column {column!r} from a stage (stage columns: "
                             f"{', '.join(kinds) or 'none'})")
        table = table.append_column(pa.field(column, kinds[column].type),
                                    _array(name, column, [value] * table.num_rows, kinds[column].type, table.num_rows))
    return table


def coded(indices, values: pa.Array, mask=None) -> pa.DictionaryArray:
    """A dictionary column: ``values[indices[i]]`` per row (null where ``mask``), without copying
    the strings."""
    return pa.DictionaryArray.from_arrays(pa.array(np.asarray(indices, np.int32), mask=mask), values)


def empty_table(name: str) -> pa.Table:
    return WRITE_SCHEMAS[name].empty_table()


def _array(table: str, column: str, values, kind: pa.DataType, rows: int) -> pa.Array | pa.ChunkedArray:
    if isinstance(values, (pa.Array, pa.ChunkedArray)):
        if values.type != kind:
            if not (pa.types.is_dictionary(kind) and values.type == kind.value_type):
                raise ValueError(f"the {table} table's column {column!r} is {values.type}, not {kind}")
            values = values.dictionary_encode()  # plain strings given for a dictionary column
    else:
        try:
            values = pa.array(values, kind)
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError) as exc:
            raise ValueError(f"the {table} table's column {column!r} cannot be {kind}: {exc}") from None
    if len(values) != rows:
        raise ValueError(f"the {table} table's column {column!r} has {len(values)} values, "
                         f"not {rows} (one per game_id)")
    return values


class RecordBuffer:
    """Rows of the four tables as Python lists, fast to append to.

    ``columns[table][column]`` is a list per column (``run_id`` aside; the study columns too for
    ``games``); moves, the big table, are also taken as whole rows (``move_rows``: tuples in the
    order of ``MOVE_ROW``), one append per ply. The study and event columns are there too, for
    ``games``.
    """

    MOVE_ROW = tuple(c.name for c in columns_of("moves") if c.name != "run_id")

    def __init__(self) -> None:
        self.columns = {name: {c.name: [] for c in columns_of(name, study=True, event=True)
                               if c.name != "run_id"}
                        for name in TABLES}
        self.move_rows: list[tuple] = []
        self.games = 0

    def append(self, name: str, keys: tuple[str, ...], rows: list[tuple]) -> None:
        """Append ``rows`` (tuples of the values of ``keys``) to table ``name``."""
        columns = self.columns[name]
        if not columns.keys() >= set(keys):
            raise ValueError(f"the {name} table has no column {sorted(set(keys) - columns.keys())[0]!r}")
        for key, values in zip(keys, zip(*rows)):
            columns[key].extend(values)

    def to_tables(self, run_id: str) -> dict[str, pa.Table]:
        """The rows as the four record tables (``build_table``)."""
        if self.move_rows:
            self.append("moves", self.MOVE_ROW, self.move_rows)
            self.move_rows = []
        return {name: build_table(name, self.columns[name], run_id) for name in TABLES}
