"""Bots by type name, each parameter declared once and checked in one place.

    make_bot("mcts", seed=1, iterations=5000)          # a registered type
    make_bot("my_bots:Clever", seed=1, depth=3)         # any Bot subclass, by import path

A bot module registers its class with ``@register("name")``; ``bots/__init__.py`` imports the
built-in modules, and this module imports none of them. A parameter is declared once, in the
signature of the class's ``__init__``: its type and default there, its range and a line of help
in a ``Param`` inside ``typing.Annotated``::

    iterations: Annotated[int, Param("search iterations per move", 1, 10_000_000)] = 5000

``Literal[...]`` gives the choices, ``X | None`` allows None. A list parameter also takes one
text, split into words as a POSIX shell would (no shell runs): that is how a spec writes one
(``external:command=python3 my_bot.py``). ``seed`` is never a parameter (``SEED_APART``): every
command seeds its bots itself. ``check_params`` checks names,
types and ranges against these declarations; ``make_bot``, ``bots.spec.bot_from_spec`` and league
configs all go through it. Building a class directly (``MCTSBot(iterations=...)``) is the
unchecked fast path, for values already checked.
"""
from __future__ import annotations

import functools
import importlib
import inspect
import math
import shlex
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from engine.errors import shown

from .base import Bot

BOTS: dict[str, type[Bot]] = {}
REQUIRED = inspect.Parameter.empty  # the default of a parameter that has none
SEED_APART = ("seed is not a bot parameter: each command seeds its bots itself (azul play and series "
              "--seed, azul sprt --bot-seed, a league bot's seed field, a study's seed)")


@dataclass(frozen=True)
class Param:
    """What a bot parameter's annotation cannot say: a line of help and, for a number, its range
    (``low`` and ``high``, both allowed; for a list, its least length)."""

    help: str
    low: float | None = None
    high: float | None = None


@dataclass(frozen=True)
class Parameter:
    """One parameter of a bot type, as declared in its ``__init__``."""

    name: str
    kind: type  # int, float, bool, str, list; object: anything
    default: Any  # REQUIRED: it must be given
    help: str = ""
    low: float | None = None
    high: float | None = None
    choices: tuple = ()
    optional: bool = False  # None is allowed

    def expects(self) -> str:
        """What a value must be, as the error messages say it: ``an integer from 1 to 100``."""
        if self.choices:
            text = "one of " + ", ".join(repr(c) for c in self.choices)
        elif self.kind in (int, float):
            text = ("an integer" if self.kind is int else "a number") + _span(self.low, self.high)
        elif self.kind is list:
            text = (f"a list of {_number(self.low)} or more strings" if self.low else "a list of strings") \
                + " (or one text of words, split as a shell would)"
        else:
            text = {bool: "true or false", str: "text"}.get(self.kind, "any value")
        return text + (" (or null for none)" if self.optional else "")

    def __str__(self) -> str:
        default = "required" if self.default is REQUIRED else f"default {self.default!r}"
        return f"{self.name}: {self.expects()}, {default}; {self.help}"


def register(type_name: str):
    """Class decorator: make a Bot subclass available by name to ``make_bot``, specs and configs.

    Its parameters are read (and their declarations checked) here: each needs a ``Param`` with
    its help, and each number a range."""
    def add(cls: type[Bot]) -> type[Bot]:
        for p in declared(cls):
            if not p.help:
                raise TypeError(f"{type_name}: parameter {p.name} has no Param(help, ...) in its annotation")
            if p.kind in (int, float) and (p.low is None or p.high is None):
                raise TypeError(f"{type_name}: parameter {p.name} is a number without a range")
        cls.type_name = type_name
        BOTS[type_name] = cls
        return cls
    return add


