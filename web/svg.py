"""Small inline SVG line charts for the run pages: an SPRT's LLR path between its bounds, a tune's
parameter paths, a training run's gate Elo by generation. Numbers only go in; every label is
escaped."""
from __future__ import annotations

from html import escape

WIDTH, HEIGHT, PAD = 640, 220, 36


def line_chart(points: list[tuple[float, float]], *, chart_id: str, title: str, x_label: str, y_label: str,
               levels: list[tuple[float, str]] = (), marks: bool = False) -> str:
    """A line through ``points`` (x, y), with dashed horizontal ``levels`` (value, label); its
    ``data-points`` attribute counts the points drawn (what a test reads)."""
    xs = [p[0] for p in points] or [0.0, 1.0]
    ys = [p[1] for p in points] + [v for v, _ in levels] or [0.0, 1.0]
    x0, x1 = min(xs), max(xs)
    y0, y1 = min(ys), max(ys)
    x1, y1 = (x1 if x1 > x0 else x0 + 1), (y1 if y1 > y0 else y0 + 1)
    y0, y1 = y0 - 0.05 * (y1 - y0), y1 + 0.05 * (y1 - y0)

    def sx(x: float) -> float:
        return PAD + (x - x0) / (x1 - x0) * (WIDTH - 2 * PAD)

    def sy(y: float) -> float:
        return HEIGHT - PAD - (y - y0) / (y1 - y0) * (HEIGHT - 2 * PAD)

    out = [f'<svg id="{escape(chart_id)}" class="chart" data-points="{len(points)}" width="{WIDTH}" '
           f'height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{escape(title)}">',
           f"<title>{escape(title)}</title>",
           f'<rect x="{PAD}" y="{PAD}" width="{WIDTH - 2 * PAD}" height="{HEIGHT - 2 * PAD}" class="frame"/>']
    for value, label in levels:
        y = sy(value)
        out.append(f'<line x1="{PAD}" x2="{WIDTH - PAD}" y1="{y:.1f}" y2="{y:.1f}" class="level"/>'
                   f'<text x="{WIDTH - PAD + 2}" y="{y + 4:.1f}" class="small">{escape(label)}</text>')
    if points:
        path = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in points)
        out.append(f'<polyline points="{path}" class="path"/>')
        if marks:
            out += [f'<circle cx="{sx(x):.1f}" cy="{sy(y):.1f}" r="3" class="mark"/>' for x, y in points]
    out.append(f'<text x="{PAD}" y="{HEIGHT - 8}" class="small">{escape(x_label)}: {_num(x0)} to {_num(x1)}</text>'
               f'<text x="{PAD}" y="{PAD - 8}" class="small">{escape(y_label)}: {_num(y0)} to {_num(y1)}</text>')
    out.append("</svg>")
    return "".join(out)


def _num(x: float) -> str:
    return f"{x:.4g}"
