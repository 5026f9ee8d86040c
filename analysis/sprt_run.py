"""An SPRT run's pairs and decision, from its records: what ``azul sprt`` prints at the end and on
``--resume``, and what ``azul report`` shows for it.

An SPRT run is a league of two bots (2 players, ``seats: rotate``): deal d is played twice with
the seats swapped, games ``t000-d<d>-a00`` and ``-a01``: one pair. Its folder holds ``sprt.yaml``
(``SPRT_FILE``: the first bot, the test's elo0, elo1, alpha, beta, model and max_pairs) beside
``config.yaml``. The decision is taken on the complete pairs in deal order, from deal 0 on, up
to the first missing pair: pairs played after the decision, or beyond a gap, are counted apart
(``after``), so the answer does not depend on which games happened to finish first.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import polars as pl
import yaml

from . import sprt
from .stats import outcomes

SPRT_FILE = "sprt.yaml"
SETTINGS = ("new", "base", "elo0", "elo1", "alpha", "beta", "model", "max_pairs")


def read_settings(run_dir: str | Path) -> dict | None:
    """The SPRT settings of a run folder (``sprt.yaml``), or None when it is not an SPRT run."""
    path = Path(run_dir) / SPRT_FILE
    if not path.exists():
        return None
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not all(k in data for k in SETTINGS):
        raise ValueError(f"{path}: not an SPRT's settings (fields: {', '.join(SETTINGS)})")
    return data


def pair_cells(results: pl.DataFrame, games: pl.DataFrame, new: str) -> pl.DataFrame:
    """The complete pairs of a run's records: ``deal`` and ``cell`` (bot ``new``'s points over
    the deal's two games, times 2: 0..4), in deal order. A deal with one game recorded so far is
    left out."""
    if results.height == 0:
        return pl.DataFrame({"deal": [], "cell": []}, schema={"deal": pl.Int64, "cell": pl.Int64})
    mine = outcomes(results).filter(pl.col("bot") == new).select("run_id", "game_id", "points")
    per_game = mine.join(games.select("run_id", "game_id", "deal"), on=["run_id", "game_id"])
    return (per_game.group_by(pl.col("deal").cast(pl.Int64))
            .agg(pl.len().alias("games"), pl.col("points").sum().alias("points"))
            .filter(pl.col("games") == 2)
            .select("deal", (pl.col("points") * 2).round().cast(pl.Int64).alias("cell"))
            .sort("deal"))


def in_order(cells: pl.DataFrame) -> list[int]:
    """The cells of the pairs that count: deals 0, 1, 2, ... up to the first one missing."""
    deals = cells["deal"].to_list()
    n = 0
    while n < len(deals) and deals[n] == n:
        n += 1
    return cells["cell"].to_list()[:n]


@dataclass(frozen=True)
class SprtResult:
    """An SPRT run as its records stand: the decision on the pairs in deal order, the estimates
    on the pairs it counted, and the pairs played beyond it (``after``, with their pentanomial)."""
    settings: dict
    decision: sprt.Decision
    lower: float
    upper: float
    estimate: sprt.Estimate
    los: float
    after: int
    after_pentanomial: tuple[int, int, int, int, int]
    games: int

    def as_dict(self) -> dict:
        d, e = self.decision, self.estimate
        return {"verdict": d.verdict, "llr": round(d.llr, 4), "lower": round(self.lower, 4),
                "upper": round(self.upper, 4), "pentanomial": list(d.pentanomial), "pairs": d.pairs,
                "elo": _round(e.elo), "elo_low": _round(e.low), "elo_high": _round(e.high),
                "elo_unbounded": e.unbounded,
                "model": e.model, "los": round(self.los, 4), "games": self.games,
                "pairs_after": self.after, "pentanomial_after": list(self.after_pentanomial),
                **{k: self.settings[k] for k in SETTINGS}}


def _round(x: float) -> float | None:
    """``x`` to 2 decimals; None (JSON null) for NaN and +-inf (an unbounded estimate)."""
    return None if x != x or abs(x) == float("inf") else round(x, 2)


def evaluate(settings: dict, cells: pl.DataFrame, games: int) -> SprtResult:
    """The decision and estimates of pairs ``cells`` (``pair_cells``) under ``settings``."""
    s = settings
    ordered = in_order(cells)
    decision = sprt.decide(ordered, s["elo0"], s["elo1"], s["alpha"], s["beta"], s["model"],
                           s["max_pairs"])
    lower, upper = sprt.bounds(s["alpha"], s["beta"])
    counted = decision.pentanomial
    extra = [c for c in cells["cell"].to_list()]
    after = [0] * 5
    for c in extra:
        after[c] += 1
    after = tuple(a - b for a, b in zip(after, counted))
    estimate = sprt.elo_estimate(counted, s["model"])
    return SprtResult(s, decision, lower, upper, estimate, sprt.los(counted), sum(after), after,
                      games)


def sprt_result(run_dir: str | Path, runs=None) -> SprtResult | None:
    """The SPRT of a run folder from its records, or None when the folder is not an SPRT run;
    ``runs``: the folder as already checked (an ``analysis.records.Runs``), read as it is."""
    settings = read_settings(run_dir)
    if settings is None:
        return None
    from .records import read_records

    if runs is None and not any((Path(run_dir) / "games").glob("*.parquet")):
        return evaluate(settings, pair_cells(pl.DataFrame(), pl.DataFrame(), settings["new"]), 0)
    records = read_records(runs or run_dir)
    return evaluate(settings, pair_cells(records["results"], records["games"], settings["new"]),
                    records["games"].height)


def sprt_html(results: list[SprtResult]) -> list[str]:
    """The report's SPRT section (one paragraph and a table per SPRT run); [] when none."""
    import html

    out = []
    for r in results:
        s, d, e = r.settings, r.decision, r.estimate
        out.append(f"<h2>SPRT: {html.escape(s['new'])} against {html.escape(s['base'])}</h2>")
        out.append(f"<p>H0: elo = {s['elo0']} against H1: elo = {s['elo1']} ({s['model']} Elo, "
                   f"alpha {s['alpha']}, beta {s['beta']}): <strong>{d.verdict}</strong> after "
                   f"{d.pairs:,} pairs; LLR {d.llr:.2f} in [{r.lower:.2f}, {r.upper:.2f}]; "
                   f"pentanomial {list(d.pentanomial)}; Elo {e.text()}; LOS {r.los:.1%}.</p>")
        if r.after:
            out.append(f"<p>{r.after:,} more pairs were played but not counted (after the "
                       f"decision or beyond a missing pair): {list(r.after_pentanomial)}.</p>")
    return out
