"""A training run's settings (``azul train CONFIG``, docs/train.md): the ``TrainConfig`` a train file
(YAML, with its ``start``, ``train``, ``gate`` and ``selfplay`` sections) is read into, and the one
check of every field, made before anything is written (kinds/train.py runs it)."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from bots.registry import bot_maker
from bots.value_file import resolved_model
from bots.spec import parse_bot_spec
from engine.errors import shown
from learn.data import TARGETS
from records.read import read_table
from records.store import local_run, open_store
from analysis import sprt
from tournament.config import read_yaml
from tournament.errors import ConfigError, TrainError
from tournament.fields import MAX_SEED, check_choice, check_int
from tournament.settings import ADDRESS, MLFLOW, NAME, OUT, PLAYERS, SEED, VARIANT, WORKERS, Settings

from .base import with_options
from .sprt import ELO0, ELO1, MAX_PAIRS, MODEL


VALUES = {"mlp": "azul-value/1", "ntuple": "azul-ntuple/1"}  # train.value, and the format of its model files
GATE_FIELDS = ("current", "greedy")  # gate.field: who fills the seats of a 3- or 4-player gate beside the two
BASES = ("current", "last")  # train.base: the weights a later generation's training starts from


@dataclass(frozen=True)
class TrainConfig(Settings):
    name: str = NAME.attr("train")
    players: int = PLAYERS.attr()
    variant: str = VARIANT.attr()
    seed: int = SEED.attr()  # each generation's leagues play seed * 1000 + g: checked to fit in ``check``
    generations: int = 3
    iterations: int = 200          # MCTS iterations per move, in self-play and in the gate
    deals: int = 50                # self-play deals per generation (each played with seats swapped)
    opponents: list = field(default_factory=list)  # bot specs the current bot also meets
    window: int = 2                # generations of positions the next model trains on
    start_records: list = field(default_factory=list)  # generation 0's records (run folders or s3:// URLs)
    start_model: str = "value-2p"  # generation 0's model without start records (value-3p, value-4p at 3, 4 players)
    value: str = "ntuple"          # VALUES: the n-tuple tables (learn/ntuple.py) or the network (learn/model.py)
    hidden: list = field(default_factory=lambda: [64, 32])
    target: str = "outcome"        # learn.data.TARGETS: outcome, or blend (half the margin's tanh)
    lam: float = 0.7               # the n-tuple tables' TD(lambda) in generations after the first
    epochs: int = 10
    batch: int = 256
    lr: float = 1e-3
    base: str = "current"          # BASES: from the current (last accepted) model, or the last generation's
    average: int = 1               # a candidate: the mean of the tables trained in its last `average` generations
    policy: bool = False           # fit a policy prior beside each model; its bots then search by PUCT with it
    elo0: float = ELO0.attr()
    elo1: float = ELO1.attr(40.0)
    max_pairs: int = MAX_PAIRS.attr(200)  # the SPRT's pair limit (2 players)
    max_deals: int = 100           # the league gate's deals (3 and 4 players; even at 4)
    field: str = "current"         # who fills the league gate's other seats: copies of current, or greedy
    out: str = OUT.attr()          # a folder, or s3://BUCKET/PREFIX (the run: <out>/<name>)
    workers: int | None = WORKERS.attr()
    address: str | None = ADDRESS.attr()
    mlflow: bool = MLFLOW.attr()
    experiment: str = "azul-train"


def load_train_config(path: str | Path, **options) -> TrainConfig:
    """The settings of a train config file (YAML), with the command's options (out, address,
    workers, mlflow) laid over it (``kinds.base.with_options``); a TrainError names the file and
    the field."""
    try:
        data = read_yaml(path)
    except ConfigError as exc:  # one line: the file, and the line and column of bad YAML
        raise TrainError(str(exc)) from None
    if not isinstance(data, dict):
        raise TrainError(f"{path}: a train config is a mapping of fields")
    flat = dict(data)
    for section in ("start", "train", "gate", "selfplay"):
        sub = flat.pop(section, None) or {}
        if not isinstance(sub, dict):
            raise TrainError(f"{path}: {section} must be a mapping")
        for k, v in sub.items():
            flat[f"start_{k}" if section == "start" else k] = v
    if isinstance(flat.get("mlflow"), dict):
        m = flat.pop("mlflow")
        flat["mlflow"] = m.get("enabled", True)  # checked as a boolean below
        if "experiment" in m:
            flat["experiment"] = m["experiment"]
    flat = with_options(flat, **options)
    if "start_model" not in flat and flat.get("players") in (3, 4):  # the shipped model of that count
        flat["start_model"] = f"value-{flat['players']}p"
    if isinstance(flat.get("start_model"), str) and flat["start_model"]:  # a path: from the file's folder
        flat["start_model"] = resolved_model(flat["start_model"], Path(path).parent)
    known = set(TrainConfig.__dataclass_fields__)
    unknown = sorted(set(flat) - known, key=str)  # a key read as a number (0E0) sorts beside text
    if unknown:
        raise TrainError(f"{path}: unknown field {shown(unknown[0])} (docs/train.md lists the fields)")
    config = TrainConfig(**flat)
    check(config, str(path))
    return replace(config, out=OUT.value(config.out))  # typer's s3:/B/P of a URL as s3://B/P


def check(c: TrainConfig, where: str = "train") -> None:
    """Every field checked before anything is written (a TrainError of one line naming ``where``
    and the field): its whole numbers' ranges, then the declared fields (what every run shares,
    and what its gate shares with an SPRT: elo0, elo1, max_pairs), then its own."""
    try:
        _check(c)
    except (ConfigError, ValueError) as exc:
        raise TrainError(f"{where}: {exc}") from None


def _check(c: TrainConfig) -> None:
    ints = {"players": (2, 4), "generations": (0, 1000), "iterations": (1, 10_000_000), "deals": (1, 10**6),
            "window": (1, 1000), "average": (1, 1000), "epochs": (1, 10_000), "batch": (1, 10**6),
            "max_pairs": (1, 10**6),
            "seed": (0, (MAX_SEED - 1000) // 1000)}  # each generation's leagues play seed * 1000 + g
    for name, (lo, hi) in ints.items():
        check_int(getattr(c, name), name, lo, hi)
    c.check_fields()
    sprt.check_hypotheses(c.elo0, c.elo1, MODEL.default)  # the gate's SPRT (a ValueError names them)
    check_int(c.max_deals, "gate.max_deals", 2, 10**6)
    check_choice(c.field, "gate.field", GATE_FIELDS)
    if c.players == 4 and c.deals % 2:
        raise ConfigError(f"selfplay.deals: must be even at 4 players (every seating takes a pair of deals), "
                          f"not {c.deals}")
    if c.players == 4 and c.max_deals % 2:
        raise ConfigError(f"gate.max_deals: must be even at 4 players (every seating takes a pair of deals), "
                          f"not {c.max_deals}")
    if not (isinstance(c.hidden, list) and c.hidden
            and all(isinstance(h, int) and not isinstance(h, bool) and 1 <= h <= 256 for h in c.hidden)):
        raise ConfigError(f"hidden: must be a list of layer widths from 1 to 256, not {shown(c.hidden)}")
    check_choice(c.target, "target", TARGETS)
    check_choice(c.value, "value", tuple(VALUES))
    check_choice(c.base, "train.base", BASES)
    if c.average > 1 and c.value != "ntuple":
        raise ConfigError(f"train.average: the mean of generations' tables is of train.value ntuple; "
                          f"train.value {c.value} takes 1, not {c.average}")
    if not isinstance(c.policy, bool):
        raise ConfigError(f"train.policy: must be true or false, not {shown(c.policy)}")
    if isinstance(c.lam, bool) or not isinstance(c.lam, (int, float)) or not 0 <= c.lam <= 1:
        raise ConfigError(f"lam: must be TD's lambda, from 0 to 1, not {shown(c.lam)}")
    if isinstance(c.lr, bool) or not isinstance(c.lr, (int, float)) or not 0 < c.lr <= 10:
        raise ConfigError(f"lr: must be a learning rate above 0 (at most 10), not {shown(c.lr)}")
    if not isinstance(c.experiment, str) or not c.experiment:
        raise ConfigError(f"experiment: must be a name, not {shown(c.experiment)}")
    if not isinstance(c.opponents, list):
        raise ConfigError(f"selfplay.opponents: must be a list of bot specs, not {shown(c.opponents)}")
    if 0 < len(c.opponents) < c.players - 1:
        raise ConfigError(f"selfplay.opponents: a {c.players}-player table holds the current bot and "
                          f"{c.players - 1} others: give {c.players - 1} or more opponents, or none (self-play "
                          f"alone), not {len(c.opponents)}")
    for i, text in enumerate(c.opponents):
        if not isinstance(text, str):
            raise ConfigError(f"selfplay.opponents[{i}]: a bot spec is text (TYPE:key=value,...), not {shown(text)}")
        try:  # the type and its parameters checked, and the bot made once (an mcts model read), as a league's
            unfit = bot_maker(*parse_bot_spec(text))(0).table_error(c.players, c.variant)
        except ValueError as exc:
            raise ConfigError(f"selfplay.opponents[{i}]: {exc}") from None
        if unfit:
            raise ConfigError(f"selfplay.opponents[{i}]: {unfit}")
    if not isinstance(c.start_records, list) or not all(isinstance(r, str) and r for r in c.start_records):
        raise ConfigError(f"start.records: must be a list of run folders or s3:// URLs, not {shown(c.start_records)}")
    for i, r in enumerate(c.start_records):
        try:  # a folder name too long for a file, a folder or bucket that cannot be read: one line too
            if not open_store(r).committed():  # a folder, or a run on object storage (its commits)
                raise ConfigError(f"start.records[{i}]: {r}: no game records there")
            counts = set(read_table(local_run(r), "games", ["num_players"]).column("num_players").to_pylist())
        except ConfigError:
            raise
        except ValueError as exc:  # a bad s3:// URL, a damaged part: it names itself
            raise ConfigError(f"start.records[{i}]: {exc}") from None
        except OSError as exc:
            raise ConfigError(f"start.records[{i}]: {r}: cannot read it ({exc.strerror or exc})") from None
        if c.players not in counts:
            raise ConfigError(f"start.records[{i}]: {r}: no {c.players}-player games to learn from (its games "
                              f"are {', '.join(map(str, sorted(counts)))}-player ones)")
    if not c.start_records:
        from bots.value_file import model_bytes

        if not isinstance(c.start_model, str) or not c.start_model:
            raise ConfigError(f"start.model: must be a shipped model's name or a model file, "
                              f"not {shown(c.start_model)}")
        from bots.value_file import read_model

        header = read_model(model_bytes(c.start_model), c.start_model)[0]  # a clear error now, not in a worker
        if header["format"] != VALUES[c.value]:
            raise ConfigError(f"start.model: {c.start_model} is an {header['format']} model; train.value "
                              f"{c.value} goes on from an {VALUES[c.value]} one (or give start.records)")
        if header["players"] != c.players:
            raise ConfigError(f"start.model: {c.start_model} values {header['players']}-player games, "
                              f"not {c.players}-player ones")
