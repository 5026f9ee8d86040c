"""Studies that stop when the answer is known: a group-sequential design whose interval stays
valid after the stop (docs/studies.md, "Stopping when the answer is known").

A study of one intervention yields, per deal, the paired difference ``D`` of the studied seats'
outcome (treatment minus control: points, or wins). Deals are independent, so the running mean
of ``D`` after ``n`` deals estimates the effect with standard error ``sd / sqrt(n)``. The study
looks at the data after each of the ``looks`` (deal counts fixed before it starts) and stops at
the first look where the claim's decision is settled, its interval has the width asked for, or
the last look is reached.

Two intervals, two jobs:

- **The stopping rule's interval** is the repeated confidence interval of a two-sided group
  sequential test with the Lan-DeMets spending function of Pocock's type,
  ``alpha(t) = alpha * ln(1 + (e - 1) t)`` (t: the share of the last look's deals), whose
  critical values ``c_k`` make the chance of ever stopping on a wrong side of a boundary of the
  claim ``alpha`` in all. The study stops at look k when no boundary of the claim's region lies
  within ``mean +- c_k * sd / sqrt(n_k)``. Pocock's type spends early, which is what saves games
  far from the boundary (O'Brien-Fleming's saves fewer there and more near it).
- **The reported interval** is the exact one for that design: ordered by the estimate at the
  stop (the "MLE ordering" of Emerson and Fleming, 1990), it holds the effects under which the
  observed estimate is not among the 2.5% most extreme on either side, computed by the design's
  own recursion (Armitage, McPherson and Rowe, 1969: numerical integration stage by stage). A
  naive ``mean +- 1.96 se`` after a data-dependent stop under-covers; the repeated interval
  over-covers (about 98% here, since it must hold at every look); this one covers at its
  nominal rate (tests/test_sequential.py: 2,000 synthetic studies in each scenario). The
  verdict reads it.

The standard deviation of ``D`` is estimated from the deals seen (the design treats it as
known at each look; with tens of deals a look the difference is small, as the coverage test
shows). Everything here is in units of that standard deviation unless a name says points.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy.optimize import brentq
from scipy.special import ndtr, ndtri, stdtrit

_NODES = 48  # Gauss-Legendre nodes per interval of a look's continuation region
_GL_X, _GL_W = np.polynomial.legendre.leggauss(_NODES)
_SPAN = 16.0  # the table's reach, in standard errors of the last look
_STEP = 0.08


def pocock_spending(t: float, alpha: float) -> float:
    """The error spent by the share ``t`` of the last look's deals (Lan and DeMets's Pocock type)."""
    return alpha * math.log1p((math.e - 1) * min(max(t, 0.0), 1.0))


@dataclass(frozen=True)
class Region:
    """Where a claim holds (SPEC 11's ``expect``): ``> X``, ``< X`` or ``within X``."""

    kind: str  # ">", "<" or "within"
    bound: float

    @classmethod
    def parse(cls, text: str) -> Region:
        m = re.fullmatch(r"\s*(>|<|within)\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*", str(text))
        if m is None:
            raise ValueError(f'must be "> X", "< X" or "within X" (X a number), not {text!r}')
        region = cls(m.group(1), float(m.group(2)))
        if region.kind == "within" and region.bound <= 0:
            raise ValueError(f"within X needs X above 0, not {region.bound:g}")
        return region

    def __str__(self) -> str:
        return f"{self.kind} {self.bound:g}"

    @property
    def boundaries(self) -> tuple[float, ...]:
        return (-self.bound, self.bound) if self.kind == "within" else (self.bound,)

    def verdict(self, low: float, high: float) -> str:
        """``supported`` when [low, high] lies inside the region, ``refuted`` when wholly outside."""
        if self.kind == ">":
            inside, outside = low > self.bound, high < self.bound
        elif self.kind == "<":
            inside, outside = high < self.bound, low > self.bound
        else:
            inside = -self.bound < low and high < self.bound
            outside = high < -self.bound or low > self.bound
        return "supported" if inside else "refuted" if outside else "undecided"


@dataclass(frozen=True)
class Design:
    """Looks after ``looks`` deals (increasing), a two-sided ``level`` (0.95: 95% intervals)."""

    looks: tuple[int, ...]
    level: float = 0.95

    def __post_init__(self):
        looks = tuple(int(n) for n in self.looks)
        if not looks or looks[0] < 2 or any(b <= a for a, b in zip(looks, looks[1:])):
            raise ValueError(f"looks must be increasing deal counts of at least 2, not {list(self.looks)}")
        if not 0.5 < self.level < 1:
            raise ValueError(f"level must be between 0.5 and 1, not {self.level}")
        object.__setattr__(self, "looks", looks)

    @classmethod
    def even(cls, max_deals: int, stages: int, level: float = 0.95) -> Design:
        """``stages`` looks spread evenly up to ``max_deals``."""
        if stages < 1 or max_deals < 2 * stages:
            raise ValueError(f"{stages} stages need at least {2 * stages} deals, not {max_deals}")
        return cls(tuple(round(max_deals * (k + 1) / stages) for k in range(stages)), level)

    @property
    def alpha(self) -> float:
        return 1 - self.level

    @property
    def critical(self) -> tuple[float, ...]:
        """The critical values ``c_k`` of the stopping rule's repeated interval at each look."""
        return _critical(self.looks, self.alpha)


# ---------------------------------------------------------------- the recursion
def _nodes(intervals):
    xs = [0.5 * (hi + lo) + 0.5 * (hi - lo) * _GL_X for lo, hi in intervals]
    ws = [0.5 * (hi - lo) * _GL_W for lo, hi in intervals]
    return (np.concatenate(xs), np.concatenate(ws)) if xs else (np.empty(0), np.empty(0))


def _exits(drift: float, looks, regions, x: np.ndarray) -> np.ndarray:
    """``P(stop at look k and W_k / n_k >= x)`` for each look (rows) and each x (columns), where
    ``W`` is the running sum of deals of standard deviation 1 and mean ``drift``, and the study
    goes on at look k while ``W_k`` lies in ``regions[k]`` (a list of open intervals; none: it stops)."""
    out = np.zeros((len(looks), len(x)))
    means, mass, before = np.zeros(1), np.ones(1), 0
    for k, n in enumerate(looks):
        step = n - before
        sd = math.sqrt(step)
        means = means + drift * step
        t = n * x[None, :]
        tail = ndtr((means[:, None] - t) / sd)  # mass at or above t
        for lo, hi in regions[k]:
            a = np.maximum(lo, t)
            tail -= np.clip(ndtr((hi - means[:, None]) / sd) - ndtr((a - means[:, None]) / sd), 0.0, None)
        out[k] = mass @ tail
        if not regions[k]:
            break
        w, wt = _nodes(regions[k])
        z = (w[None, :] - means[:, None]) / sd
        mass = (mass @ (np.exp(-0.5 * z * z) / (sd * math.sqrt(2 * math.pi)))) * wt
        means, before = w, n
    return out


def _regions(looks, critical, centres, last: int | None = None):
    """Each look's continuation region in ``W``: the union over the claim's boundaries ``centres``
    (per deal, in sd units) of ``n b +- c_k sqrt(n)``; none at the last look (or at ``last``)."""
    out = []
    for k, (n, c) in enumerate(zip(looks, critical)):
        if k == len(looks) - 1 or (last is not None and k >= last):
            out.append([])
            continue
        spans = sorted((n * b - c * math.sqrt(n), n * b + c * math.sqrt(n)) for b in centres)
        merged = [list(spans[0])]
        for lo, hi in spans[1:]:
            if lo <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], hi)
            else:
                merged.append([lo, hi])
        out.append([tuple(s) for s in merged])
    return out


