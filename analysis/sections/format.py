"""How the report writes numbers, intervals and tables, in HTML and in markdown (every section)."""
from __future__ import annotations

import html
import math

import polars as pl


def fmt(value, digits: int = 3) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return "-" if math.isnan(value) else f"{value:.{digits}f}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value)


def interval(low: float | None, high: float | None, digits: int = 0) -> str:
    if low is None or high is None or math.isnan(low) or math.isnan(high):
        return "-"
    return f"{round(low, digits) + 0.0:.{digits}f} .. {round(high, digits) + 0.0:.{digits}f}"


def share_span(low: float | None, high: float | None) -> str:
    """A 95% interval of shares (``95% +1.2% .. +3.4%``), or in words why there is none: too few
    games (it is missing, or has no width); never ``nan`` or ``-0.0%``."""
    if low is None or high is None or math.isnan(low) or math.isnan(high) \
            or signed_share(low) == signed_share(high):
        return "too few games for an interval"
    return f"95% {signed_share(low)} .. {signed_share(high)}"


def signed_share(value: float) -> str:
    """A share with its sign (``+1.2%``), never ``-0.0%``."""
    text = f"{value:+.1%}"
    return "+0.0%" if text == "-0.0%" else text


def signed(value: float, digits: int = 0) -> str:
    """A number with its sign (``+12``, ``-3``), never ``-0``."""
    return f"{round(value, digits) + 0.0:+.{digits}f}"


def edge_text(edge: float, low: float, high: float, why: str) -> str:
    """An edge in Elo points with its 95% interval, or ``why`` there is none (in words)."""
    span = interval(low, high)
    return f"{signed(edge)} Elo ({why if span == '-' else '95% ' + span})"


def esc(value) -> str:
    """Text for HTML (quotes escaped too)."""
    return html.escape(str(value), quote=True)


def md_cell(value) -> str:
    """Text for a markdown line or table cell."""
    return html.escape(str(value), quote=False).replace("|", "\\|").replace("\n", " ")


def html_table(frame: pl.DataFrame, columns: dict[str, tuple[str | tuple[str, str], int | None]]) -> str:
    """``columns``: header -> (column, digits); text columns get digits None; a (low, high) pair
    of columns is one interval cell."""
    head = "".join(f'<th class="{"text" if d is None else "num"}">{esc(h)}</th>'
                   for h, (_, d) in columns.items())
    rows = []
    for r in frame.iter_rows(named=True):
        cells = []
        for col, digits in columns.values():
            v = None if isinstance(col, tuple) else r[col]
            text = (interval(r[col[0]], r[col[1]], digits) if isinstance(col, tuple) else
                    "all" if v is None and digits is None else fmt(v, digits))
            cells.append(f'<td class="{"text" if digits is None else "num"}">{esc(text)}</td>')
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return (f'<div class="scroll"><table><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table></div>")
