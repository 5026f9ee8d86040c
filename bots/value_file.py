"""The value network's file, ``azul-value/1``, as the MCTS bot's ``value`` evaluator reads it, and
where a model named by the bot's ``model`` parameter is found (learn/model.py writes the files).

The file is bots/model_container.py's container (the magic ``AZULVAL1``, a JSON header, float32
arrays; its other sections are their readers'); its value section's header holds ``format``,
``players``, ``inputs``, ``layers`` (the width of each layer, the last 1), ``arrays`` and
``shapes``, and ``meta`` (how it was trained), and its arrays are, in the header's order:
``mean`` and ``scale`` (inputs are fed as (x - mean) * scale, x being engine.rl's observation of
a round's end from the valued seat), then ``w0 b0 w1 b1 ...``, each ``w`` of shape
(outputs, inputs). Hidden layers are ReLU, the last tanh: the seat's expected outcome in [-1, 1].

The same container holds the other kind of learned value, the n-tuple tables: header ``format``
``azul-ntuple/1``, ``players``, ``arrays``, ``shapes`` and ``meta``, then one float32 array per
table in the order and shapes bots/ntuple.py's ``TUPLES`` gives (no ``layers`` or ``inputs``).
``read_model`` reads either, and the evaluator ``value`` plays either (the format says which).
Either kind is refused, naming the file, when damaged, of another format, of other shapes, larger
than ``MAX_BYTES`` or holding NaN or infinite numbers.

    data = model_bytes("value-2p")          # a model shipped in bots/models/, by name
    data = model_bytes(default_model(3))    # value-3p: the shipped model of a player count
    data = model_bytes("runs/train/gen-003.azv")  # or a file
    header, arrays = read_model(data)
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numpy as np

from .model_container import MAGIC, damaged_header, read_arrays, read_header
from .ntuple import FORMAT as NTUPLE_FORMAT, check_tables

FORMAT = "azul-value/1"
SUFFIX = ".azv"
MODELS = Path(__file__).parent / "models"   # the shipped models, NAME.azv
# A testing hook: when set, the folder read as the shipped models instead of MODELS (a test
# "ships" other bytes under a shipped name, as a new install would, without touching the package).
MODELS_ENV = "AZUL_MODELS_DIR"
MAX_WIDTH = 256  # the widest layer the compiled evaluator takes
MAX_BYTES = 16 * 2**20  # a file larger than this is refused before it is read (the largest model: ~1 MB)
# Names a shipped model had before: the n-tuple tables first shipped as ntuple-2p; since they are the
# default 2-player value they are value-2p, and the network that was value-2p is value-2p-mlp.
ALIASES = {"ntuple-2p": "value-2p"}


def models_folder() -> Path:
    """The folder of the shipped models: ``MODELS``, or the testing hook ``$AZUL_MODELS_DIR``."""
    return Path(os.environ.get(MODELS_ENV) or MODELS)


def shipped_models() -> list[str]:
    """The names of the models shipped with the package."""
    return sorted(p.stem for p in models_folder().glob("*" + SUFFIX))


def default_model(players: int) -> str:
    """The shipped model ``evaluator=value`` plays at a table of ``players`` when no ``model`` is
    given: ``value-2p``, ``value-3p`` or ``value-4p``; a ValueError of one line when the package
    ships none for that count."""
    name = f"value-{players}p"
    if name not in shipped_models():
        raise ValueError(f"mcts: no shipped value model for {players}-player games ({name}; shipped: "
                         f"{', '.join(shipped_models()) or 'none'}): give model=NAME_OR_PATH")
    return name


# Models in this process, by content: each read (and checked) once. ``_BY_HASH``: sha256 -> bytes;
# ``_READ``: a file as read (its path, time and size) -> its hash; ``_PROVIDED``: a name or path as
# a bot's spec gives it -> the hash of the bytes a league's driver resolved it to (a worker reads
# those, never a file of its own machine: ``provide_models``).
_BY_HASH: dict[str, bytes] = {}
_READ: dict[tuple[str, int, int], str] = {}
_PROVIDED: dict[str, str] = {}


def model_bytes(name_or_path: str) -> bytes:
    """The bytes of a shipped model (by name) or of a model file (by path), checked; read once per
    process and file version (a file rewritten since is read again), or as the driver handed them
    over (``provide_models``). A name too long for a file, or a file that cannot be read, is a
    ValueError naming it, as the other mistakes are."""
    try:
        return _model_bytes(name_or_path)
    except OSError as exc:
        raise ValueError(f"mcts: model {name_or_path!r}: cannot read it ({exc.strerror or exc})") from None


def _model_bytes(name_or_path: str, provided: bool = True) -> bytes:
    """``provided`` False: read from the file whatever this process was handed or read before."""
    if provided and name_or_path in _PROVIDED:
        return _BY_HASH[_PROVIDED[name_or_path]]
    path = model_path(name_or_path)
    if not path.is_file():
        raise ValueError(f"mcts: model {name_or_path!r} is neither a shipped model "
                         f"({', '.join(shipped_models()) or 'none'}) nor a file")
    stat = path.stat()
    key = (str(path.resolve()), stat.st_mtime_ns, stat.st_size)
    if key not in _READ or not provided:
        data = _read_checked(path, stat.st_size)
        digest = hashlib.sha256(data).hexdigest()
        _BY_HASH.setdefault(digest, data)
        _READ[key] = digest
    return _BY_HASH[_READ[key]]


def model_path(name_or_path: str) -> Path:
    """The file a model's name (shipped, or an alias of one) or path reads."""
    name_or_path = ALIASES.get(name_or_path, name_or_path)
    path = models_folder() / (name_or_path + SUFFIX)
    try:
        shipped = path.is_file()
    except OSError:  # a name too long for a file: no shipped model (reading it as a path says why)
        shipped = False
    if "/" in name_or_path or "\\" in name_or_path or name_or_path.endswith(SUFFIX) or not shipped:
        return Path(name_or_path)
    return path


