"""The report's first-player marker: who takes it and when, and its effect on winning (move
records)."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import polars as pl

from ..marker import marker_effect, marker_summary, marker_timing
from ..plots import BLUE, GREY, STYLE, error_bars, to_svg
from .context import Context
from .format import esc, html_table, share_span, signed_share

SUMMARY = {  # the marker tables, with readable headers (docs/analysis.md, marker)
    "players": ("num_players", 0), "bot": ("bot", None), "rounds": ("rounds", 0),
    "takes": ("takes", 0), "take rate": ("take_rate", 3), "95%": (("low", "high"), 2),
    "mean ply": ("mean_ply", 1), "floor cost": ("mean_floor_cost", 2),
    "opens next": ("open_rate", 3), "next edge": ("next_edge", 1),
    "edge 95%": (("edge_low", "edge_high"), 1)}
EFFECT = {
    "players": ("num_players", 0), "log-odds": ("estimate", 3), "95%": (("low", "high"), 2),
    "odds ratio": ("odds_ratio", 2), "win prob.": ("marginal_effect", 3),
    "win prob. 95%": (("me_low", "me_high"), 3), "raw diff": ("raw_diff", 3), "rows": ("rows", 0),
    "games": ("games", 0), "deals": ("deals", 0)}


def marker_plot(timing: pl.DataFrame, effect: pl.DataFrame | None) -> str:
    """When the first-player marker is taken (share by ply of the round) and its effect."""
    counts = sorted(timing["num_players"].unique().to_list())
    panels = 1 + (effect is not None and effect.height > 0)
    with plt.rc_context(STYLE):
        fig, axes = plt.subplots(1, panels, figsize=(4.2 * panels, 3.0), squeeze=False)
        ax = axes[0][0]
        for n in counts:
            t = timing.filter(pl.col("num_players") == n).sort("ply_in_round")
            ax.plot(t["ply_in_round"], t["share"], marker="o", label=f"{n} players")
        ax.set_xlabel("ply of the round")
        ax.set_ylabel("share of marker takes")
        ax.set_title("when the marker is taken")
        ax.legend(frameon=False)
        if panels == 2:
            ax = axes[0][1]
            e = effect.sort("num_players")
            y = np.arange(e.height)
            ax.errorbar(e["estimate"], y, xerr=error_bars(e["estimate"], e["low"], e["high"]),
                        fmt="o", color=BLUE, capsize=3)
            ax.set_yticks(y, [f"{n} players" for n in e["num_players"].to_list()])
            ax.axvline(0.0, color=GREY, lw=0.8, ls=":")
            ax.set_xlabel("effect on winning (log-odds), 95% interval")
            ax.set_title("taking the marker")
    return to_svg(fig)


def effect_lines(effect: pl.DataFrame | None) -> list[str]:
    if effect is None or effect.height == 0:
        return []
    return [f"taking the first-player marker ({r['num_players']} players): odds ratio "
            f"{r['odds_ratio']:.2f}, win probability {signed_share(r['marginal_effect'])} "
            f"({share_span(r['me_low'], r['me_high'])}; {r['games']:,} games)"
            for r in effect.sort("num_players").iter_rows(named=True)]


class Marker:
    title = "The first-player marker"

    def compute(self, ctx: Context) -> dict | None:
        con = ctx.moves()
        if con is None:
            return None
        data = {"summary": marker_summary(con), "timing": marker_timing(con), "effect": None}
        try:
            data["effect"] = marker_effect(con)
        except ValueError as exc:  # e.g. too few games to fit it
            ctx.notes.append(f"marker effect: {exc}")
        return data

    def figures(self, data: dict) -> dict[str, str]:
        if not data["timing"].height:
            return {}
        return {"marker": marker_plot(data["timing"], data["effect"])}

    def html(self, data: dict, figures: dict[str, str]) -> list[str]:
        out = ["<h2>The first-player marker</h2>",
               "".join(f"<p>{esc(s)}</p>" for s in effect_lines(data["effect"])),
               f"<figure>{figures['marker']}</figure>" if "marker" in figures else "",
               html_table(data["summary"], SUMMARY)]
        if data["effect"] is not None:
            out.append(html_table(data["effect"], EFFECT))
        return out

    def markdown(self, data: dict) -> list[str]:
        return [f"- {line}" for line in effect_lines(data["effect"])]


SECTION = Marker()
