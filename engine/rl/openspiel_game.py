"""Azul as an OpenSpiel Python game, ``python_azul`` (SPEC section 7, docs/rl.md).

Deals are explicit chance nodes, one tile at a time: the outcome is a colour (action 0..4 in
B Y R K W order), drawn from the bag with probability count / total; when the bag runs out, the
whole lid goes into it, as the rules say. Factory 1 is filled first, four tiles each. Once a
round's tiles are all drawn, they are installed with the engine's checked forced deal
(``GameState.deal(factories=...)``), which is the deal ``deal(seed=...)`` would have made had its
generator drawn the same colours.

A game still going when round ``MAX_ROUNDS + 1`` is due is truncated: terminal, its returns those
of the position as it stands, so ``max_game_length`` is a true bound. ``serialize()`` and
``game.deserialize_state(text)`` use a JSON text of this module's own (the start and the actions),
parsed and replayed move by move; nothing is unpickled.
"""
from __future__ import annotations

import json

import numpy as np
import pyspiel

from .._rl import observation_size, observe
from ..notation import MOVES
from ..rules import COLOUR_NAMES, COLOURS, FACTORIES, OVER, REFILL
from ..state import GameState, new_game
from .common import (MAX_ROUNDS, N_ACTIONS, check_players, check_variant, observation_layout, standing_ranks,
                     truncated, win_returns)

NAME = "python_azul"
STATE_FORMAT = "python_azul-state/1"  # what serialize() writes and deserialize_state() reads


def game_type() -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=NAME,
        long_name="Python Azul",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=4,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={"players": 2, "variant": "colored"},
    )


def max_game_length(players: int) -> int:
    """The most actions a game can take, chance included: MAX_ROUNDS rounds (then it is
    truncated), each at most 4 tiles a factory drawn, as many drafts (a draft takes a tile or
    more), and five tiling moves per seat."""
    return MAX_ROUNDS * (8 * FACTORIES[players] + 5 * players)


class AzulGame(pyspiel.Game):
    """``pyspiel.load_game("python_azul(players=3,variant=gray)")`` once registered."""

    def __init__(self, params=None):
        params = dict(params or {})
        self.players = check_players(params.get("players", 2))
        self.variant = check_variant(params.get("variant", "colored"))
        info = pyspiel.GameInfo(
            num_distinct_actions=N_ACTIONS, max_chance_outcomes=5, num_players=self.players,
            min_utility=-1.0, max_utility=1.0, utility_sum=0.0,
            max_game_length=max_game_length(self.players))
        super().__init__(game_type(), info, {"players": self.players, "variant": self.variant})

    def new_initial_state(self):
        return AzulState(self)

    def deserialize_state(self, text: str) -> "AzulState":
        """The state ``state.serialize()`` wrote: its JSON parsed and checked, the start position
        read with the engine's checks, the actions replayed one by one as legal actions. Anything
        else is a ValueError; the text is never unpickled (OpenSpiel's own form for Python games,
        ``history=...__dict__=<pickle>``, is refused)."""
        if not isinstance(text, str):
            raise ValueError(f"python_azul: a serialized state is text, not {type(text).__name__}")
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            data = None
        if not isinstance(data, dict) or data.get("format") != STATE_FORMAT:
            raise ValueError(f"python_azul: not a serialized state (a JSON object with format "
                             f"{STATE_FORMAT!r}, from state.serialize()): {text[:60]!r}")
        if set(data) != {"format", "start", "actions"}:
            raise ValueError(f"python_azul: a serialized state has the fields format, start, actions, "
                             f"not {sorted(data)}")
        actions = data["actions"]
        if not isinstance(actions, list) or not all(type(a) is int for a in actions):
            raise ValueError("python_azul: serialized state: actions must be a list of integers")
        state = AzulState(self)
        if data["start"] is not None:
            try:
                state.set_position(GameState.from_json(data["start"]))
            except ValueError as exc:
                raise ValueError(f"python_azul: serialized state: start: {exc}") from None
        for i, action in enumerate(actions):
            allowed = ([a for a, _ in state.chance_outcomes()] if state.is_chance_node()
                       else [] if state.is_terminal() else state.legal_actions())
            if action not in allowed:
                raise ValueError(f"python_azul: serialized state: action {i} ({action}) is not legal there")
            state.apply_action(action)
        return state

    def make_py_observer(self, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"python_azul observers take no parameters, not {params}")
        return AzulObserver(self.players, bool(iig_obs_type and iig_obs_type.perfect_recall))


