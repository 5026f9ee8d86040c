"""A tune's trajectory as its records hold it, and the plot of each tuned parameter's path
(kinds/tune.py runs tunes; docs/tune.md).

Every game of a tune records its SPSA step and theta (``games.tune_step``, ``tune_theta``,
``tune_plus``, ``tune_minus``: JSON objects by parameter name); ``tune_steps`` reads them back,
one row per step, and ``path_figure`` draws theta per parameter against the pairs played.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

from records.names import CONFIG_FILE, TUNE_RESULT
from records.store import RunStore

from .plots import BLUE, GREY, STYLE, to_svg


def tune_steps(con, names: tuple[str, str] | None = None) -> list[dict] | None:
    """Per step of the tune in the records of ``con`` (``analysis.records.connect``): its number,
    the pairs played by its end, theta at its start, theta+ and theta- as played, theta+'s result
    (wins minus losses against theta-); None when the records hold no tune. ``names``: the bots
    theta+ and theta- (``side_names``; default: the bots whose names end in + and -)."""
    cols = {r[0] for r in con.execute("DESCRIBE games").fetchall()}
    if "tune_step" not in cols:
        return None
    plus, minus = names or ("%+", "%-")
    op = "=" if names else "LIKE"
    rows = con.execute(f"""
        SELECT g.tune_step, any_value(g.tune_theta), any_value(g.tune_plus), any_value(g.tune_minus),
               max(g.deal) + 1 AS pairs, count(*) AS games,
               sum(CASE WHEN p.rank < m.rank THEN 1 WHEN p.rank > m.rank THEN -1 ELSE 0 END) AS result
        FROM games g
        JOIN results p ON p.run_id = g.run_id AND p.game_id = g.game_id AND p.bot {op} ?
        JOIN results m ON m.run_id = g.run_id AND m.game_id = g.game_id AND m.bot {op} ?
        WHERE g.tune_step IS NOT NULL GROUP BY g.tune_step ORDER BY g.tune_step""",
                       [plus, minus]).fetchall()
    if not rows:
        return None
    return [{"step": s, "theta": json.loads(t), "plus": json.loads(p), "minus": json.loads(m), "pairs": n,
             "games": games, "result": int(r)} for s, t, p, m, n, games, r in rows]


def side_names(run_dir: str | Path) -> tuple[str, str] | None:
    """The names of theta+ and theta- in a tune folder: its config's first two bots."""
    import yaml

    try:
        bots = yaml.safe_load(RunStore(run_dir).read_text(CONFIG_FILE))["bots"]
        return str(bots[0]["name"]), str(bots[1]["name"])
    except (OSError, yaml.YAMLError, KeyError, IndexError, TypeError):
        return None


def read_result(run_dir: str | Path) -> dict | None:
    """A finished tune's outcome (``tune.json``: params, spec, spread, trajectory...), or None."""
    try:
        return json.loads(RunStore(run_dir).read_text(TUNE_RESULT))
    except (OSError, ValueError):
        return None


def path_figure(trajectory: list[dict], final: dict | None = None, start: dict | None = None) -> str:
    """Each tuned parameter's theta against the pairs played (``trajectory``: rows with ``pairs``
    and ``theta``, a mapping by name; ``start``: theta at 0 pairs), one panel each, the final value
    a dashed line; inline SVG."""
    import matplotlib.pyplot as plt

    names = list(trajectory[0]["theta"]) if trajectory else list(final or {})
    with plt.rc_context(STYLE):
        fig, axes = plt.subplots(max(len(names), 1), 1, figsize=(6.0, 1.5 * max(len(names), 1) + 0.5),
                                 sharex=True, squeeze=False)
    axes = axes[:, 0]
    x = [0] + [row["pairs"] for row in trajectory]
    for ax, name in zip(axes, names):
        y = [row["theta"][name] for row in trajectory]
        first = (start or {}).get(name)
        ax.plot(x[1:] if first is None else x, y if first is None else [first] + y, color=BLUE, lw=1)
        if final and name in final and final[name] is not None and math.isfinite(float(final[name])):
            ax.axhline(float(final[name]), color=GREY, ls="--", lw=0.8)
        ax.set_ylabel(name)
        if y and min(y) > 0 and max(y) / min(y) > 20:
            ax.set_yscale("log")
    axes[-1].set_xlabel("pairs played")
    return to_svg(fig)
