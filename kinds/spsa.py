"""SPSA as fishtest tunes chess engines: the gains, the perturbation, the update and each tuned
parameter's scale and range, with defaults from the bot registry (docs/tune.md). Pure Python.

    params = [tuned_param("heuristic", "line", {}, pairs=2000)]
    spsa = Spsa(params, pairs=2000, seed=0)
    theta = spsa.start()                        # internal coordinates (ln of a log-scale value)
    plus, minus = spsa.perturbed(theta, step)   # the two bots of a step, as bot parameter values
    theta = spsa.update(theta, step, result)    # result: theta+'s wins minus losses in the step

Fishtest's schedule, with k the pairs played so far (0-based; a step of B pairs is taken at its
last pair, k = pairs after it - 1) and N the pairs of the whole tune::

    c_k = c / (k + 1)^0.101          c = c_end * N^0.101        (c_k = c_end at the last pair)
    a_k = a / (A + k + 1)^0.602      a = a_end * (A + N)^0.602,  a_end = r_end * c_end^2
    theta+- = clip(theta +- c_k * delta)         delta: +-1 per parameter, from the seed and step
    theta  <- clip(theta + a_k / c_k * result * delta)

with A = a tenth of N. A parameter whose declared range spans three orders of magnitude or more
(``value_scale`` 0.01..1000) is tuned on a log scale: theta is ln(value), and its c_end is in ln
units (0.2: values times or over e^0.2).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from engine.errors import field_name

ALPHA, GAMMA = 0.602, 0.101  # fishtest's (and Spall's) exponents of a_k and c_k
A_SHARE = 0.1  # A: this share of the pairs
C_SHARE = 1 / 20  # default c_end: this share of the parameter's span (internal units)
R_PAIRS = 60.0  # default r_end: this over the pairs, at least MIN_PAIRS (docs/tune.md, "Choosing c_end and r_end")
MIN_PAIRS = 500
LOG_SPAN = 1000.0  # a declared range whose high / low is at least this is tuned on a log scale
FIELDS = ("start", "min", "max", "c_end", "r_end", "scale")
SCALES = ("linear", "log")


@dataclass(frozen=True)
class TunedParam:
    """One tuned parameter: its name, start and range (bot values), c_end and r_end (internal
    units: ln units on a log scale), whether it is tuned on a log scale, and an integer."""

    name: str
    start: float
    low: float
    high: float
    c_end: float
    r_end: float
    log: bool = False
    integer: bool = False

    def inside(self, value: float) -> float:
        """A bot value to internal coordinates."""
        return math.log(value) if self.log else float(value)

    @property
    def bounds(self) -> tuple[float, float]:
        return self.inside(self.low), self.inside(self.high)

    def clip(self, u: float) -> float:
        lo, hi = self.bounds
        return min(max(u, lo), hi)

    def value(self, u: float) -> float | int:
        """Internal coordinates to the value the bot plays with (in range; rounded if an integer)."""
        v = min(max(math.exp(u) if self.log else u, self.low), self.high)
        return int(round(v)) if self.integer else v

    def as_dict(self) -> dict:
        return {"start": self.start, "min": self.low, "max": self.high, "c_end": self.c_end,
                "r_end": self.r_end, "scale": "log" if self.log else "linear"}


def tuned_param(bot_type: str, name: str, given: dict | None, pairs: int) -> TunedParam:
    """A tuned parameter of ``bot_type``: the fields ``given`` (start, min, max, c_end, r_end,
    scale; each optional) over defaults from its declaration in the registry. A ValueError says
    ``<name>.<field>: what is wrong``."""
    from bots.registry import REQUIRED, bot_parameters

    given = dict(given or {})
    unknown = [k for k in given if k not in FIELDS]
    if unknown:
        raise ValueError(f"{name}.{field_name(unknown[0])}: unknown field (fields: {', '.join(FIELDS)})")
    declared = bot_parameters(bot_type)
    if name not in declared:
        raise ValueError(f"{name}: {bot_type} has no such parameter (its parameters: {', '.join(declared) or 'none'})")
    p = declared[name]
    if p.kind not in (int, float) or p.choices:
        raise ValueError(f"{name}: only numbers can be tuned; {bot_type}'s {name} is {p.expects()}")
    low = _number(given.get("min", p.low), f"{name}.min")
    high = _number(given.get("max", p.high), f"{name}.max")
    for field, v in (("min", low), ("max", high)):
        if not p.low <= v <= p.high:
            raise ValueError(f"{name}.{field}: {v:g} is outside {name}'s declared range {p.low:g} to {p.high:g}")
    if not low < high:
        raise ValueError(f"{name}.max: must be above min ({low:g}), not {high:g}")
    scale = given.get("scale", "log" if low > 0 and high / low >= LOG_SPAN else "linear")
    if scale not in SCALES:
        raise ValueError(f"{name}.scale: must be one of {', '.join(SCALES)}, not {scale!r}")
    log = scale == "log"
    if log and low <= 0:
        raise ValueError(f"{name}.scale: a log scale needs min above 0, not {low:g}")
    default = p.default if p.default not in (REQUIRED, None) else (
        math.sqrt(low * high) if log else (low + high) / 2)
    start = _number(given.get("start", min(max(default, low), high)), f"{name}.start")
    if not low <= start <= high:
        raise ValueError(f"{name}.start: must be from min {low:g} to max {high:g}, not {start:g}")
    span = math.log(high / low) if log else high - low
    c_end = _number(given.get("c_end", span * C_SHARE), f"{name}.c_end")
    r_end = _number(given.get("r_end", R_PAIRS / max(pairs, MIN_PAIRS)), f"{name}.r_end")
    for field, v in (("c_end", c_end), ("r_end", r_end)):
        if not v > 0:
            raise ValueError(f"{name}.{field}: must be above 0, not {v:g}")
    if c_end > span / 2:
        raise ValueError(f"{name}.c_end: {c_end:g} is more than half the span ({span:g}"
                         f"{' in ln units' if log else ''}): theta+ and theta- would sit at the ends")
    return TunedParam(name, start, low, high, c_end, r_end, log, p.kind is int)


def _number(value, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{where}: must be a number, not {value!r}")
    return float(value)


class Spsa:
    """The tune's arithmetic for ``params`` over ``pairs`` pairs: fishtest's gains, seeded flips."""

    def __init__(self, params: list[TunedParam], pairs: int, seed: int = 0, a_share: float = A_SHARE):
        if not params:
            raise ValueError("no parameter to tune")
        if len(params) > 63:
            raise ValueError(f"at most 63 parameters are tuned at once, not {len(params)}")
        if pairs < 1:
            raise ValueError(f"pairs must be 1 or more, not {pairs}")
        self.params, self.pairs, self.seed = list(params), pairs, seed
        self.A = a_share * pairs
        self.c = [p.c_end * pairs ** GAMMA for p in params]
        self.a = [p.r_end * p.c_end ** 2 * (self.A + pairs) ** ALPHA for p in params]

    def start(self) -> list[float]:
        return [p.inside(p.start) for p in self.params]

    def c_k(self, k: int) -> list[float]:
        return [c / (k + 1) ** GAMMA for c in self.c]

    def a_k(self, k: int) -> list[float]:
        return [a / (self.A + k + 1) ** ALPHA for a in self.a]

    def flips(self, step: int) -> list[int]:
        """delta of step ``step``: +1 or -1 per parameter, from the seed and the step alone."""
        from tournament.scheduler import derive_seed

        bits = derive_seed(self.seed, "spsa", step)
        return [1 if bits >> i & 1 else -1 for i in range(len(self.params))]

    def sides(self, theta: list[float], step: int, k: int) -> tuple[list[float], list[float]]:
        """theta+ and theta- (internal coordinates, clipped) of step ``step`` taken at pair ``k``."""
        d, c = self.flips(step), self.c_k(k)
        return ([p.clip(u + ci * di) for p, u, ci, di in zip(self.params, theta, c, d)],
                [p.clip(u - ci * di) for p, u, ci, di in zip(self.params, theta, c, d)])

    def values(self, theta: list[float]) -> dict[str, float | int]:
        """Internal coordinates as the bot's parameter values, by name."""
        return {p.name: p.value(u) for p, u in zip(self.params, theta)}

    def update(self, theta: list[float], step: int, k: int, result: float) -> list[float]:
        """theta after step ``step`` (taken at pair ``k``) in which theta+ scored ``result``
        (its wins minus its losses against theta-)."""
        d, a, c = self.flips(step), self.a_k(k), self.c_k(k)
        return [p.clip(u + ai / ci * result * di) for p, u, ai, ci, di in zip(self.params, theta, a, c, d)]


def steps(pairs: int, batch: int) -> list[tuple[int, int]]:
    """The steps of a tune: (first pair, pairs in it) for each, ``batch`` pairs each (the last fewer)."""
    return [(p, min(batch, pairs - p)) for p in range(0, pairs, batch)]


def summary(params: list[TunedParam], trajectory: list[list[float]], tail: float) -> dict[str, dict]:
    """Per parameter, the mean and standard deviation (bot values) of theta over the last ``tail``
    share of the trajectory (theta after each step; at least one), and where it ended."""
    if not trajectory:
        return {}
    n = max(1, math.ceil(tail * len(trajectory)))
    out = {}
    for i, p in enumerate(params):
        values = [math.exp(t[i]) if p.log else t[i] for t in trajectory[-n:]]
        mean = sum(values) / n
        sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else 0.0
        out[p.name] = {"mean": mean, "sd": sd, "last": p.value(trajectory[-1][i]), "steps": n}
    return out


def rounded(p: TunedParam, value: float) -> float | int:
    """A final value as a spec shows it: 4 significant digits, in range (an integer rounded)."""
    v = min(max(float(f"{value:.4g}"), p.low), p.high)
    return int(round(v)) if p.integer else v
