"""Small line charts for the run pages (an SPRT's LLR path between its bounds, a tune's parameter
paths, a training run's gate Elo by generation), as numbers: ``line_chart`` places the points,
levels and labels in the chart's frame, and web/templates/runs/chart.jinja draws them as inline
SVG (every label escaped there)."""
from __future__ import annotations

WIDTH, HEIGHT, PAD = 640, 220, 36


def line_chart(points: list[tuple[float, float]], *, chart_id: str, title: str, x_label: str, y_label: str,
               levels: list[tuple[float, str]] = (), marks: bool = False) -> dict:
    """A line through ``points`` (x, y), with dashed horizontal ``levels`` (value, label), as the
    coordinates the template draws; ``count`` (the SVG's ``data-points``) is the points drawn
    (what a test reads)."""
    xs = [p[0] for p in points] or [0.0, 1.0]
    ys = [p[1] for p in points] + [v for v, _ in levels] or [0.0, 1.0]
    x0, x1 = min(xs), max(xs)
    y0, y1 = min(ys), max(ys)
    x1, y1 = (x1 if x1 > x0 else x0 + 1), (y1 if y1 > y0 else y0 + 1)
    y0, y1 = y0 - 0.05 * (y1 - y0), y1 + 0.05 * (y1 - y0)

    def sx(x: float) -> str:
        return f"{PAD + (x - x0) / (x1 - x0) * (WIDTH - 2 * PAD):.1f}"

    def sy(y: float, shift: float = 0.0) -> str:
        return f"{HEIGHT - PAD - (y - y0) / (y1 - y0) * (HEIGHT - 2 * PAD) + shift:.1f}"

    return {"id": chart_id, "title": title, "count": len(points), "width": WIDTH, "height": HEIGHT, "pad": PAD,
            "levels": [{"y": sy(value), "text_y": sy(value, 4), "label": label} for value, label in levels],
            "path": " ".join(f"{sx(x)},{sy(y)}" for x, y in points),
            "marks": [(sx(x), sy(y)) for x, y in points] if marks else [],
            "x_text": f"{x_label}: {x0:.4g} to {x1:.4g}", "y_text": f"{y_label}: {y0:.4g} to {y1:.4g}"}
