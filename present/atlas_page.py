"""The page of a strategy atlas (``atlas.json``, azul-atlas/1): one self-contained HTML page, no
script and nothing fetched, that says per claim about Azul whether it is supported, refuted or
undecided.

At its head: the atlas's name, whether it is complete or still in progress, the engine version,
the seed and the command that reruns it, and (when an earlier atlas was compared) the verdicts
that changed since. Then a section a claim: its sentence as its source says it, with the source,
the test as measured here, the metric and the region where the claim holds in words, what tested
it (a study's bot and intervention, or a statistic and its bots), the models it read with their
digests, a table of its rows (players, effect, 95% interval, games, verdict) and a forest plot of
the same rows: a line from low to high a row with a dot at the effect, over the claim's region
shaded and its boundaries drawn.

The page is present/templates/atlas.html.jinja (with atlas.css); every value of the atlas reaches
it escaped there. What the template cannot say simply (a number's format, the plot's
coordinates) is made here as plain text and numbers. Elements tests can read: ``#atlas-state``,
``#rerun``, ``#changed``, ``section.claim[data-claim]`` with ``.said`` (the claim and its
source), ``table.rows`` (a ``td.verdict`` a row) and ``svg.forest`` (``data-rows``: its rows,
``data-intervals``: the intervals drawn, each a ``line.interval``).
"""
from __future__ import annotations

import math
from typing import Any

from analysis.sequential import Region

from .pages import html_pages

PAGES = html_pages("present")

# the forest plot's frame, in pixels: its width, the labels' column on the left, the margin on
# the right, a row's height, the band above the rows (the boundaries' labels), the axis below
WIDTH, LABELS, RIGHT, ROW, TOP, AXIS = 640, 120, 16, 24, 18, 42
MARGIN = 0.08  # of the plotted range, each side


def finite(value: Any) -> float | None:
    """``value`` as a float; None for None, NaN, infinities and what is not a number."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def places(metric: str) -> int:
    """The decimals an effect is shown with: a share of wins 3, points 2."""
    return 3 if metric == "win" else 2


def signed(value: Any, digits: int) -> str:
    """``value`` with its sign and ``digits`` decimals; "-" for none."""
    number = finite(value)
    return "-" if number is None else f"{number:+.{digits}f}"


def interval_text(low: Any, high: Any, digits: int) -> str:
    """``[low, high]``; "-" when either end is missing."""
    if finite(low) is None or finite(high) is None:
        return "-"
    return f"[{signed(low, digits)}, {signed(high, digits)}]"


def players_text(players: Any) -> str:
    """A row's player count: ``2``, or ``2 less 4`` for a compared pair (``"2-4"``)."""
    text = str(players)
    return " less ".join(text.split("-")) if "-" in text.strip("-") else text


def games_text(games: Any) -> str:
    return f"{games:,}" if isinstance(games, int) and not isinstance(games, bool) else "-"


def region_of(expect: Any) -> Region | None:
    """The claim's region (``> X``, ``< X``, ``within X``); None when it cannot be read."""
    try:
        return Region.parse(str(expect))
    except ValueError:
        return None


def region_text(expect: Any, metric: str) -> str:
    """Where the claim holds, in words."""
    region = region_of(expect)
    if region is None:
        return f"holds where the effect is {expect} {metric}"
    if region.kind == "within":
        return (f"holds where the effect is within {region.bound:g} {metric} of 0 "
                f"(between {-region.bound:g} and {region.bound:g})")
    return f"holds where the effect is {region.kind} {region.bound:g} {metric}"


def tested_text(tested_by: Any) -> list[tuple[str, str]]:
    """What tested a claim, as (what, value) pairs: a study's bot and intervention (its field and
    sizes), or a statistic's name, bot and bots (and deals)."""
    tested_by = tested_by if isinstance(tested_by, dict) else {}
    if isinstance(tested_by.get("study"), dict):
        study = tested_by["study"]
        parts = [("a study of the bot", study.get("bot")), ("intervention", study.get("intervention"))]
        if study.get("field"):
            parts.append(("field", ", ".join(str(b) for b in study["field"])))
        parts += [("max_deals", study.get("max_deals")), ("stages", study.get("stages"))]
    elif isinstance(tested_by.get("statistic"), dict):
        statistic = tested_by["statistic"]
        parts = [("the statistic", statistic.get("name")), ("of the bot", statistic.get("bot"))]
        if statistic.get("bots"):
            parts.append(("bots", ", ".join(str(b) for b in statistic["bots"])))
        parts.append(("deals", statistic.get("deals")))
    else:
        return []
    return [(what, str(value)) for what, value in parts if value is not None]


def model_pins(models: Any) -> list[tuple[str, str, str]]:
    """The models a claim's bots read: (bot, model, the first 12 hex of its sha256)."""
    if not isinstance(models, dict):
        return []
    return [(str(bot), str(pin.get("model", "")), str(pin.get("sha256") or "")[:12])
            for bot, pins in models.items() for pin in (pins or []) if isinstance(pin, dict)]


