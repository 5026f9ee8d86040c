"""Azul as an OpenSpiel Python game, ``python_azul`` (SPEC section 7, docs/rl.md).

Deals are explicit chance nodes, one tile at a time: the outcome is a colour (action 0..4 in
B Y R K W order), drawn from the bag with probability count / total; when the bag runs out, the
whole lid goes into it, as the rules say. Factory 1 is filled first, four tiles each. Once a
round's tiles are all drawn, they are installed with the engine's checked forced deal
(``GameState.deal(factories=...)``), which is the deal ``deal(seed=...)`` would have made had its
generator drawn the same colours.
"""
from __future__ import annotations

import json

import numpy as np
import pyspiel

from .._rl import observation_size, observe
from ..notation import MOVES
from ..rules import COLOUR_NAMES, COLOURS, FACTORIES, OVER, REFILL
from ..state import GameState, new_game
from .common import N_ACTIONS, check_players, check_variant, observation_layout, win_returns

NAME = "python_azul"


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
    """A bound for 100 rounds: per round at most 4 tiles a factory drawn, as many drafts, and
    five tiling moves per seat. Azul itself has no bound (a table that sends every tile to the
    floor never ends a round with a complete row); games of random play last about 5 to 10."""
    return 100 * (8 * FACTORIES[players] + 5 * players)


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

    def make_py_observer(self, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"python_azul observers take no parameters, not {params}")
        return AzulObserver(self.players, bool(iig_obs_type and iig_obs_type.perfect_recall))


class AzulState(pyspiel.State):
    """One node of a game: a position, plus the tiles drawn so far while a deal is in progress."""

    def __init__(self, game: AzulGame):
        super().__init__(game)
        self.position = new_game(game.players, game.variant)
        self._begin_deal()

    # ------------------------------------------------------------ the OpenSpiel API
    def current_player(self) -> int:
        phase = self.position._core.phase
        if phase == OVER:
            return pyspiel.PlayerId.TERMINAL
        if phase == REFILL:
            return pyspiel.PlayerId.CHANCE
        return self.position._core.to_move

    def is_terminal(self) -> bool:
        return self.position._core.phase == OVER

    def _legal_actions(self, player: int) -> list[int]:
        return self.position._core.legal_codes()  # ascending, as OpenSpiel wants

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The colours the next tile can be, each with its share of the bag."""
        total = sum(self.bag)
        return [(c, n / total) for c, n in enumerate(self.bag) if n]

    def _apply_action(self, action: int) -> None:
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
        return win_returns(self.position.to_json()["ranks"])

    def __str__(self) -> str:
        return json.dumps(self.position_json(), separators=(",", ":"))

    def set_position(self, position: GameState) -> None:
        """Put this state at a copy of ``position`` (same players and variant), for a search that
        starts from a position rather than from the first deal. The OpenSpiel history is left as
        it was (empty for a new state)."""
        if (position.players, position.variant) != (self.position.players, self.position.variant):
            raise ValueError(f"set_position: a {position.players}-player {position.variant} position, "
                             f"this game is {self.position.players}-player {self.position.variant}")
        self.position = position.clone()
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
