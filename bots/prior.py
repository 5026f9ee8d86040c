"""The policy prior (issue 46; docs/bots.md, "The policy prior"): a softmax over the legal moves
of a linear score of each move's features (bots/_prior.pyx computes them in C), its weights kept
as the ``policy`` section of a model file beside the value (bots/model_container.py), and a
plain-Python reference of every feature, read from the position format, that the compiled
features are tested against.

    weights = PolicyPrior.from_model(model_bytes("value-2p"))  # None: the file holds no policy
    _prior.prior(state, weights.weights)                        # {move code: probability}
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine import GameState
from engine.rules import COLOURS, WALL, wall_colour

from . import _prior
from .model_container import Section, unpack

FEATURES = _prior.FEATURES
FORMAT = "azul-policy/1"
SECTION = "policy"


@dataclass
class PolicyPrior:
    """The prior's weights, one a feature (``FEATURES``), and the player count they were fitted for."""

    weights: np.ndarray
    players: int

    def __post_init__(self):
        self.weights = np.asarray(self.weights, dtype=np.float64)
        if self.weights.shape != (len(FEATURES),) or not np.all(np.isfinite(self.weights)):
            raise ValueError(f"policy: {len(FEATURES)} finite weights (one a feature: {', '.join(FEATURES)})")
        if self.players not in (2, 3, 4):
            raise ValueError(f"policy: players must be 2, 3 or 4, not {self.players!r}")

    def probabilities(self, state: GameState) -> dict[int, float]:
        """{move code: prior} of the state's legal moves (they sum to 1)."""
        return _prior.prior(state, self.weights)

    def section(self) -> Section:
        """The model file's ``policy`` section."""
        return Section({"format": FORMAT, "features": list(FEATURES), "players": self.players},
                       {"weights": self.weights.astype(np.float32)})

    @classmethod
    def from_section(cls, section: Section, where: str = "model") -> PolicyPrior:
        """The prior of a ``policy`` section; a ValueError names what is wrong."""
        header = section.header
        if header.get("format") != FORMAT:
            raise ValueError(f"{where}: its policy section's format is {header.get('format')!r}, not {FORMAT!r}")
        if header.get("features") != list(FEATURES):
            raise ValueError(f"{where}: its policy section's features are {header.get('features')!r}, not "
                             f"this version's {list(FEATURES)}")
        weights = section.arrays.get("weights")
        if weights is None:
            raise ValueError(f"{where}: its policy section has no 'weights'")
        try:
            return cls(weights, header.get("players"))
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}") from None

    @classmethod
    def from_model(cls, data: bytes, where: str = "model") -> PolicyPrior | None:
        """The prior kept in a model file's bytes; None when the file holds none."""
        section = unpack(data, where).sections.get(SECTION)
        return None if section is None else cls.from_section(section, where)


def reference_features(state: GameState) -> tuple[list[int], np.ndarray]:
    """``_prior.features`` in plain Python, from the position format and greedy's move values
    (bots._policies.Policy): the test's reference."""
    from ._policies import Policy

    position = state.to_json()
    moves = state.legal_moves()
    greedy = Policy("greedy").values(state)
    board = position["boards"][position["to_move"]]
    lines, wall = board["lines"], board["wall"]
    centre = position["center"]
    out = np.zeros((len(moves), len(FEATURES)), dtype=np.float32)
    for i, move in enumerate(moves):
        text = str(move)
        if position["phase"] != "draft":
            continue
        from_centre = text[0] == "C"
        source = centre if from_centre else position["factories"][int(text[0]) - 1]
        letter = text[1]
        colour = COLOURS.index(letter)
        tiles = source.count(letter)
        to_floor = text[2] == "F"
        row = None if to_floor else int(text[2]) - 1
        put = 0 if to_floor else min(row + 1 - len(lines[row]), tiles)
        f = dict.fromkeys(FEATURES, 0.0)
        f.update(center=from_centre, marker=from_centre and position["marker"] == "center", taken=tiles,
                 floor=to_floor, placed=put, overflow=tiles - put, greedy=greedy[move.code],
                 left_in_center=len(centre) - tiles if from_centre else len(centre) + len(source) - tiles)
        if not to_floor:
            f["completes"] = len(lines[row]) + put == row + 1
            f["line"] = row + 1
            if position["variant"] == "colored":
                column = next(c for c in range(WALL) if wall_colour(row, c) == colour)
                f["column_tiles"] = sum(wall[r][column] != "." for r in range(WALL))
            f["colour_tiles"] = sum(r.count(letter) for r in wall)
            f["row_tiles"] = sum(x != "." for x in wall[row])
            f["extends"] = len(lines[row]) > 0
        out[i] = [float(f[name]) for name in FEATURES]
    return [m.code for m in moves], out