def register_preset(type_name: str, base: type[Bot], defaults: dict[str, Any], doc: str) -> type[Bot]:
    """Register ``type_name``: the bot ``base`` with ``defaults`` as its parameters' defaults (a
    preset, such as the values ``azul tune`` found: docs/tune.md). A spec may still set any
    parameter (``heuristic-4p:marker=2``); ``base``'s own defaults do not change. The class is
    importable from ``base``'s module by its name (``bots.heuristic:Heuristic4P``)."""
    import sys

    names = {p.name for p in declared(base)}
    unknown = sorted(set(defaults) - names)
    if unknown:
        raise TypeError(f"{type_name}: {base.__name__} has no parameter {unknown[0]!r}")
    signature = inspect.signature(base.__init__)

    def __init__(self, seed: int = 0, **given):
        base.__init__(self, seed, **{**defaults, **given})

    __init__.__signature__ = signature.replace(parameters=[
        p.replace(default=defaults[p.name]) if p.name in defaults else p for p in signature.parameters.values()])
    __init__.__annotations__ = typing.get_type_hints(base.__init__, include_extras=True)
    body = {"__init__": __init__, "__doc__": doc, "__module__": base.__module__}
    if "compiled_form" in vars(base):  # plays as its base does (a compiled form is declared anew: bots.base)
        body["compiled_form"] = vars(base)["compiled_form"]
    class_name = base.__name__.removesuffix("Bot") + type_name.rpartition("-")[2].upper()
    preset = type(class_name, (base,), body)
    setattr(sys.modules[base.__module__], class_name, preset)
    return register(type_name)(preset)


def changed_parameters(bot: Bot, values: dict[str, Any]) -> dict[str, Any]:
    """Those of ``values`` (a bot's parameters by name) that differ from its type's defaults (a
    preset's, for a preset): what its name shows."""
    defaults = {p.name: p.default for p in declared(type(bot))}
    return {k: v for k, v in values.items() if k not in defaults or v != defaults[k]}


def bot_class(type_name: str) -> type[Bot]:
    """The class of a registered type name, or of a ``module:Class`` type (imported)."""
    if not isinstance(type_name, str):
        raise ValueError(f"a bot type is a name or module:Class, not {type_name!r}")
    if ":" not in type_name:
        try:
            return BOTS[type_name]
        except KeyError:
            raise ValueError(f"unknown bot type {type_name!r} (known: {', '.join(sorted(BOTS))})") from None
    module_name, _, class_name = type_name.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"cannot import {module_name!r} for bot type {type_name!r} ({exc})") from None
    cls = getattr(module, class_name, None)
    if not (isinstance(cls, type) and issubclass(cls, Bot)):
        raise ValueError(f"{type_name!r} is not a Bot subclass")
    return cls


def bot_parameters(type_name: str) -> dict[str, Parameter]:
    """The parameters a bot type takes (besides ``seed``), by name."""
    return {p.name: p for p in declared(bot_class(type_name))}


def check_params(type_name: str, params: dict[str, Any]) -> dict[str, Any]:
    """The parameters checked against the type's declarations (numbers as float where declared
    so); a ValueError names the bot, the parameter and what it must be."""
    known = bot_parameters(type_name)
    checked = {}
    for name, value in params.items():
        if name == "seed":
            raise ValueError(f"{type_name}: {SEED_APART}")
        if name not in known:
            choices = ", ".join(known) or "none"
            raise ValueError(f"{type_name}: unknown parameter {shown(name)} (its parameters: {choices})")
        checked[name] = _check(type_name, known[name], value)
    for p in known.values():
        if p.default is REQUIRED and p.name not in checked:
            raise ValueError(f"{type_name}: parameter {p.name} is required: {p.help}")
    error = bot_class(type_name).parameters_error({**{p.name: p.default for p in known.values()}, **checked})
    if error:
        raise ValueError(f"{type_name}: {error}")
    return checked


def make_bot(type_name: str, seed: int = 0, **params: Any) -> Bot:
    """Build a bot of a registered or ``module:Class`` type; a mistake is a ValueError that
    names it."""
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise ValueError(f"{type_name}: seed must be an integer, not {shown(seed)}")
    return bot_maker(type_name, params)(seed)


_WRAPPERS: list[tuple[tuple[str, ...], Callable]] = []  # (keys, wrap): register_wrapper


def register_wrapper(keys: tuple[str, ...], wrap: Callable) -> None:
    """Let specs of every bot type take ``keys`` (bots/intervention.py: marker, opening, when,
    allow): ``wrap(make, {key: value}) -> make`` turns a maker (seed -> Bot) into the wrapped one."""
    _WRAPPERS.append((tuple(keys), wrap))


