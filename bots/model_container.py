"""The container of a model file (``.azv``): named, versioned sections of float32 arrays behind one
magic and one JSON header. The one writer (``pack``) and reader (``read_header``, ``read_arrays``,
``unpack``) of it; what the sections hold and how they are checked is their readers' (the value
network and the n-tuple tables: bots/value_file.py's ``read_model``).

The layout, little-endian::

    AZULVAL1        8 bytes, the magic
    uint32          the length of the header
    header          UTF-8 JSON, keys sorted: the value section's header (its ``format``, its
                    ``arrays`` names and their ``shapes``, and its own keys: ``players``,
                    ``meta``...); when the file holds other sections, also ``container``: 2 and
                    ``sections``: each other section's header by its name
    arrays          float32, each of its shape: the value section's in its ``arrays`` order,
                    then each other section's, by name

The value section (``VALUE``) is every model's: the network (``azul-value/1``) or the n-tuple
tables (``azul-ntuple/1``). A file of that section alone is container version 1 and has no
``container`` key: its bytes are those every model was written with before sections existed
(the shipped models are such files), and a model written now with the same content has the same
bytes (the digests a run pins in ``run.json`` stay). A file of a container version newer than
``VERSION`` is refused by name, as is one whose magic, header or arrays are damaged.

Each section's header names its ``format`` as ``azul-NAME/VERSION``; the section's reader checks
it (a format it does not read is refused, naming it). To add a section (a calibration, a policy):
choose its name and format, write it beside the value section::

    data = pack(value, {"calibration": Section({"format": "azul-calibration/1", ...}, arrays)})

and read it back with ``unpack(data, where).sections.get("calibration")``, checking its format.
A reader that knows nothing of a section reads the file as before and leaves that section be.
"""
from __future__ import annotations

import json
import re
import struct
from dataclasses import dataclass, field

import numpy as np

MAGIC = b"AZULVAL1"
VALUE = "value"  # the name of the section every model file holds (the one of a version 1 file)
VERSION = 2  # the newest container this version reads: 1, the value section alone; 2, with others
_LISTS = ("arrays", "shapes")  # the keys of a section's header the container writes
_KEYS = ("container", "sections")  # the keys of the file's header the container writes besides
_NAME = re.compile(r"[a-z][a-z0-9_-]*\Z")


@dataclass
class Section:
    """One section of a model file: its header (``format`` and its own keys; the container adds
    the arrays' names and shapes) and its named float32 arrays, in file order."""

    header: dict
    arrays: dict[str, np.ndarray] = field(default_factory=dict)


@dataclass
class Container:
    """A model file's sections, as ``pack`` takes them: the value section and the others by name."""

    value: Section
    sections: dict[str, Section] = field(default_factory=dict)


def pack(value: Section, sections: dict[str, Section] | None = None) -> bytes:
    """The bytes of a model file of the value section ``value`` and the other ``sections``."""
    header = _section_header(VALUE, value)
    others = sorted((sections or {}).items())
    for name, _ in others:
        if name == VALUE or not _NAME.match(name):
            raise ValueError(f"model file: a section cannot be named {name!r} (lowercase letters, digits, "
                             f"'-' and '_', and not {VALUE!r})")
    if others:
        header["container"] = VERSION
        header["sections"] = {name: _section_header(name, section) for name, section in others}
    text = json.dumps(header, sort_keys=True).encode()
    body = b"".join(np.ascontiguousarray(a, "<f4").tobytes()
                    for section in [value, *(s for _, s in others)] for a in section.arrays.values())
    return MAGIC + struct.pack("<I", len(text)) + text + body


def _section_header(name: str, section: Section) -> dict:
    taken = [k for k in (*_LISTS, *(_KEYS if name == VALUE else ())) if k in section.header]
    if taken:
        raise ValueError(f"model file: section {name!r}'s header sets {', '.join(taken)}, which the container writes")
    return {**section.header, "arrays": list(section.arrays),
            "shapes": [[int(n) for n in a.shape] for a in section.arrays.values()]}


def damaged_header(where: str, exc: Exception) -> ValueError:
    """The error of a header that is no JSON, or lacks a key its reader needs."""
    return ValueError(f"{where}: a damaged header ({type(exc).__name__}: {exc})")


def read_header(data: bytes, where: str = "model") -> dict:
    """The header of a model file (the value section's, with ``container`` and ``sections`` when
    it has others); a ValueError names ``where`` and what is wrong: no model file, a damaged
    header, or a container newer than this version reads."""
    if len(data) < 12 or data[:8] != MAGIC:
        raise ValueError(f"{where}: not a value network file (azul-value/1 starts with {MAGIC!r})")
    (size,) = struct.unpack("<I", data[8:12])
    try:
        header = json.loads(data[12:12 + size])
        for section in [header, *header.get("sections", {}).values()]:
            section["arrays"], section["shapes"]  # noqa: B018 - each section lists its arrays
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise damaged_header(where, exc) from None
    version = header.get("container", 1)
    if not isinstance(version, int) or not 1 <= version <= VERSION:
        raise ValueError(f"{where}: container version {version!r}, this version reads 1 to {VERSION} "
                         "(a newer azul-league wrote it: upgrade to read it)")
    return header


def read_arrays(data: bytes, header: dict, where: str = "model") -> tuple[dict[str, np.ndarray], dict[str, Section]]:
    """The value section's arrays of a model file whose header ``read_header`` read, and its other
    sections; a ValueError names ``where`` when the arrays run past the file's end or bytes follow them."""
    (size,) = struct.unpack("<I", data[8:12])
    at = 12 + size
    arrays, at = _arrays(data, header, at, where)
    sections = {}
    for name, section_header in header.get("sections", {}).items():
        section_arrays, at = _arrays(data, section_header, at, where)
        sections[name] = Section({k: v for k, v in section_header.items() if k not in _LISTS}, section_arrays)
    if at != len(data):
        raise ValueError(f"{where}: {len(data) - at} bytes after the last array")
    return arrays, sections


def _arrays(data: bytes, header: dict, at: int, where: str) -> tuple[dict[str, np.ndarray], int]:
    arrays = {}
    for name, shape in zip(header["arrays"], header["shapes"]):
        count = int(np.prod(shape)) if shape else 1
        if at + 4 * count > len(data):
            raise ValueError(f"{where}: truncated (array {name} runs past the file's end)")
        arrays[name] = np.frombuffer(data, "<f4", count, at).reshape(shape).astype(np.float32)
        at += 4 * count
    return arrays, at


def unpack(data: bytes, where: str = "model") -> Container:
    """A model file's sections, as stored (each checked by its reader, not here): ``pack`` of them
    gives the same bytes."""
    header = read_header(data, where)
    arrays, sections = read_arrays(data, header, where)
    return Container(Section({k: v for k, v in header.items() if k not in (*_LISTS, *_KEYS)}, arrays), sections)