@lru_cache(maxsize=32)
def _critical(looks: tuple[int, ...], alpha: float) -> tuple[float, ...]:
    cs: list[float] = []
    spent = 0.0
    for k, n in enumerate(looks):
        target = pocock_spending(n / looks[-1], alpha) - spent
        if k == 0:
            c = float(-ndtri(target / 2))
        else:
            def excess(c, k=k, n=n, target=target):
                regions = _regions(looks[:k + 1], [*cs, c], (0.0,))
                regions[-1] = [(-c * math.sqrt(n), c * math.sqrt(n))]  # goes on inside it
                return _exits(0.0, looks[:k + 1], regions, np.array([-np.inf]))[k, 0] - target

            c = brentq(excess, 0.5, 8.0, xtol=1e-7)
        cs.append(c)
        spent += target
    return tuple(cs)


@lru_cache(maxsize=16)
def _table(looks: tuple[int, ...], alpha: float):
    """For one boundary at 0: ``P(estimate at the stop >= x)`` on a grid of drifts (rows) and of
    x (columns), both in sd units scaled by sqrt(last look)."""
    grid = np.arange(-_SPAN, _SPAN + _STEP / 2, _STEP)
    scale = math.sqrt(looks[-1])
    regions = _regions(looks, _critical(looks, alpha), (0.0,))
    tails = np.array([_exits(u / scale, looks, regions, grid / scale).sum(axis=0) for u in grid])
    return grid, np.clip(tails, 0.0, 1.0)


def _ordered_interval(looks, alpha, centres, estimate: float, table: bool = True) -> tuple[float, float]:
    """The exact interval (MLE ordering) in sd units, for a study stopped with ``estimate``
    (``table``: read a single boundary's off the design's table; else solved directly)."""
    half = alpha / 2
    if len(centres) == 1 and table:  # translation-invariant: read it off the design's table
        grid, tails = _table(tuple(looks), alpha)
        scale = math.sqrt(looks[-1])
        x = (estimate - centres[0]) * scale
        if abs(x) < _SPAN - 6:
            i = min(int((x - grid[0]) / _STEP), len(grid) - 2)
            f = (x - grid[i]) / _STEP
            at_x = tails[:, i] * (1 - f) + tails[:, i + 1] * f  # increasing in the drift
            low = np.interp(half, at_x, grid)
            high = np.interp(1 - half, at_x, grid)
            return centres[0] + low / scale, centres[0] + high / scale
    regions = _regions(looks, _critical(tuple(looks), alpha), centres)

    def tail(drift):
        return _exits(drift, looks, regions, np.array([estimate])).sum()
    reach = 12 / math.sqrt(looks[0])
    low = brentq(lambda d: tail(d) - half, estimate - reach, estimate + reach, xtol=1e-6)
    high = brentq(lambda d: tail(d) - (1 - half), estimate - reach, estimate + reach, xtol=1e-6)
    return low, high