def bot_maker(type_name: str, params: dict[str, Any]) -> Callable[[int], Bot]:
    """``seed -> Bot`` for a type and its parameters, checked once, here (a ValueError names a
    mistake). A wrapper's key goes to the wrapper, unless the type declares a parameter of that
    name and the value is not text for a number (``heuristic:marker=2`` is the heuristic's
    weight, ``heuristic:marker=avoid`` the intervention)."""
    cls = bot_class(type_name)
    own = bot_parameters(type_name)
    wrappers = []
    for keys, wrap in _WRAPPERS:
        mine = {k: v for k, v in params.items() if k in keys and not (
            k in own and not (isinstance(v, str) and own[k].kind in (int, float)))}
        if mine:
            wrappers.append((wrap, mine))
            params = {k: v for k, v in params.items() if k not in mine}
    checked = check_params(type_name, params)

    def make(seed: int) -> Bot:
        return cls(seed=seed, **checked)
    for wrap, mine in wrappers:
        try:
            make = wrap(make, mine)
        except ValueError as exc:
            raise ValueError(f"{type_name}: {exc}") from None
    return make


# ---------------------------------------------------------------- declarations
@functools.cache
def declared(cls: type[Bot]) -> tuple[Parameter, ...]:
    """The keyword parameters of ``cls.__init__`` besides ``seed``, read from its signature."""
    try:
        hints = typing.get_type_hints(cls.__init__, include_extras=True)
    except Exception:  # noqa: BLE001  (a module:Class bot with hints we cannot resolve: unchecked)
        hints = {}
    out = []
    for p in inspect.signature(cls.__init__).parameters.values():
        if p.name in ("self", "seed") or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        out.append(_parameter(p.name, hints.get(p.name, Any), p.default))
    return tuple(out)


def _parameter(name: str, hint: Any, default: Any) -> Parameter:
    meta = Param("")
    if typing.get_origin(hint) is Annotated:
        hint, *extras = typing.get_args(hint)
        meta = next((e for e in extras if isinstance(e, Param)), meta)
    optional = False
    if typing.get_origin(hint) in (typing.Union, types.UnionType) and type(None) in typing.get_args(hint):
        optional = True
        hint = next(a for a in typing.get_args(hint) if a is not type(None))
    choices: tuple = ()
    if typing.get_origin(hint) is Literal:
        choices = typing.get_args(hint)
        hint = type(choices[0])
    if typing.get_origin(hint) in (list, tuple):
        hint = list
    kind = hint if hint in (int, float, bool, str, list) else object
    return Parameter(name, kind, default, meta.help, meta.low, meta.high, choices, optional)


def _check(type_name: str, p: Parameter, value: Any) -> Any:
    if value is None and p.optional:
        return None
    given = value
    if p.kind is list and isinstance(value, str):  # one text (a spec's value): its words
        try:
            value = shlex.split(value)
        except ValueError as exc:
            raise ValueError(f"{type_name}: parameter {p.name}: cannot split {shown(value)} into words "
                             f"({exc})") from None
    if _fits(p, value):
        return float(value) if p.kind is float else list(value) if p.kind is list else value
    raise ValueError(f"{type_name}: parameter {p.name} must be {p.expects()}, not {shown(given)}")


def _fits(p: Parameter, value: Any) -> bool:
    if p.choices:
        return any(value == c and type(value) is type(c) for c in p.choices)
    if p.kind is object:
        return True
    if p.kind is bool:
        return isinstance(value, bool)
    if p.kind is str:
        return isinstance(value, str)
    if p.kind is list:
        return (isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value)
                and len(value) >= (p.low or 0))
    if isinstance(value, bool) or not isinstance(value, int if p.kind is int else (int, float)):
        return False
    if isinstance(value, float) and not math.isfinite(value):  # a huge int compares exactly below
        return False
    return (p.low is None or value >= p.low) and (p.high is None or value <= p.high)


def _span(low: float | None, high: float | None) -> str:
    if low is not None and high is not None:
        return f" from {_number(low)} to {_number(high)}"
    if low is not None:
        return f", {_number(low)} or more"
    return f", {_number(high)} or less" if high is not None else ""


def _number(x: float) -> str:
    return str(x) if isinstance(x, int) else f"{x:g}"
