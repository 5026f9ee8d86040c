"""The report's intervention study: the paired effects, when the runs are a strategy study."""
from __future__ import annotations

import polars as pl

from ..studies import is_study, read_study, study_effects
from .context import Context
from .format import html_table


class Study:
    title = "Intervention study"

    def compute(self, ctx: Context) -> pl.DataFrame | None:
        con = ctx.moves()
        if con is None or not is_study(con):
            return None
        dirs = ctx.runs.dirs
        return study_effects(con, read_study(dirs[0]) if len(dirs) == 1 else None)

    def figures(self, data: pl.DataFrame) -> dict[str, str]:
        return {}

    def html(self, data: pl.DataFrame, figures: dict[str, str]) -> list[str]:
        columns = {"intervention": ("intervention", None), "metric": ("metric", None),
                   "effect": ("effect", 3), "low": ("low", 3), "high": ("high", 3),
                   "unpaired low": ("unpaired_low", 3), "unpaired high": ("unpaired_high", 3),
                   "width ratio": ("width_ratio", 1), "observed": ("obs_effect", 3),
                   "deals": ("deals", 0), "games": ("games", 0)}
        note = ""
        if "verdict" in data.columns:  # a study that stopped when the answer was known
            data = data.with_columns(pl.col("verdict").fill_null("-"))
            columns |= {"expect": ("expect", None), "verdict": ("verdict", None), "stop": ("stop", None)}
            note = (" Each intervention is read on the deals up to its own stop; the planned metric's "
                    "low and high are the stopping rule's own interval, valid after the stop, and its "
                    "verdict reads them (docs/studies.md, \"Stopping when the answer is known\").")
        return [("<h2>Intervention study</h2><p>Treatment minus control per studied seat and game, "
                 "on the same deals and bot seeds (95% bootstrap over deals); the unpaired interval "
                 "and the ratio of widths show what pairing saves; observed: the same choice as the "
                 f"control games show it, as a league would (docs/studies.md).{note}</p>"),
                html_table(data, columns)]

    def markdown(self, data: pl.DataFrame) -> list[str]:
        return []


SECTION = Study()
