"""What the PettingZoo environment and the OpenSpiel game share: argument checks, the
observation layout and the end-of-game rewards. Needs neither library."""
from __future__ import annotations

import numpy as np

from .._rl import legal_mask, observation_size, observe, random_rollout
from ..notation import N_CODES
from ..rules import FACTORIES, VARIANTS, REFILL, complete_rows, ranks
from ..state import GameState

N_ACTIONS = N_CODES  # move codes: drafts (source * 5 + colour) * 6 + destination, gray tiling 300 + line * 5 + column
REWARDS = ("win", "score")
# The rounds an RL game may last: a game still going when round MAX_ROUNDS + 1 is due is
# truncated. Each wall holds at most 20 tiles without a complete row, so a game in which some tile
# reaches a wall every round ends by round 20 * players + 1 (81 for 4 players); only rounds where no
# tile reaches any wall can stretch it, and a table can repeat those forever (docs/rl.md).
MAX_ROUNDS = 100


def check_players(players) -> int:
    if isinstance(players, bool) or not isinstance(players, int) or players not in (2, 3, 4):
        raise ValueError(f"players must be 2, 3 or 4, not {players!r}")
    return players


def check_variant(variant) -> str:
    if variant not in VARIANTS:
        raise ValueError(f"variant must be 'colored' or 'gray', not {variant!r}")
    return variant


def check_reward(reward) -> str:
    if reward not in REWARDS:
        raise ValueError(f"reward must be 'win' or 'score', not {reward!r}")
    return reward


def observation_layout(players: int) -> dict[str, tuple[int, tuple[int, ...]]]:
    """Each field of an observation vector: name -> (offset, shape). Boards are ``board0``
    (the observing seat) to ``board{n-1}``, in seat order after it (docs/rl.md)."""
    n = check_players(players)
    fields = [("factories", (FACTORIES[n], 5)), ("centre", (5,)), ("marker", (n + 1,)), ("to_move", (n,)),
              ("bag", (5,)), ("lid", (5,)), ("round", (1,)), ("tiling", (1,))]
    for rel in range(n):
        fields += [(f"board{rel}.lines", (5, 5)), (f"board{rel}.wall", (5, 5, 5)),
                   (f"board{rel}.floor", (6,)), (f"board{rel}.score", (1,))]
    layout, at = {}, 0
    for name, shape in fields:
        layout[name] = (at, shape)
        at += int(np.prod(shape))
    assert at == observation_size(n)
    return layout


def split_observation(obs: np.ndarray, players: int) -> dict[str, np.ndarray]:
    """The fields of an observation vector as named views, shaped as in ``observation_layout``."""
    return {name: obs[at:at + int(np.prod(shape))].reshape(shape)
            for name, (at, shape) in observation_layout(players).items()}


def observation(state: GameState, seat: int | None = None) -> dict[str, np.ndarray]:
    """What the PettingZoo environment shows ``seat`` (default: the seat to move) in ``state``:
    ``{"observation": float32 vector, "action_mask": int8 per move code}``; the mask is all zero
    unless ``seat`` is to move."""
    seat = state.to_move if seat is None else seat
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < state.players:
        raise ValueError(f"seat must be from 0 to {state.players - 1}, not {seat!r}")
    obs = np.empty(observation_size(state.players), np.float32)
    observe(state._core, seat, obs)
    mask = np.zeros(N_ACTIONS, np.int8)
    if seat == state.to_move:
        legal_mask(state._core, mask)
    return {"observation": obs, "action_mask": mask}


def win_returns(final_ranks: list[int]) -> list[float]:
    """``reward="win"``: the seats ranked first share +1, the others share -1 (a lone winner of
    two gets +1 and the loser -1; of three, +1 and -1/2 each); when every seat ranks first, 0.
    The sum is always 0."""
    n, k = len(final_ranks), final_ranks.count(1)
    if k == n:
        return [0.0] * n
    return [1.0 / k if r == 1 else -1.0 / (n - k) for r in final_ranks]


def score_returns(scores: list[int]) -> list[float]:
    """``reward="score"``: each seat's final score minus the mean final score."""
    mean = sum(scores) / len(scores)
    return [s - mean for s in scores]


def rollout_ranks(state: GameState, seed: int) -> list[int]:
    """The final ranks of a copy of ``state`` played to the end with uniform random moves and
    deals drawn from ``seed``, in the compiled core (the loop of ``random_playouts``); ``state``
    itself is unchanged. For leaf values in a search (bots/openspiel_mcts.py)."""
    scores, rows = random_rollout(state._core, seed)
    return ranks(scores, rows)


def truncated(state: GameState) -> bool:
    """Whether the game is cut off at the round limit: round MAX_ROUNDS + 1 is due to be dealt."""
    core = state._core
    return core.phase == REFILL and core.round > MAX_ROUNDS


def standing_ranks(state: GameState) -> list[int]:
    """The final ranks of a finished game; of a truncated one, the ranks as it stands (score,
    then complete rows; no end bonuses)."""
    pos = state.to_json()
    if "ranks" in pos:
        return pos["ranks"]
    return ranks([b["score"] for b in pos["boards"]], [complete_rows(b["wall"]) for b in pos["boards"]])


def final_returns(state: GameState, reward: str) -> list[float]:
    """The rewards of a finished or truncated game (``standing_ranks``)."""
    if reward == "win":
        return win_returns(standing_ranks(state))
    return score_returns(list(state.scores))


def check_action(action) -> int:
    """An action as a move code: an integer (Python or numpy, or a 0-d integer array) from 0 to
    N_ACTIONS - 1; anything else (a float, even 2.0; a bool) is a ValueError."""
    if type(action) is not int:
        if isinstance(action, np.ndarray) and action.ndim == 0:
            action = action[()]
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
            raise ValueError(f"action must be a move code from 0 to {N_ACTIONS - 1} (an integer), "
                             f"not {action!r}")
        action = int(action)
    if not 0 <= action < N_ACTIONS:
        raise ValueError(f"action must be a move code from 0 to {N_ACTIONS - 1}, not {action!r}")
    return action


__all__ = ["MAX_ROUNDS", "N_ACTIONS", "VARIANTS", "REWARDS", "check_action", "observation", "observation_layout",
           "rollout_ranks", "split_observation", "standing_ranks", "truncated", "win_returns", "score_returns",
           "final_returns"]