def ticks(x0: float, x1: float, count: int = 5) -> list[tuple[float, str]]:
    """Round values between ``x0`` and ``x1``, about ``count`` of them, with their labels."""
    raw = (x1 - x0) / count
    power = 10 ** math.floor(math.log10(raw))
    step = min((m * power for m in (1, 2, 5, 10)), key=lambda s: abs(math.log(s / raw)))
    digits = max(0, -math.floor(math.log10(step) + 1e-9))
    first = math.ceil(x0 / step - 1e-9)
    values = [k * step for k in range(first, math.floor(x1 / step + 1e-9) + 1)]
    return [(v, f"{0.0 if abs(v) < step / 1e6 else v:.{digits}f}") for v in values]


def forest(rows: list[dict], expect: Any, metric: str) -> dict:
    """The forest plot of a claim's rows, as the coordinates atlas.html.jinja draws: a row's
    interval (``x1``-``x2``, its dot at ``cx``) or none when it was not measured, the region
    shaded (``shade``), its boundaries, the axis's ticks."""
    region = region_of(expect)
    ends = [(finite(r.get("low")), finite(r.get("high")), finite(r.get("effect"))) for r in rows]
    values = [v for low, high, effect in ends if low is not None and high is not None
              for v in (low, high, effect) if v is not None]
    values += list(region.boundaries) if region else []
    x0, x1 = (min(values), max(values)) if values else (0.0, 0.0)
    if x1 - x0 < 1e-12:
        x0, x1 = x0 - max(abs(x0), 1.0) / 2, x1 + max(abs(x1), 1.0) / 2
    span = x1 - x0
    x0, x1 = x0 - MARGIN * span, x1 + MARGIN * span
    right = WIDTH - RIGHT
    axis = TOP + ROW * len(rows) + 4

    def sx(x: float) -> float:
        return round(LABELS + (x - x0) / (x1 - x0) * (right - LABELS), 1)

    drawn = []
    for i, (row, (low, high, effect)) in enumerate(zip(rows, ends)):
        y = TOP + ROW * i + ROW / 2
        item = {"y": y, "text_y": y + 4, "label": players_text(row.get("players")),
                "verdict": row.get("verdict") or "undecided", "measured": low is not None and high is not None}
        if item["measured"]:
            item.update(x1=sx(low), x2=sx(high), cx=sx(effect) if effect is not None else None)
        drawn.append(item)
    shade = None
    if region is not None:
        a, b = {">": (region.bound, x1), "<": (x0, region.bound)}.get(region.kind, (-region.bound, region.bound))
        shade = {"x": sx(a), "width": round(sx(b) - sx(a), 1)}
    return {"width": WIDTH, "height": axis + AXIS, "labels": LABELS, "right": right, "top": TOP, "axis": axis,
            "rows": drawn, "intervals": sum(r["measured"] for r in drawn), "shade": shade,
            "boundaries": [{"x": sx(b), "label": f"{b:g}"} for b in (region.boundaries if region else ())],
            "ticks": [{"x": sx(v), "label": label} for v, label in ticks(x0, x1)],
            "caption": f"effect ({metric}) with its 95% interval", "title": f"forest plot, {metric}"}


def claim_view(claim: dict) -> dict:
    """What the template shows of one claim, its numbers formatted and its plot placed."""
    metric = str(claim.get("metric") or "")
    digits = places(metric)
    rows = [r for r in claim.get("rows") or [] if isinstance(r, dict)]
    players = claim.get("players") or []
    compare = claim.get("compare")
    return {
        "players": ", ".join(str(p) for p in players),
        "compare": (f"the effect at {compare[0]} players less the effect at {compare[1]}"
                    if isinstance(compare, (list, tuple)) and len(compare) == 2 else None),
        "region": region_text(claim.get("expect"), metric),
        "tested": tested_text(claim.get("tested_by")),
        "models": model_pins(claim.get("models")),
        "rows": [{"players": players_text(r.get("players")), "effect": signed(r.get("effect"), digits),
                  "interval": interval_text(r.get("low"), r.get("high"), digits), "games": games_text(r.get("games")),
                  "verdict": r.get("verdict") or "undecided", "run": r.get("run")} for r in rows],
        "forest": forest(rows, claim.get("expect"), metric),
    }


def changed_view(changed: list[dict]) -> list[dict]:
    """The verdicts that changed since an earlier atlas, their effects formatted."""
    return [{"id": c.get("id"), "players": players_text(c.get("players")), "before": c.get("before"),
             "now": c.get("now"), "effect_before": signed(c.get("effect_before"), 3),
             "effect_now": signed(c.get("effect_now"), 3)} for c in changed if isinstance(c, dict)]


def atlas_html(atlas: dict) -> str:
    """The HTML page of ``atlas`` (an ``atlas.json``, azul-atlas/1), as one string."""
    changed = atlas.get("changed")
    return PAGES.get_template("atlas.html.jinja").render(
        title=f"Strategy atlas: {atlas.get('name')}", atlas=atlas,
        state="complete" if atlas.get("complete") else "in progress: claims are still being tested",
        changed=changed_view(changed) if isinstance(changed, list) else [], claim_view=claim_view)
