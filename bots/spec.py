"""Bot specs, the one text form of a bot and its parameters: ``TYPE`` or ``TYPE:key=value,...``.

    >>> parse_bot_spec("mcts:iterations=2000,exploration=1.2")
    ('mcts', {'iterations': 2000, 'exploration': 1.2})
    >>> format_bot_spec("mcts", {"iterations": 2000})
    'mcts:iterations=2000'

TYPE is a registered bot type or a ``module:Class`` import path (``my_bots:Clever:depth=3``; the
class name starts with a capital letter, which tells it from a parameter list).
Values read as integers, then numbers, then true/false, else stay text (a list parameter takes
the text as words, ``external:command=python3 my_bot.py``: bots/registry.py); a value in double
quotes is text as it is, commas and ``=`` included (``mcts:model="runs/a,b/m.azv"``), which
``format_bot_spec`` writes for such text. ``seed`` is refused
by name: each command seeds its bots itself. The command line (``azul play --vs``, ``azul series
--bot``, ``azul sprt --bot``, ``azul study --bot``), league configs that list a bot as one string,
and the benchmarks all read specs here.
"""
from __future__ import annotations

from typing import Any

from .registry import BOTS, SEED_APART, bot_parameters, make_bot


def parse_bot_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"TYPE:key=value,..."`` -> ``(TYPE, {key: value})``; a ValueError names what is wrong."""
    if not isinstance(spec, str):
        raise ValueError(f"bot spec {spec!r}: not text (write TYPE or TYPE:key=value,...)")
    parts = spec.strip().split(":")
    if len(parts) > 1 and parts[1][:1].isupper() and parts[1].isidentifier():  # module:Class
        parts[:2] = [f"{parts[0]}:{parts[1]}"]
    kind, rest = parts[0].strip(), ":".join(parts[1:])
    if not kind or kind.endswith(":") or kind.startswith(":"):
        raise ValueError(f"bot spec {spec!r}: no bot type (write TYPE or TYPE:key=value,...)")
    params: dict[str, Any] = {}
    for item in filter(None, (p.strip() for p in _items(spec, rest))):
        key, eq, value = item.partition("=")
        if eq and key.strip() and not value.strip():
            raise ValueError(f"bot spec {spec!r}: the value of {key.strip()} is empty{_expected(kind, key.strip())}")
        if not eq or not key.strip():
            raise ValueError(f"bot spec {spec!r}: {item!r} is not key=value")
        if len(value.strip()) >= 2 and value.strip()[0] == value.strip()[-1] == '"':  # quoted: text as it is
            params[key.strip()] = value.strip()[1:-1]
            continue
        if key.strip() in params:
            raise ValueError(f"bot spec {spec!r}: {key.strip()} is given twice")
        if key.strip() == "seed":
            raise ValueError(f"bot spec {spec!r}: {SEED_APART}")
        params[key.strip()] = _value(value.strip())
    return kind, params


def _expected(kind: str, key: str) -> str:
    """What a registered type's parameter ``key`` takes (`` (prune must be one of 'none', 'floor')``),
    for the error of an empty value; nothing for other types and keys."""
    parameter = bot_parameters(kind).get(key) if kind in BOTS else None
    return "" if parameter is None else f" ({key} must be {parameter.expects()})"


def _items(spec: str, rest: str) -> list[str]:
    """The ``key=value`` items of a spec's parameters: split at the commas outside double quotes."""
    items, current, quoted = [], [], False
    for c in rest:
        if c == '"':
            quoted = not quoted
        if c == "," and not quoted:
            items.append("".join(current))
            current = []
        else:
            current.append(c)
    if quoted:
        raise ValueError(f"bot spec {spec!r}: a quote is not closed")
    return [*items, "".join(current)]


def bot_from_spec(spec: str, seed: int):
    """Build the bot a spec names, its parameters checked by ``make_bot``; a ValueError names
    the spec and what is wrong with it."""
    kind, params = parse_bot_spec(spec)
    try:
        return make_bot(kind, seed=seed, **params)  # seed never in params: refused above
    except ValueError as exc:
        raise ValueError(f"bot spec {spec!r}: {exc}") from None


def spec_name(spec: str) -> str:
    """The name a bot given by ``spec`` goes by in tables and records when it is given none: the
    bot's own (``Bot.name``: ``mcts-2p:iterations=200`` is ``mcts-2p(iterations=200)``), as a
    league names the bots of its config; a ValueError as ``bot_from_spec``'s."""
    return bot_from_spec(spec, 0).name


def format_bot_spec(kind: str, params: dict[str, Any] | None = None) -> str:
    """The spec text of a bot type and its parameters (the inverse of ``parse_bot_spec``)."""
    if not params:
        return kind
    text = ",".join(f"{k}={_text(v)}" for k, v in params.items())
    return f"{kind}:{text}"


def _value(text: str) -> Any:
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(text.lower(), text)


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    text = str(value)
    if isinstance(value, str) and (any(c in text for c in ',="') or text != text.strip()
                                   or _value(text) != text):
        if '"' in text:
            raise ValueError(f"a spec's value cannot hold a double quote: {text!r}")
        return f'"{text}"'  # a path with a comma or '=', or text that would read as a number: as it is
    return text
