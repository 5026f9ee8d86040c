"""An SPRT run's pairs and decision, from its records: what ``azul sprt`` prints at the end and on
``--resume``, and what ``azul report`` shows for it.

An SPRT run is a league of two bots (2 players, ``seats: rotate``): deal d is played twice with
the seats swapped, games ``t000-d<d>-a00`` and ``-a01``: one pair. Its folder holds ``sprt.yaml``
(``SPRT_FILE``: the first bot, the test's elo0, elo1, alpha, beta, model and max_pairs) beside
``config.yaml``. The decision is taken on the complete pairs in deal order, from deal 0 on, up
to the first missing pair: pairs played after the decision, or beyond a gap, are counted apart
(``after``), so the answer does not depend on which games happened to finish first. Games a
fault ended (a forfeit, a crashed worker) count as the records rank them (the faulty seat last);
``faults`` says which bot forfeited how many games of which kind, and ``faulted_pairs`` how many
of the counted pairs hold one, so that a verdict reached on forfeits says so (``fault_note``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import polars as pl
import yaml

from records.names import SPRT_FILE
from records.store import RunStore

from . import sprt
from .stats import outcomes

SETTINGS = ("new", "base", "elo0", "elo1", "alpha", "beta", "model", "max_pairs")
CRASH = "(crash)"  # ``faults``' bot of a game no seat forfeited: its worker died (every seat last)


def read_settings(run_dir: str | Path) -> dict | None:
    """The SPRT settings of a run folder (``sprt.yaml``), or None when it is not an SPRT run."""
    store = RunStore(run_dir)
    if not store.exists(SPRT_FILE):
        return None
    data = yaml.safe_load(store.read_text(SPRT_FILE))
    if not isinstance(data, dict) or not all(k in data for k in SETTINGS):
        raise ValueError(f"{store.where(SPRT_FILE)}: not an SPRT's settings (fields: {', '.join(SETTINGS)})")
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


def game_faults(results: pl.DataFrame, games: pl.DataFrame) -> pl.DataFrame:
    """The games a fault ended: ``deal``, ``bot`` (the seat that forfeited; ``CRASH`` when none
    did) and ``kind`` (the game's termination: error, illegal, timeout)."""
    schema = {"deal": pl.Int64, "bot": pl.String, "kind": pl.String}
    if games.height == 0 or "termination" not in games.columns:
        return pl.DataFrame(schema=schema)
    bad = games.filter(pl.col("termination") != "normal").select(
        "run_id", "game_id", pl.col("deal").cast(pl.Int64), pl.col("termination").alias("kind"),
        pl.col("fault_seat").cast(pl.Int64).alias("seat"))
    seats = results.select("run_id", "game_id", pl.col("seat").cast(pl.Int64), "bot")
    return (bad.join(seats, on=["run_id", "game_id", "seat"], how="left")
            .select("deal", pl.col("bot").fill_null(CRASH), "kind"))


def fault_counts(faults: pl.DataFrame) -> dict[str, dict[str, int]]:
    """``{bot: {kind: games}}`` of ``game_faults``, bots and kinds in order."""
    out: dict[str, dict[str, int]] = {}
    for row in faults.group_by("bot", "kind").len().sort("bot", "kind").iter_rows(named=True):
        out.setdefault(row["bot"], {})[row["kind"]] = row["len"]
    return out


def fault_text(faults: dict[str, dict[str, int]]) -> str:
    """``bad: 100 error; (crash): 2 error``, or ``none``."""
    return "; ".join(f"{bot}: " + ", ".join(f"{n:,} {kind}" for kind, n in kinds.items())
                     for bot, kinds in faults.items()) or "none"


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
    faults: dict[str, dict[str, int]] = field(default_factory=dict)  # bot -> kind -> games, all recorded
    faulted_pairs: int = 0  # counted pairs with a game a fault ended

    def as_dict(self) -> dict:
        d, e = self.decision, self.estimate
        return {"verdict": d.verdict, "llr": round(d.llr, 4), "lower": round(self.lower, 4),
                "upper": round(self.upper, 4), "pentanomial": list(d.pentanomial), "pairs": d.pairs,
                "elo": _round(e.elo), "elo_low": _round(e.low), "elo_high": _round(e.high),
                "elo_unbounded": e.unbounded,
                "model": e.model, "los": round(self.los, 4), "games": self.games,
                "pairs_after": self.after, "pentanomial_after": list(self.after_pentanomial),
                "faults": self.faults, "faulted_pairs": self.faulted_pairs,
                **{k: self.settings[k] for k in SETTINGS}}

    def fault_note(self) -> str | None:
        """A sentence when counted pairs hold faults (the verdict rests partly on forfeits)."""
        d = self.decision
        if not self.faulted_pairs:
            return None
        share = "every one" if self.faulted_pairs == d.pairs else f"{self.faulted_pairs:,}"
        how = "decided" if d.verdict != "undecided" else "left undecided"
        verb = "holds" if self.faulted_pairs == 1 or share == "every one" else "hold"
        return (f"the test was {how} on forfeits: {share} of the {d.pairs:,} pairs counted "
                f"{verb} a game a fault ended ({fault_text(self.faults)}); "
                "a forfeit counts as a loss of the bot at fault: read the records' error column "
                "(azul replay) before the verdict")


def _round(x: float) -> float | None:
    """``x`` to 2 decimals; None (JSON null) for NaN and +-inf (an unbounded estimate)."""
    return None if x != x or abs(x) == float("inf") else round(x, 2)


def evaluate(settings: dict, cells: pl.DataFrame, games: int, faults: pl.DataFrame | None = None) -> SprtResult:
    """The decision and estimates of pairs ``cells`` (``pair_cells``) under ``settings``;
    ``faults``: the run's ``game_faults``."""
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
    faults = game_faults(pl.DataFrame(), pl.DataFrame()) if faults is None else faults
    faulted = faults.filter(pl.col("deal") < decision.pairs)["deal"].n_unique()
    return SprtResult(s, decision, lower, upper, estimate, sprt.los(counted), sum(after), after,
                      games, fault_counts(faults), faulted)


def sprt_result(run_dir: str | Path, runs=None) -> SprtResult | None:
    """The SPRT of a run folder from its records, or None when the folder is not an SPRT run;
    ``runs``: the folder as already checked (an ``analysis.records.Runs``), read as it is."""
    settings = read_settings(run_dir)
    if settings is None:
        return None
    from .records import read_records

    if runs is None and not RunStore(run_dir).committed():
        return evaluate(settings, pair_cells(pl.DataFrame(), pl.DataFrame(), settings["new"]), 0)
    records = read_records(runs or run_dir)
    results, games = records["results"], records["games"]
    return evaluate(settings, pair_cells(results, games, settings["new"]), games.height,
                    game_faults(results, games))


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
        note = r.fault_note()
        if note:
            out.append(f"<p><strong>Warning</strong>: {html.escape(note)}.</p>")
        if r.after:
            out.append(f"<p>{r.after:,} more pairs were played but not counted (after the "
                       f"decision or beyond a missing pair): {list(r.after_pentanomial)}.</p>")
    return out
