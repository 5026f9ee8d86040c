"""The report's SPRT: the test's verdict and counts, for each run folder that is an SPRT run."""
from __future__ import annotations

from ..sprt_run import sprt_html, sprt_result
from .context import Context


class Sprt:
    title = "SPRT"

    def compute(self, ctx: Context) -> list | None:
        found = [r for d in ctx.runs.dirs if (r := sprt_result(d, ctx.runs.only(d))) is not None]
        return found or None

    def figures(self, data: list) -> dict[str, str]:
        return {}

    def html(self, data: list, figures: dict[str, str]) -> list[str]:
        return sprt_html(data)

    def markdown(self, data: list) -> list[str]:
        return []


SECTION = Sprt()
