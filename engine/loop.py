"""The one game loop: deal, ask the seat to move, apply the move, report what happened.

    from engine import new_game
    from engine.loop import play

    state = new_game(players=2)
    for event in play(state, act=lambda seat, view: view.legal_moves()[0], deal_seed=lambda r: r):
        print(event)

Every caller that plays a game uses it: the league referee (tournament/game.py), the two-game
series (tournament/series.py), ``azul selfplay``, the ``azul play`` session (one ``step`` at a
time, so that a person can undo or load between steps) and the strength benchmark. What differs
between them lives in their ``act`` (a bot, a person, a timed and checked referee call) and in
what they do with the events.

``act(seat, view)`` is shown a copy of the state and returns a ``Move`` or its notation; whatever
it raises leaves the state as it was and ends the loop. ``deal_seed(round)`` gives the seed of
each deal, called once per deal in order (so a caller may draw it from its own generator).
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import NamedTuple

from .notation import Move
from .state import GameState, Played, RoundScore

Act = Callable[[int, GameState], "Move | str"]
DealSeed = Callable[[int], int]


class Dealt(NamedTuple):
    """A round was dealt (when nothing could be dealt, the game is over right after)."""

    round: int
    opener: int  # the seat that opens this round
    factories: tuple[str, ...]  # the deal, one string of letters per factory


class Moved(NamedTuple):
    """A seat moved: its ply number (from 1 in this loop), the round, how many moves were legal."""

    ply: int
    round: int
    legal: int
    played: Played


class RoundEnded(NamedTuple):
    """A round closed: what it scored per seat (after its last move, or after an empty deal)."""

    round: int
    scoring: list[RoundScore]


Event = Dealt | Moved | RoundEnded


def step(state: GameState, act: Act, deal_seed: DealSeed, ply: int = 0) -> Dealt | Moved:
    """One deal (phase refill) or one move (draft or tiling) on ``state``; ``ply`` counts moves so far."""
    if state.phase == "refill":
        rnd = state.round
        state.deal(seed=deal_seed(rnd))
        pos = state.to_json()
        return Dealt(rnd, pos["opener"], tuple(pos["factories"]))
    if state.is_over:
        raise ValueError("step: the game is over")
    rnd, legal = state.round, state.legal_move_count()
    move = act(state.to_move, state.clone())
    return Moved(ply + 1, rnd, legal, state.step(move))


def play(state: GameState, act: Act, deal_seed: DealSeed) -> Iterator[Event]:
    """Play ``state`` to the end, yielding each deal, move and round end as it happens."""
    ply = 0
    while not state.is_over:
        event = step(state, act, deal_seed, ply)
        yield event
        if type(event) is Moved:
            ply = event.ply
            if event.played.round_over:
                yield RoundEnded(event.round, state.round_scoring())
        elif state.is_over:  # an empty deal: no tile can move again
            yield RoundEnded(event.round, state.round_scoring())
