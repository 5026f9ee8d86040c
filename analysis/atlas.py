"""What an atlas measures for a claim and the verdict it gives (SPEC 11; kinds/atlas_config.py
reads the claims): the effect with its 95% interval at each player count, from a study that
stopped when the answer was known (analysis/sequential.py) or from a statistic of a league
(analysis/luck.py), a comparison of two player counts, and which verdicts changed between two
atlases over the same claims. The groundwork of ``azul atlas`` (issue 44, step (c)).

The verdict reads the interval against the claim's region (``Region.verdict``): ``supported``
when it lies inside, ``refuted`` when wholly outside, ``undecided`` otherwise.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from .sequential import Region
from .stats import Z95


@dataclass(frozen=True)
class Measured:
    """One claim at one player count (``players``: ``"2"``, or ``"2-4"`` for a comparison)."""

    id: str
    players: str
    metric: str
    effect: float
    low: float
    high: float
    games: int
    verdict: str

    def as_dict(self) -> dict:
        return asdict(self)


def measured(claim_id: str, players: int | str, metric: str, region: Region, effect: float, low: float,
             high: float, games: int) -> Measured:
    """A claim's measure with the verdict its interval gives."""
    return Measured(claim_id, str(players), metric, float(effect), float(low), float(high), int(games),
                    region.verdict(low, high) if math.isfinite(low) and math.isfinite(high) else "undecided")


# where each statistic is in a player count's luck block (``analysis.luck``; azul standings' JSON
# ``luck``), by the claim's metric: (effect, low, high)
def statistic_value(luck: dict, name: str, metric: str) -> tuple[float, float, float]:
    """The statistic ``name`` (kinds.atlas_config.STATISTICS) of one player count's luck block,
    in the claim's ``metric``; a ValueError when the block does not hold it (a league the block
    refused, say why)."""
    if luck.get("refused"):
        raise ValueError(f"the league gives no luck-and-skill numbers: {luck['refused']}")
    if name == "first-mover":
        fm = luck["first_mover"]
        key = "win" if metric == "win" else "score"
        return fm[f"{key}_edge"], fm[f"{key}_low"], fm[f"{key}_high"]
    if name in ("deal-share", "seat-share", "bot-share", "seat-less-deal"):
        outcome = "wins" if metric == "win" else "points"
        component = "seat - deal" if name == "seat-less-deal" else name.split("-")[0]
        for share in luck["shares"]:
            if share["outcome"] == outcome and share["component"] == component:
                return share["share"], share["low"], share["high"]
        raise ValueError(f"the luck block has no {component} share of {outcome}")
    if name in ("upset-rate", "sweep-rate"):  # the one pair's row: the weaker's upsets, the stronger's sweeps
        upsets = luck["upsets"]
        if len(upsets) != 1:
            raise ValueError(f"{name} reads a league of two bots, not of {len(upsets) + 1} pairs' worth")
        row, ends = upsets[0], ("low", "high") if name == "upset-rate" else ("sweep_low", "sweep_high")
        return row[f"{name.split('-')[0]}_rate"], row[ends[0]], row[ends[1]]
    raise ValueError(f"unknown statistic {name!r}")


def compared(a: Measured, b: Measured, region: Region) -> Measured:
    """The effect at ``a``'s player count less the effect at ``b``'s (SPEC 11's ``compare``), from
    two independent runs: each interval read as a normal one (its half-widths as 1.96 standard
    errors, the wider side of an uneven one), their variances added."""
    def se(m: Measured) -> float:
        return max(m.effect - m.low, m.high - m.effect) / Z95

    effect = a.effect - b.effect
    half = Z95 * math.hypot(se(a), se(b))
    return measured(a.id, f"{a.players}-{b.players}", a.metric, region, effect, effect - half, effect + half,
                    a.games + b.games)


def changed_verdicts(before: list[dict], now: list[dict]) -> list[dict]:
    """``--compare-with``: the claims (id and player count) whose verdict differs between an
    earlier atlas's rows and this one's, with both verdicts and effects; a claim in only one of
    them is listed with ``None`` for the other."""
    old = {(r["id"], str(r["players"])): r for r in before}
    new = {(r["id"], str(r["players"])): r for r in now}
    out = []
    for key in sorted(old.keys() | new.keys()):
        o, n = old.get(key), new.get(key)
        if o is None or n is None or o.get("verdict") != n.get("verdict"):
            out.append({"id": key[0], "players": key[1],
                        "before": None if o is None else o.get("verdict"),
                        "now": None if n is None else n.get("verdict"),
                        "effect_before": None if o is None else o.get("effect"),
                        "effect_now": None if n is None else n.get("effect")})
    return out