def is_shipped(name_or_path: str) -> bool:
    """Whether ``name_or_path`` names a shipped model (or an alias of one), not a file."""
    return model_path(name_or_path) != Path(name_or_path)


def resolved_model(name_or_path: str, base: str | Path | None = None) -> str:
    """``name_or_path`` as a run keeps it: a shipped model's name as it is, a relative path made
    absolute against ``base`` (a config file's folder; None: the current folder), so that a resume
    from the stored settings, in any folder, reads the same file."""
    if is_shipped(name_or_path) or os.path.isabs(name_or_path):
        return name_or_path
    return os.path.abspath(os.path.join(base or os.curdir, name_or_path))


def _read_checked(path: Path, size: int) -> bytes:
    with path.open("rb") as f:  # the magic bytes and the size before the whole file is read
        if f.read(len(MAGIC)) != MAGIC:
            raise ValueError(f"{path}: not a value network file (azul-value/1 starts with {MAGIC!r})")
    if size > MAX_BYTES:
        raise ValueError(f"{path}: {size:,} bytes, more than a model of layers at most {MAX_WIDTH} wide can "
                         f"hold ({MAX_BYTES:,})")
    data = path.read_bytes()
    read_model(data, str(path))
    return data


def resolve_models(names) -> dict[str, bytes]:
    """The bytes of each model ``names`` gives (as bots' specs name them), read here once: what a
    league's driver hands its workers (``provide_models``). Each is read from its file, never taken
    from what an earlier league in this process was handed: a file changed since is read anew."""
    out = {}
    for name in sorted(set(names)):
        try:
            out[name] = _model_bytes(name, provided=False)
        except OSError as exc:
            raise ValueError(f"mcts: model {name!r}: cannot read it ({exc.strerror or exc})") from None
    return out


def provide_models(models: dict[str, bytes]) -> None:
    """Make ``models`` (``resolve_models``'s, from the driver) the ones this process's bots read
    under those names: a worker on another machine, or in another folder, reads no file for them."""
    for name, digest in model_digests(models):
        _BY_HASH.setdefault(digest, models[name])
        _PROVIDED[name] = digest


def model_digests(models: dict[str, bytes]) -> tuple[tuple[str, str], ...]:
    """Each model's name and the sha256 of its bytes, by name."""
    return tuple((name, hashlib.sha256(models[name]).hexdigest()) for name in sorted(models))


def read_model(data: bytes, where: str = "model") -> tuple[dict, dict[str, np.ndarray]]:
    """The header and the named float32 arrays of a model file's value section (the container:
    bots/model_container.py), of either kind its header's ``format`` names: ``azul-value/1``, the
    network, or ``azul-ntuple/1``, the n-tuple tables (bots/ntuple.py, which checks them); a
    ValueError names ``where`` and what is wrong."""
    header = read_header(data, where)
    try:
        players = header["players"]
        kind = header.get("format")
        if kind == FORMAT:
            layers, inputs = header["layers"], header["inputs"]
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise damaged_header(where, exc) from None
    if kind not in (FORMAT, NTUPLE_FORMAT):
        raise ValueError(f"{where}: format {kind!r}, this version reads {FORMAT} and {NTUPLE_FORMAT}")
    arrays, _ = read_arrays(data, header, where)  # the other sections are their readers'
    if kind == NTUPLE_FORMAT:
        check_tables(header, arrays, where)
    else:
        _check_network(arrays, layers, inputs, players, where)
    bad = [name for name, values in arrays.items() if not np.isfinite(values).all()]
    if bad:  # a NaN weight makes every value NaN: the search would play on nonsense without a word
        raise ValueError(f"{where}: array {bad[0]} holds NaN or infinite numbers (a model trained into "
                         "divergence, or a damaged file)")
    return header, arrays


def _check_network(arrays: dict[str, np.ndarray], layers, inputs, players, where: str) -> None:
    sizes = [inputs, *layers]
    want = {"mean": [inputs], "scale": [inputs]}
    for i in range(len(layers)):
        want[f"w{i}"], want[f"b{i}"] = [sizes[i + 1], sizes[i]], [sizes[i + 1]]
    got = {k: list(v.shape) for k, v in arrays.items()}
    if got != want or not layers or layers[-1] != 1:
        raise ValueError(f"{where}: arrays {got} do not make a network of layers {layers} on {inputs} inputs")
    if players not in (2, 3, 4) or max(layers) > MAX_WIDTH:
        raise ValueError(f"{where}: {players} players and layers {layers}: a model is for 2 to 4 "
                         f"players, its layers at most {MAX_WIDTH} wide")
