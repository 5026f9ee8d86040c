"""Bots by type name, with typed and checked parameters: ``make_bot("mcts", seed=1, iterations=5000)``."""
from __future__ import annotations

import inspect
import typing
from typing import Any, Literal

from .base import Bot

BOTS: dict[str, type[Bot]] = {}


def register(type_name: str):
    """Class decorator: make a Bot subclass available to ``make_bot`` and league configs."""
    def add(cls: type[Bot]) -> type[Bot]:
        cls.type_name = type_name
        BOTS[type_name] = cls
        return cls
    return add


def bot_parameters(type_name: str) -> dict[str, inspect.Parameter]:
    """The parameters a bot type takes (besides ``seed``), with their defaults and annotations."""
    cls = _bot_class(type_name)
    params = inspect.signature(cls.__init__).parameters
    return {n: p for n, p in params.items() if n not in ("self", "seed")}


def make_bot(type_name: str, seed: int = 0, **params: Any) -> Bot:
    """Build a registered bot; a wrong type name, parameter name or value gets a clear ValueError."""
    cls = _bot_class(type_name)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise ValueError(f"{type_name}: seed must be an integer, not {seed!r}")
    known = bot_parameters(type_name)
    hints = typing.get_type_hints(cls.__init__)
    for name, value in params.items():
        if name not in known:
            choices = ", ".join(known) or "none"
            raise ValueError(f"{type_name}: unknown parameter {name!r} (its parameters: {choices})")
        params[name] = _check_type(type_name, name, value, hints.get(name, Any))
    return cls(seed=seed, **params)


def _bot_class(type_name: str) -> type[Bot]:
    _load_builtin_bots()
    try:
        return BOTS[type_name]
    except KeyError:
        raise ValueError(f"unknown bot type {type_name!r} (known: {', '.join(sorted(BOTS))})") from None


def _check_type(type_name: str, name: str, value: Any, hint: Any) -> Any:
    where = f"{type_name}: parameter {name}"
    origin = typing.get_origin(hint)
    if hint is Any:
        return value
    if origin is Literal:
        if value not in typing.get_args(hint):
            choices = ", ".join(repr(a) for a in typing.get_args(hint))
            raise ValueError(f"{where} must be one of {choices}, not {value!r}")
        return value
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        args = typing.get_args(hint)
        if value is None and type(None) in args:
            return None
        hint = next(a for a in args if a is not type(None))
        return _check_type(type_name, name, value, hint)
    if hint is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"{where} must be a number, not {value!r}")
        return float(value)
    if hint is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{where} must be an integer, not {value!r}")
        return value
    if hint is bool:
        if not isinstance(value, bool):
            raise ValueError(f"{where} must be true or false, not {value!r}")
        return value
    if hint is str:
        if not isinstance(value, str):
            raise ValueError(f"{where} must be a string, not {value!r}")
        return value
    if origin in (list, tuple):
        if not isinstance(value, (list, tuple)):
            raise ValueError(f"{where} must be a list, not {value!r}")
        (item,) = typing.get_args(hint)[:1] or (Any,)
        return [_check_type(type_name, name, v, item) for v in value]
    if origin is dict:
        if not isinstance(value, dict):
            raise ValueError(f"{where} must be a mapping, not {value!r}")
        return dict(value)
    return value


def _load_builtin_bots() -> None:
    """Import the modules that register the built-in bots (once)."""
    import importlib

    from . import greedy, heuristic, random_bot  # noqa: F401
    for name in ("mcts", "external"):
        try:
            importlib.import_module(f"{__package__}.{name}")
        except ModuleNotFoundError as err:
            if err.name != f"{__package__}.{name}":
                raise
