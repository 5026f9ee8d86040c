"""A training generation's gate (kinds/train.py, docs/train.md "The gate"): does the candidate
model's bot beat the current one's at the same iterations per move?

- 2 players: an SPRT (kinds/sprt.py) of candidate against current, ``gate.elo0`` and ``gate.elo1``,
  at most ``gate.max_pairs`` pairs; H1 accepts, H0 and undecided do not.
- 3 and 4 players: a league of one table, ``gate.max_deals`` shared deals, seats ``balanced``
  (every seating: 6 games a deal at 3 players, 12 at 4), of the candidate, the current bot and a
  field of ``players - 2`` bots (``gate.field``: copies of the current bot, or greedy). The
  Plackett-Luce fit of its games (analysis/plackett_luce.py), anchored at the current bot, gives
  the candidate's rating less the current's with its 95% interval (the deal jackknife): a lower
  bound above 0 accepts (``H1``), an upper bound below 0 is ``H0``, anything else ``undecided``,
  and neither of those accepts. The decision is taken once, on all ``max_deals`` deals.

Either leaves its records in the generation's ``gate/`` (a folder, or under the training run's
``s3://`` URL) and goes on from them on a resume.
"""
from __future__ import annotations

from tournament.config import BotEntry, MlflowSettings, league_config
from tournament.runner import run_league

from .sprt import SprtSettings, run_sprt
from .train_config import TrainConfig, TrainError

LEVEL = 0.95


def gate(c: TrainConfig, gen, g: int, candidate: str, current: str) -> dict:
    """The gate of generation ``g`` (candidate and current as bot specs), played into
    ``gen/gate`` (``gen``: the generation's store, records.store): the lineage's ``gate`` record
    (``verdict``, ``elo``, ``elo_low``, ``elo_high``, and ``pairs`` and ``llr`` of an SPRT,
    ``deals`` and ``games`` of a league)."""
    if c.players == 2:
        return _sprt_gate(c, gen, g, candidate, current)
    return _league_gate(c, gen, g, candidate, current)


def _sprt_gate(c: TrainConfig, gen, g: int, candidate: str, current: str) -> dict:
    settings = SprtSettings(new=candidate, base=current, elo0=c.elo0, elo1=c.elo1, max_pairs=c.max_pairs,
                            variant=c.variant, seed=c.seed * 1000 + g, name="gate",
                            names=(f"gen{g}-candidate", f"gen{g}-current"),
                            out=str(gen.root), workers=c.workers, address=c.address, mlflow=False)
    outcome = run_sprt(settings, resume=gen.sub("gate").has_records())
    if outcome.interrupted:
        raise TrainError(f"generation {g}: the gate stopped; --resume goes on with it")
    r = outcome.result.as_dict()
    return {k: r[k] for k in ("verdict", "pairs", "llr", "elo", "elo_low", "elo_high")}


def gate_bots(c: TrainConfig, g: int, candidate: str, current: str) -> list[BotEntry]:
    """The gate league's bots: candidate, current, then the field (seeded apart)."""
    entry = BotEntry.of_spec
    field = current if c.field == "current" else "greedy"
    return [entry(f"gen{g}-candidate", candidate, 1), entry(f"gen{g}-current", current, 2),
            *(entry(f"gen{g}-field{i}", field, 3 + i) for i in range(1, c.players - 1))]


def _league_gate(c: TrainConfig, gen, g: int, candidate: str, current: str) -> dict:
    from analysis.plackett_luce import fit_plackett_luce
    from analysis.records import read_records

    league = league_config(f"generation {g}'s gate", "gate", gate_bots(c, g, candidate, current), players=c.players,
                           variant=c.variant, deals=c.max_deals, seats="balanced", seed=c.seed * 1000 + g,
                           out=str(gen.root), mlflow=MlflowSettings(enabled=False))
    league = league.with_overrides(workers=c.workers, address=c.address)
    summary = run_league(league, resume=gen.sub("gate").has_records())
    if not summary.complete:
        raise TrainError(f"generation {g}: the gate stopped; --resume goes on with it")
    records = read_records(gen.sub("gate").view())  # a folder, or the run's local view
    fit = fit_plackett_luce(records["results"], records["games"], num_players=c.players,
                            anchor=f"gen{g}-current", seed=c.seed * 1000 + g, level=LEVEL)
    row = fit.table.filter(fit.table["bot"] == f"gen{g}-candidate").row(0, named=True)
    low, high = row["low"], row["high"]
    verdict = "H1" if low is not None and low > 0 else "H0" if high is not None and high < 0 else "undecided"
    return {"verdict": verdict, "deals": c.max_deals, "games": records["games"].height,
            "elo": row["rating"], "elo_low": low, "elo_high": high}


def describe(r: dict) -> str:
    """The gate's result as the training's log line says it."""
    after = f"{r['pairs']} pairs" if "pairs" in r else f"{r['deals']} deals ({r['games']} games)"
    elo = "n/a" if r["elo"] is None else f"{r['elo']:+.1f}"
    interval = "" if r.get("elo_low") is None or r.get("elo_high") is None else \
        f" [{r['elo_low']:+.1f}, {r['elo_high']:+.1f}]"
    return f"gate {r['verdict']} after {after} (elo {elo}{interval})"