# ---------------------------------------------------------------- the study's stop and its interval
@dataclass(frozen=True)
class Sequential:
    """Where a sequential study stopped and what it found (in the metric's unit: points or wins):
    ``effect`` (the mean paired difference at the stop) with the design's exact interval
    ``low``..``high``; ``deals`` used, the ``look`` (1-based) and why it stopped (``settled``:
    the repeated interval left the claim's boundaries behind; ``width``: it was as narrow as
    asked; ``max``: the last look); the ``verdict`` the reported interval gives."""

    effect: float
    low: float
    high: float
    deals: int
    look: int
    reason: str
    verdict: str
    sd: float

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def stop_look(diffs: np.ndarray, design: Design, region: Region,
              width: float | None = None) -> tuple[int, str] | None:
    """The first look (0-based) at which the study stops, and why, for the paired differences
    ``diffs`` of the deals in play order; None when the looks the deals reach do not stop it (a
    study still being played)."""
    crit = design.critical
    last = len(design.looks) - 1
    for k, n in enumerate(design.looks):
        if n > len(diffs):
            return None
        if k == last:
            return k, "max"
        mean, sd = float(np.mean(diffs[:n])), _sd(diffs[:n])
        half = _t_critical(crit[k], n) * sd / math.sqrt(n)
        if all(abs(mean - b) >= half for b in region.boundaries):
            return k, "settled"
        if width is not None and 2 * half <= width:
            return k, "width"
    return None


def sequential_effect(diffs, design: Design, region: Region, width: float | None = None) -> Sequential:
    """Play the stopping rule over ``diffs`` (a deal's paired difference each, in play order) and
    report the effect at the stop with the design's exact interval."""
    diffs = np.asarray(diffs, dtype=float)
    stop = stop_look(diffs, design, region, width)
    if stop is None:
        raise ValueError(f"{len(diffs)} deals reach no stop of the design (looks at {list(design.looks)})")
    k, reason = stop
    n = design.looks[k]
    mean, sd = float(np.mean(diffs[:n])), _sd(diffs[:n])
    looks = design.looks[:k + 1] if reason == "width" else design.looks  # a width stop ends the design there
    if sd == 0:  # every deal the same (an A/A study): the effect is exact
        low = high = mean
    else:
        # the sd is estimated from the n deals: widen by Student's t over the normal quantile
        wide = sd * stdtrit(n - 1, 1 - design.alpha / 2) / -ndtri(design.alpha / 2)
        lo, hi = _ordered_interval(looks, design.alpha, tuple(b / wide for b in region.boundaries), mean / wide)
        low, high = lo * wide, hi * wide
    return Sequential(mean, low, high, n, k + 1, reason, region.verdict(low, high), sd)


def _t_critical(c: float, n: int) -> float:
    """``c`` (a normal critical value) as Student's t's of the same tail for ``n`` deals: the sd
    is estimated, and a look that under-estimates it must not stop the study on that account."""
    return float(stdtrit(n - 1, ndtr(c)))


def _sd(values: np.ndarray) -> float:
    return float(np.std(values, ddof=1)) if len(values) > 1 else 0.0


# ---------------------------------------------------------------- planning and what it saves
def operating(design: Design, distance: float) -> tuple[float, float]:
    """At a true effect ``distance`` sd from a single boundary: the expected deals the study
    plays, and the chance it ends decided (its repeated interval clear of the boundary)."""
    looks, crit = design.looks, design.critical
    regions = _regions(looks, crit, (0.0,))
    regions[-1] = [(-crit[-1] * math.sqrt(looks[-1]), crit[-1] * math.sqrt(looks[-1]))]
    stops = _exits(distance, looks, regions, np.array([-np.inf]))[:, 0]
    expected = float(np.dot(stops[:-1], looks[:-1]) + (1 - stops[:-1].sum()) * looks[-1])
    return expected, float(stops.sum())


def fixed_deals(design: Design, distance: float, power: float) -> float:
    """The deals a fixed design (one look, the same level) needs to be decided with ``power`` at
    ``distance`` sd from the boundary: its equal-error-rate counterpart."""
    z = -ndtri(design.alpha / 2) + ndtri(power)
    return float((z / distance) ** 2)


def planned_distance(design: Design, power: float = 0.9) -> float:
    """The distance from the boundary (sd units) at which the design ends decided with ``power``."""
    return brentq(lambda d: operating(design, d)[1] - power, 1e-3, 20.0, xtol=1e-6)
