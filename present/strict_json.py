"""Strict JSON (RFC 8259), written once: a number that is not one (NaN, an infinity) is null,
which every JSON reader takes, and ``json.dumps`` is told to refuse any that is left."""
from __future__ import annotations

import json
import math
from typing import Any


def finite(value: float | None, digits: int = 4) -> float | None:
    """A float for JSON: rounded to ``digits`` decimals; NaN and infinities (no number) as null."""
    return None if value is None or not math.isfinite(value) else round(value, digits)


def strict(value: Any) -> Any:
    """``value`` for strict JSON: every NaN and infinity in it (in dicts, lists and tuples) as null,
    every dict key as a string."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): strict(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [strict(v) for v in value]
    return value


def dumps(doc: Any, indent: int | None = 2) -> str:
    """``doc`` as strict JSON text (``strict``, then ``json.dumps`` with ``allow_nan=False``)."""
    return json.dumps(strict(doc), indent=indent, allow_nan=False)


def json_rows(frame) -> list[dict]:
    """A Polars frame's rows for JSON: floats to 4 decimals, NaN and infinities as null."""
    return [{k: finite(v) if isinstance(v, float) else v for k, v in row.items()}
            for row in frame.iter_rows(named=True)]
