"""An atlas's claims file (SPEC 11, docs/studies.md "The strategy atlas"): read and checked into
``AtlasConfig``, one error line naming the file, the claim and the field, before anything is
written. The groundwork of ``azul atlas`` (issue 44, step (c)): the command and its run kind
read their claims from here.

    name: claims                          # the atlas's run folder under out (default: the file's stem)
    claims:
      - id: second-mover                  # a name (the one rule for names), unique in the file
        claim: At 2 players the second mover wins 69% of games   # as its source says it
        test: the first mover's win rate less 1/2 between copies of mcts-2p   # as measured here
        source: Trace Studio, "Azul by the Numbers"
        players: [2]
        metric: win                       # points or win
        expect: "< -0.19"                 # "> X", "< X" or "within X": where the claim holds
        statistic: first-mover            # or a mapping: {name, bot, bots, deals}
      - id: marker-take
        claim: ...
        source: ...
        players: [2, 3, 4]
        metric: points
        expect: "> 0"
        study: {bot: "mcts-{players}p:iterations=200", intervention: marker=take, max_deals: 400}
        compare: [2, 4]                   # optional: the effect at 2 less the effect at 4

A bot spec may hold ``{players}``, replaced by each player count (the presets ``mcts-2p``...).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from analysis.sequential import Region
from bots.intervention import parse_intervention
from bots.registry import bot_maker
from bots.spec import parse_bot_spec
from engine.errors import shown
from tournament.errors import ConfigError
from tournament.fields import check_int, check_name, section
from tournament.settings import NAME, OUT, SEED, WORKERS, Settings

from .base import load_settings_file
from .study import METRIC, STAGES

KEYS = ("name", "claims", "seed", "out", "workers")
CLAIM_KEYS = ("id", "claim", "test", "source", "players", "metric", "expect", "study", "statistic", "compare")
STUDY_KEYS = ("bot", "intervention", "field", "max_deals", "stages")
STATISTIC_KEYS = ("name", "bot", "bots", "deals")
# The luck-and-skill and seat statistics a claim may name (docs/studies.md, "The strategy atlas";
# analysis/luck.py computes them): what each measures, in the claim's metric
STATISTICS = {
    "first-mover": "the first mover's win rate less 1/players (win), or its score less its table's mean (points)",
    "deal-share": "the share of the variance of the metric the deal decides for a player",
    "seat-share": "the share of the variance of the metric the seat decides",
    "bot-share": "the share of the variance of the metric who is playing decides (skill)",
    "seat-less-deal": "the seat's share of the variance less the deal's (above 0: the seat swings more)",
    "upset-rate": "the share of deals on which the weaker of two bots is ahead in every game (win)",
    "sweep-rate": "the share of deals on which the stronger of two bots is ahead in every game (win)",
}
DEFAULT_BOT = "mcts-{players}p:iterations=200"  # the strongest preset of each player count
DEFAULT_STUDY_DEALS = 400
DEFAULT_STATISTIC_DEALS = 200


@dataclass(frozen=True)
class StudyTest:
    """A claim tested by a study that stops when the answer is known (kinds/study.py)."""

    bot: str
    intervention: str
    field: tuple[str, ...] = ()
    max_deals: int = DEFAULT_STUDY_DEALS
    stages: int = STAGES.default


@dataclass(frozen=True)
class StatisticTest:
    """A claim tested by a statistic of a league of ``bots`` (default: copies of ``bot``, named apart)."""

    name: str
    bot: str = DEFAULT_BOT
    bots: tuple[str, ...] = ()
    deals: int = DEFAULT_STATISTIC_DEALS


@dataclass(frozen=True)
class Claim:
    id: str
    claim: str
    source: str
    players: tuple[int, ...]
    metric: str
    expect: Region
    tested_by: StudyTest | StatisticTest
    test: str | None = None
    compare: tuple[int, int] | None = None

    def bot_for(self, spec: str, players: int) -> str:
        """A spec with ``{players}`` replaced by the player count."""
        return spec.replace("{players}", str(players))


@dataclass(frozen=True)
class AtlasConfig(Settings):
    name: str = NAME.attr()
    claims: tuple[Claim, ...] = field(default=())
    seed: int = SEED.attr()
    out: str = OUT.attr()
    workers: int | None = WORKERS.attr(0)

    def __post_init__(self):
        self.check_fields()
        if not self.claims:
            raise ConfigError("claims: an atlas needs at least one claim")


def load_atlas(path: str | Path, **options) -> AtlasConfig:
    """An atlas from its claims file with the command's options laid over it; a ConfigError of
    one line names the file, the claim (its place and id) and the field."""
    return load_settings_file(path, parse_atlas, **options)


def parse_atlas(data: Any, source: str = "claims", default_name: str = "atlas") -> AtlasConfig:
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: a claims file is a mapping of fields ({', '.join(KEYS)})")
    unknown = [k for k in data if k not in KEYS]
    if unknown:
        raise ConfigError(f"{source}: {shown(unknown[0])}: unknown field (fields: {', '.join(KEYS)})")
    items = data.get("claims")
    if not isinstance(items, list) or not items:
        raise ConfigError(f"{source}: claims: must be a list of claims, not {shown(items)}")
    claims, seen = [], set()
    for i, item in enumerate(items):
        where = f"claims[{i}]" + (f" ({item['id']})" if isinstance(item, dict) and isinstance(item.get("id"), str)
                                  else "")
        try:
            claim = parse_claim(item)
        except ConfigError as exc:
            raise exc.at(f"{source}: {where}") from None
        if claim.id in seen:
            raise ConfigError(f"{source}: {where}: id: {claim.id!r} is the id of an earlier claim")
        seen.add(claim.id)
        claims.append(claim)
    fields = {k: v for k, v in data.items() if k != "claims"}
    try:
        return AtlasConfig(**{"name": default_name, **fields, "claims": tuple(claims)})
    except ConfigError as exc:
        raise exc.at(source) from None


def parse_claim(item: Any) -> Claim:
    """One claim of the file (a ConfigError naming its field)."""
    if not isinstance(item, dict):
        raise ConfigError(f"a claim is a mapping of fields ({', '.join(CLAIM_KEYS)}), not {shown(item)}")
    unknown = [k for k in item if k not in CLAIM_KEYS]
    if unknown:
        raise ConfigError(f"{shown(unknown[0])}: unknown field (fields: {', '.join(CLAIM_KEYS)})")
    for key in ("id", "claim", "source", "players", "metric", "expect"):
        if key not in item:
            raise ConfigError(f"{key}: missing")
    check_name(item["id"], "id")
    texts = {key: _text(item.get(key), key, required=key != "test") for key in ("claim", "source", "test")}
    players = item["players"]
    if (not isinstance(players, list) or not players or len(set(map(str, players))) < len(players)
            or any(isinstance(n, bool) or not isinstance(n, int) or not 2 <= n <= 4 for n in players)):
        raise ConfigError(f"players: must be a list of distinct player counts from 2 to 4, not {shown(players)}")
    METRIC.value(item["metric"])
    try:
        expect = Region.parse(item["expect"])
    except ValueError as exc:
        raise ConfigError(f"expect: {exc}") from None
    if ("study" in item) == ("statistic" in item):
        raise ConfigError("study, statistic: a claim is tested by one of them (a study: or a statistic:)")
    tested_by = (_study(item["study"], tuple(players)) if "study" in item
                 else _statistic(item["statistic"], tuple(players), item["metric"]))
    compare = item.get("compare")
    if compare is not None:
        if (not isinstance(compare, list) or len(compare) != 2 or compare[0] == compare[1]
                or any(n not in players for n in compare)):
            raise ConfigError(f"compare: must be two different player counts of players ({shown(players)}), "
                              f"not {shown(compare)}")
        compare = (compare[0], compare[1])
    return Claim(item["id"], texts["claim"], texts["source"], tuple(players), item["metric"], expect, tested_by,
                 texts["test"], compare)


def _text(value: Any, key: str, required: bool) -> str | None:
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{key}: must be a sentence (text), not {shown(value)}")
    return value.strip()


def _spec(spec: Any, where: str, players: tuple[int, ...]) -> str:
    if not isinstance(spec, str):
        raise ConfigError(f"{where}: a bot spec is text (TYPE:key=value,...), not {shown(spec)}")
    for n in players:
        try:
            kind, params = parse_bot_spec(spec.replace("{players}", str(n)))
            bot_maker(kind, params)  # a known type, its parameters and any intervention checked
        except ValueError as exc:
            raise ConfigError(f"{where}: {exc}") from None
    return spec


def _study(data: Any, players: tuple[int, ...]) -> StudyTest:
    data = section(data, "study", STUDY_KEYS)
    for key in ("bot", "intervention"):
        if key not in data:
            raise ConfigError(f"study.{key}: missing")
    bot = _spec(data["bot"], "study.bot", players)
    intervention = data["intervention"]
    if not isinstance(intervention, str):
        raise ConfigError(f"study.intervention: one intervention as text (marker=take), not {shown(intervention)}")
    try:
        parse_intervention(parse_bot_spec(f"x:{intervention}")[1])
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"study.intervention: {exc}") from None
    opponents = data.get("field", [])
    if isinstance(opponents, str):
        opponents = [opponents]
    if not isinstance(opponents, list):
        raise ConfigError(f"study.field: must be a list of bot specs, not {shown(opponents)}")
    opponents = tuple(_spec(s, f"study.field[{i}]", players) for i, s in enumerate(opponents))
    stages = STAGES.read(data, "study.stages")
    deals = check_int(data.get("max_deals", DEFAULT_STUDY_DEALS), "study.max_deals", 2 * stages)
    return StudyTest(bot, intervention, opponents, deals, stages)


def _statistic(data: Any, players: tuple[int, ...], metric: str) -> StatisticTest:
    data = section({"name": data} if isinstance(data, str) else data, "statistic", STATISTIC_KEYS)
    name = data.get("name")
    if name not in STATISTICS:
        raise ConfigError(f"statistic.name: must be one of {', '.join(STATISTICS)}, not {shown(name)}")
    if name in ("upset-rate", "sweep-rate") and metric != "win":
        raise ConfigError(f"metric: {name} counts deals won: its metric is win")
    bot = _spec(data.get("bot", DEFAULT_BOT), "statistic.bot", players)
    bots = data.get("bots", [])
    if not isinstance(bots, list) or (bots and len(bots) < 2):
        raise ConfigError(f"statistic.bots: must be a list of at least two bot specs, not {shown(bots)}")
    bots = tuple(_spec(s, f"statistic.bots[{i}]", players) for i, s in enumerate(bots))
    if bots and set(players) != {len(bots)}:
        raise ConfigError(f"statistic.bots: one spec a seat, so {len(bots)} bots play {len(bots)}-player tables "
                          f"only, not players {shown(list(players))}")
    if name in ("upset-rate", "sweep-rate") and len(bots) != 2:
        raise ConfigError(f"statistic.bots: {name} compares two bots at 2 players: give both specs")
    deals = check_int(data.get("deals", DEFAULT_STATISTIC_DEALS), "statistic.deals", 2)
    return StatisticTest(name, bot, bots, deals)


def claims_data(claims) -> list[dict]:
    """Claims as a claims file holds them (what the atlas stores in its atlas.yaml, and atlas.json's)."""
    out = []
    for x in claims:
        t = x.tested_by
        tested = ({"study": {"bot": t.bot, "intervention": t.intervention, "field": list(t.field),
                             "max_deals": t.max_deals, "stages": t.stages}} if isinstance(t, StudyTest)
                  else {"statistic": {"name": t.name, "bot": t.bot, "bots": list(t.bots), "deals": t.deals}})
        out.append({"id": x.id, "claim": x.claim, "test": x.test, "source": x.source, "players": list(x.players),
                    "metric": x.metric, "expect": str(x.expect), **tested,
                    "compare": None if x.compare is None else list(x.compare)})
    return out