class AzulState(pyspiel.State):
    """One node of a game: a position, plus the tiles drawn so far while a deal is in progress."""

    def __init__(self, game: AzulGame):
        super().__init__(game)
        self.position = new_game(game.players, game.variant)
        self.start: dict | None = None  # the position set_position put it at, if any
        self.start_ply = 0  # the history's length then
        self._begin_deal()

    # ------------------------------------------------------------ the OpenSpiel API
    def current_player(self) -> int:
        phase = self.position._core.phase
        if phase == OVER:
            return pyspiel.PlayerId.TERMINAL
        if phase == REFILL:
            return pyspiel.PlayerId.TERMINAL if truncated(self.position) else pyspiel.PlayerId.CHANCE
        return self.position._core.to_move

    def is_terminal(self) -> bool:
        """The game is over, or truncated (round MAX_ROUNDS + 1 is due)."""
        core = self.position._core
        phase = core.phase
        return phase == OVER or (phase == REFILL and core.round > MAX_ROUNDS)  # common.truncated

    def _legal_actions(self, player: int) -> list[int]:
        return self.position._core.legal_codes()  # ascending, as OpenSpiel wants

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The colours the next tile can be, each with its share of the bag."""
        total = sum(self.bag)
        return [(c, n / total) for c, n in enumerate(self.bag) if n]

    def _apply_action(self, action: int) -> None:
        if self.is_terminal():
            raise ValueError(f"python_azul: action {action} after the end of the game")
        if self.position._core.phase == REFILL:
            self._draw(action)
        else:
            self.position.play(MOVES[action])
            if self.position._core.phase == REFILL:
                self._begin_deal()

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"draw {COLOUR_NAMES[action]}"
        return str(MOVES[action])

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * self.position.players
        return win_returns(standing_ranks(self.position))

    def __str__(self) -> str:
        return json.dumps(self.position_json(), separators=(",", ":"))

    def serialize(self) -> str:
        """This state as JSON text: ``{"format": "python_azul-state/1", "start": null or the
        position set_position put it at, "actions": the actions since}``, read back by
        ``game.deserialize_state``."""
        return json.dumps({"format": STATE_FORMAT, "start": self.start,
                           "actions": [int(a) for a in self.history()[self.start_ply:]]},
                          separators=(",", ":"))

    def set_position(self, position: GameState) -> None:
        """Put this state at a copy of ``position`` (same players and variant), for a search that
        starts from a position rather than from the first deal. The OpenSpiel history is left as
        it was (empty for a new state)."""
        if (position.players, position.variant) != (self.position.players, self.position.variant):
            raise ValueError(f"set_position: a {position.players}-player {position.variant} position, "
                             f"this game is {self.position.players}-player {self.position.variant}")
        self.position = position.clone()
        self.start, self.start_ply = self.position.to_json(), len(self.history())
        self._begin_deal()

    # ------------------------------------------------------------ dealing, one tile at a time
    def _begin_deal(self) -> None:
        """Start the round's deal: the bag and lid it draws from, and how many tiles it takes."""
        raw = self.position._core.export()
        self.bag, self.lid = raw["bag"], raw["lid"]
        self.drawn: list[int] = []
        self.to_draw = min(4 * len(raw["factories"]), sum(self.bag) + sum(self.lid))
        if self.position._core.phase != REFILL:
            return
        self._refill_bag()
        if self.to_draw == 0:  # neither bag nor lid holds a tile: the game ends (4 players only)
            self._install_deal()

    def _refill_bag(self) -> None:
        if not any(self.bag):
            self.bag, self.lid = self.lid, [0] * 5

    def _draw(self, colour: int) -> None:
        if not (0 <= colour < 5 and self.bag[colour]):
            raise ValueError(f"python_azul: no {COLOURS[colour] if 0 <= colour < 5 else colour} in the bag")
        self.bag[colour] -= 1
        self.drawn.append(colour)
        if len(self.drawn) == self.to_draw:
            self._install_deal()
        else:
            self._refill_bag()

    def _install_deal(self) -> None:
        factories = ["".join(COLOURS[c] for c in self.drawn[i:i + 4])
                     for i in range(0, 4 * FACTORIES[self.position.players], 4)]
        self.position.deal(factories=factories)
        self.drawn = []

    def position_json(self) -> dict:
        """The position in the ``azul-position/1`` format; during a deal, the tiles drawn so far
        stand in their factories and bag and lid are as drawing left them (phase still refill)."""
        pos = self.position.to_json()
        if self.position._core.phase == REFILL:
            for i in range(0, len(self.drawn), 4):
                pos["factories"][i // 4] = "".join(sorted((COLOURS[c] for c in self.drawn[i:i + 4]),
                                                          key=COLOURS.index))
            pos["bag"], pos["lid"] = dict(zip(COLOURS, self.bag)), dict(zip(COLOURS, self.lid))
        return pos


class AzulObserver:
    """Observation and information-state tensors (engine/_rl.pyx, docs/rl.md) and strings.

    Azul has perfect information: the tensor from a player's point of view is the whole position,
    for both kinds. The observation string is the position JSON; the information-state string
    (perfect recall) is the history of actions, chance outcomes included.
    """

    def __init__(self, players: int, perfect_recall: bool):
        self.players = players
        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(observation_size(players), np.float32)
        self.dict = {"observation": self.tensor}
        layout = observation_layout(players)
        self._factories = layout["factories"][0]
        self._bag = layout["bag"][0]
        self._lid = layout["lid"][0]

    def set_from(self, state: AzulState, player: int) -> None:
        observe(state.position._core, player, self.tensor)
        if state.position._core.phase == REFILL:
            for i, c in enumerate(state.drawn):
                self.tensor[self._factories + (i // 4) * 5 + c] += 1
            self.tensor[self._bag:self._bag + 5] = state.bag
            self.tensor[self._lid:self._lid + 5] = state.lid

    def string_from(self, state: AzulState, player: int) -> str:
        if self.perfect_recall:
            return f"player {player}: " + " ".join(map(str, state.history()))
        return str(state)


def register() -> None:
    """Register ``python_azul`` with pyspiel (once; later calls do nothing)."""
    if NAME not in pyspiel.registered_names():
        pyspiel.register_game(game_type(), AzulGame)
