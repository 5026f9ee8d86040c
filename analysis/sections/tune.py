"""The report's tune: each tuned parameter's path and final value, for each run folder that is a
tune (kinds/tune.py; its games record theta per step)."""
from __future__ import annotations

import polars as pl

from ..records import connect
from ..tune import path_figure, read_result, side_names, tune_steps
from .context import Context
from .format import esc, html_table, md_cell


class Tune:
    title = "Tune"

    def compute(self, ctx: Context) -> list[dict] | None:
        found = []
        for d in ctx.runs.dirs:
            con = connect(ctx.runs.only(d))
            try:
                steps = tune_steps(con, side_names(d))
            finally:
                con.close()
            if steps:
                found.append({"dir": str(d), "steps": steps, "result": read_result(d)})
        return found or None

    def figures(self, data: list[dict]) -> dict[str, str]:
        out = {}
        for i, run in enumerate(data):
            steps, result = run["steps"], run["result"] or {}
            path = [{"pairs": before["pairs"], "theta": after["theta"]} for before, after in zip(steps, steps[1:])]
            if result.get("trajectory"):
                path.append(result["trajectory"][-1])
            out[f"tune_{i}"] = path_figure(path, result.get("params"), steps[0]["theta"])
        return out

    def html(self, data: list[dict], figures: dict[str, str]) -> list[str]:
        out = []
        for i, run in enumerate(data):
            result, steps = run["result"], run["steps"]
            out.append(f"<h2>Tune: {esc(run['dir'])}</h2>")
            if result is None:
                out.append(f"<p>{len(steps):,} steps recorded, {steps[-1]['pairs']:,} pairs; the tune is not "
                           "finished (no tune.json): the path so far.</p>")
            else:
                out.append(f"<p>{result['pairs']:,} pairs in {result['steps']:,} steps of SPSA (docs/tune.md); "
                           f"final values: the mean of the last {result['tail']:.0%} of the steps. Tuned bot: "
                           f"<code>{esc(result['spec'])}</code></p>")
                out.append(html_table(_table(result), {"parameter": ("parameter", None), "start": ("start", 4),
                                                       "final": ("final", 4), "sd": ("sd", 4), "last": ("last", 4)}))
            out.append(f"<figure>{figures[f'tune_{i}']}</figure>")
        return out

    def markdown(self, data: list[dict]) -> list[str]:
        out = []
        for run in data:
            result = run["result"]
            if result is None:
                continue
            out += ["", f"## Tune: {md_cell(run['dir'])}", "", f"Tuned bot: `{result['spec']}` "
                    f"({result['pairs']:,} pairs)", "", "| parameter | start | final | sd |", "|---|---:|---:|---:|"]
            out += [f"| {md_cell(r['parameter'])} | {r['start']:.4g} | {r['final']:.4g} | {r['sd']:.3g} |"
                    for r in _table(result).iter_rows(named=True)] + [""]
        return out


def _table(result: dict) -> pl.DataFrame:
    names = list(result["params"])
    return pl.DataFrame({"parameter": names, "start": [float(result["start"][n]) for n in names],
                         "final": [float(result["params"][n]) for n in names],
                         "sd": [float(result["spread"][n]) for n in names],
                         "last": [float(result["last"][n]) for n in names]})


SECTION = Tune()
