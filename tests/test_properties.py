"""Property tests: any position JSON or league config mapping, however damaged, reads as a valid
object or fails with the project's own named error (InvalidPositionError, ConfigError), never any
other exception. Inputs start from valid ones (positions of random games, a small league config)
and are mutated: values of other types and ranges, huge integers, deletions, extra keys, nesting."""
from __future__ import annotations

import copy
import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import GameState, InvalidPositionError, new_game
from tournament.config import ConfigError, parse_config

SETTINGS = settings(max_examples=150, deadline=None)

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 30), st.integers(), st.sampled_from([2**31, 2**63, -2**31 - 1, 10**30]),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=8),
    st.sampled_from(["center", "colored", "gray", "draft", "over", "B", "BBBB", ".....", "1", "1e20", "random"]))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                      st.dictionaries(st.text(max_size=6), inner, max_size=3)),
                      max_leaves=8)


def _slots(obj):
    """Every (container, key) in ``obj`` (without recursion: nesting may be deep)."""
    out, stack = [], [obj]
    while stack:
        node = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, value in list(items):
            out.append((node, key))
            stack.append(value)
    return out


def _nest(value, depth):
    for _ in range(depth):
        value = [value]
    return value


@st.composite
def mutated(draw, base):
    """``base`` (a JSON-like dict) with a few random edits."""
    obj = copy.deepcopy(base)
    for _ in range(draw(st.integers(1, 3))):
        slots = _slots(obj)
        if not slots:
            break
        parent, key = slots[draw(st.integers(0, len(slots) - 1))]
        op = draw(st.sampled_from(["replace", "delete", "extra", "nest", "huge"]))
        if op == "replace":
            parent[key] = draw(values)
        elif op == "delete":
            del parent[key]
        elif op == "extra" and isinstance(parent, dict):
            parent[draw(st.text(max_size=6))] = draw(values)
        elif op == "nest":
            parent[key] = _nest(parent[key], draw(st.sampled_from([1, 2, 50, 5000])))
        elif op == "huge":
            parent[key] = draw(st.sampled_from([2**31, -2**31, 2**64, 10**5000]))
    return obj


@st.composite
def game_positions(draw):
    """A position of a random game: players, variant, seeds and moves drawn."""
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    state = new_game(players=draw(st.integers(2, 4)), variant=draw(st.sampled_from(["colored", "gray"])))
    for _ in range(draw(st.integers(0, 120))):
        if state.is_over:
            break
        if state.phase == "refill":
            state.deal(seed=rng.randrange(2**32))
        else:
            state.play(rng.choice(state.legal_moves()))
    return state.to_json()


def read_or_refuse(given):
    try:
        state = GameState.from_json(given)
    except InvalidPositionError as error:
        assert str(error) and ": " in str(error)  # a path, then the rule
        return
    state.legal_moves()  # a position read is one the engine can play from
    assert GameState.from_json(state.to_json()) == state


@SETTINGS
@given(data=st.data())
def test_a_mutated_position_reads_or_fails_by_name(data):
    position = data.draw(game_positions())
    read_or_refuse(data.draw(mutated(position)))


@SETTINGS
@given(data=st.data())
def test_a_mutated_position_text_reads_or_fails_by_name(data):
    position = data.draw(mutated(data.draw(game_positions())))
    try:
        text = json.dumps(position)
    except (ValueError, RecursionError):  # an integer too long to print, or nesting too deep for
        # json.dumps: no JSON text of it to read
        return
    cut = data.draw(st.integers(0, len(text)))
    read_or_refuse(text if data.draw(st.booleans()) else text[:cut])


@settings(max_examples=100, deadline=None)
@given(text=st.one_of(st.text(max_size=60), st.just("[" * 100000 + "]" * 100000), st.just("{" * 5000)))
def test_any_text_reads_or_fails_by_name(text):
    read_or_refuse(text)


CONFIG = {"name": "prop", "players": 2, "deals": 2, "seed": 1, "variant": "colored", "time_limit": 1.0,
          "mlflow": {"enabled": False}, "ray": {"workers": 0},
          "bots": [{"name": "m", "type": "mcts", "params": {"iterations": 20}, "seed": 3},
                   "random", {"type": "external", "params": {"command": ["x"], "move_time": 0.5}}]}


@SETTINGS
@given(data=st.data())
def test_a_mutated_config_parses_or_fails_by_name(data):
    mapping = data.draw(st.one_of(mutated(CONFIG), values))
    try:
        parse_config(mapping)
    except ConfigError as error:
        assert str(error).startswith("config: ")
