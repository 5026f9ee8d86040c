"""Who plays whom, in which seats, on which deals: the schedule of a league, and every seed in it.

A league is a round-robin over tables: every pair of bots for 2 players, every k-subset of the
bots for k players. Each table plays every deal once per seat arrangement (every cyclic rotation,
or every permutation), so the luck of the draw cancels between the bots at a table. With
``self_play``, one more table per bot seats that bot in every seat (``self_tables``), numbered
after the round-robin's tables, so the round-robin's table numbers and game ids do not change.

Everything here is a pure function of the config: game ids, deal seeds and bot seeds come out the
same on every run, which is what lets ``--resume`` know what is done and a retried game replay
exactly. Seeds are derived with ``derive_seed`` (BLAKE2b of the parts' text, 63 bits, computed in
tournament/_seeds.pyx, which the compiled league loop shares):

- the deal seed of deal d (the same deal for every table of the league):
  ``derive_seed(config.seed, "deal", d)``;
- the seed of the deal of round r (1-based) of a game: ``round_seed(deal_seed, r)``
  = ``derive_seed(deal_seed, "round", r)``, handed to ``GameState.deal(seed=...)``;
- a bot's seed in one game: ``derive_seed(bot.seed, "game", game_id)``; in a self-play game
  (every seat the same bot) the copy in seat s > 0 gets ``derive_seed(bot.seed, "game", game_id,
  "copy", s)`` instead (see ``bot_game_seed``), so the copies do not play alike;
- with ``match: series``, game g of a series on a deal: ``series_deal_seed(deal_seed, g)`` (game 1
  plays the deal seed itself, game 2 ``derive_seed(deal_seed, "series", 2)``).
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from operator import itemgetter
from dataclasses import dataclass
from typing import NamedTuple

from ._seeds import seed_of

SEAT_MODES = ("balanced", "rotate", "permute")
MATCHES = ("game", "series")  # a league's match unit: one game, or a two-game series
SERIES_GAMES = 2


def derive_seed(*parts: object) -> int:
    """A 63-bit seed from the text of ``parts``: stable across runs, platforms and Python versions.

    The hash is tournament/_seeds.pyx's BLAKE2b, the one the compiled league loop uses too."""
    return seed_of("\x1f".join(map(str, parts)).encode())


def round_seed(deal_seed: int, round_number: int) -> int:
    """The seed of the deal of round ``round_number`` (1-based) of a game with ``deal_seed``."""
    return derive_seed(deal_seed, "round", round_number)


def deal_seed(league_seed: int, deal: int) -> int:
    """The seed of deal ``deal`` (0-based) of a league: every table plays the same deals."""
    return derive_seed(league_seed, "deal", deal)


def series_deal_seed(deal_seed: int, game: int) -> int:
    """The deal seed of game ``game`` (1-based) of a series: game 1 plays ``deal_seed`` itself."""
    return deal_seed if game == 1 else derive_seed(deal_seed, "series", game)


def bot_game_seed(bot_seed: int, game_id: str, copy: int = 0) -> int:
    """The seed a bot is built with for one game.

    ``copy`` counts the earlier seats of the game that hold the same bot: 0 in a game of distinct
    bots (the seed every game had before self-play), 1, 2, ... for the further copies of a bot
    that plays itself, each with a seed of its own.
    """
    if copy == 0:
        return derive_seed(bot_seed, "game", game_id)
    return derive_seed(bot_seed, "game", game_id, "copy", copy)


def arrangements(players: int, seats: str, deal: int = 0) -> list[tuple[int, ...]]:
    """Seat arrangements of a table on deal ``deal``: ``arr[s]`` is the table member
    (0..players-1) in seat s. Arrangement 0 is the identity on every even deal.

    ``balanced`` (the default): every member sits in every seat equally often and follows every
    other member equally often (docs/league.md, "Seating"). At 2 players the 2 rotations; at 3 the
    6 permutations (the two cyclic orders, each in its 3 rotations); at 4, 12 seatings a deal, over
    each pair of deals 24 (``balanced_cycles``), so a 4-player league plays an even number of
    deals. ``rotate``: every cyclic rotation (``players`` of them): at 3 and 4 players each member
    then always follows the same one, fixed by the config's order. ``permute``: every permutation
    (``players!``).
    """
    if seats == "balanced":
        blocks = balanced_cycles(players)
        return [c[r:] + c[:r] for c in blocks[deal % len(blocks)] for r in range(players)]
    if seats == "rotate":
        return [tuple((s + r) % players for s in range(players)) for r in range(players)]
    if seats == "permute":
        return list(itertools.permutations(range(players)))
    raise ValueError(f"seats must be one of {', '.join(SEAT_MODES)}, not {seats!r}")


def balanced_cycles(players: int) -> list[list[tuple[int, ...]]]:
    """The cyclic orders (who follows whom) ``balanced`` seats a table in, one list per deal of
    its block; each is played in every rotation.

    At 2 and 3 players one deal plays every cyclic order: (0, 1) at 2; (0, 1, 2) and (0, 2, 1) at
    3. At 4 players the six cyclic orders cost 24 games a deal, and no set of them in which every
    member follows every other exactly once exists (12 ordered pairs, 4 per order: it would take
    three orders, and none of the three sets does it). So the block is two deals: the first plays
    three orders in which every unordered pair of members sits side by side twice, the second
    their reverses; over the pair of deals every member follows every other in 2 orders, 8 games.
    """
    if players == 4:
        first = [(0, 1, 2, 3), (0, 2, 3, 1), (0, 3, 1, 2)]
        return [first, [(c[0],) + c[:0:-1] for c in first]]
    base = tuple(range(players))
    return [[base] if players < 3 else [base, (0,) + base[:0:-1]]]


def deal_block(players: int, seats: str) -> int:
    """How many deals the seating takes to balance: 2 for ``balanced`` at 4 players, else 1."""
    return len(balanced_cycles(players)) if seats == "balanced" else 1


def seat_blocks(players: int, seats: str) -> list[list[tuple[int, ...]]]:
    """The arrangements of each deal of the seating's block (``table_games`` plays deal d in
    ``seat_blocks(...)[d % len]``)."""
    return [arrangements(players, seats, d) for d in range(deal_block(players, seats))]


def seat_cycle(players: int, seats: str) -> list[tuple[int, ...]]:
    """The arrangements of a whole block of deals in turn: for a schedule that seats a table once
    a deal (the tune's field) and so balances over ``len(seat_cycle(...))`` deals."""
    return [a for block in seat_blocks(players, seats) for a in block]


def tables(n_bots: int, players: int, self_play: bool = False) -> list[tuple[int, ...]]:
    """Every table of the round-robin: the k-subsets of the bots (indices), in order; with
    ``self_play``, then the self tables (``self_tables``)."""
    round_robin = list(itertools.combinations(range(n_bots), players))
    return round_robin + (self_tables(n_bots, players) if self_play else [])


def self_tables(n_bots: int, players: int) -> list[tuple[int, ...]]:
    """One table per bot with that bot in every seat: ``(i,) * players``, in bot order.

    Every seat arrangement of such a table is the same lineup, so a self table plays each deal
    once, in arrangement 0 (the bot's copies differ only in their seeds: ``bot_game_seed``).
    """
    return [(i,) * players for i in range(n_bots)]


class GameSpec(NamedTuple):
    """One game of the schedule: enough for a worker to play it.

    A named tuple: immutable, and the cheapest record Python builds, which a league of millions
    of cheap games builds once per game (a slotted dataclass takes twice as long)."""

    game_id: str
    table: int
    deal: int
    arrangement: int
    deal_seed: int
    seats: tuple[int, ...]  # bot index (into config.bots) in each seat
    opener: int = 0  # the seat that opens round 1
    series_game: int | None = None  # 1 or 2 in a league of series, None in a league of games
    # A study's game (kinds/study.py): each seat's bot seed, shared by its treatment and
    # control games (None: ``bot_game_seed``), the intervention it plays (``control`` in the
    # control game) and the seat that plays it; all None in a league.
    bot_seeds: tuple[int, ...] | None = None
    intervention: str | None = None
    study_seat: int | None = None
    # A Swiss or knockout event's game (tournament/events/): ``EventPlace`` (its round, its
    # pairing's number in the round, the bots with a bye in that round); None in a league.
    event: EventPlace | None = None


class EventPlace(NamedTuple):
    """Where an event's game sits: the records' ``event_round``, ``pairing`` and ``event_byes``."""

    round: int  # 1-based
    pairing: int  # 1-based, within the round: a Swiss board, a knockout bracket slot
    byes: tuple[str, ...] = ()  # the bots (names) with a bye in this round


def game_id(table: int, deal: int, arrangement: int) -> str:
    """``t<table>-d<deal>-a<arrangement>``, zero-padded so ids sort in schedule order."""
    return f"{_id_head(table)}{deal:05d}{_id_tail(arrangement)}"


def _id_head(table: int) -> str:
    return f"t{table:03d}-d"


def _id_tail(arrangement: int) -> str:
    return f"-a{arrangement:02d}"


@dataclass(frozen=True, slots=True)
class Slice:
    """Games ``start`` to ``stop - 1`` of a league's own schedule: how the driver hands a fresh
    league's games to its tasks without building each one (``games_of`` builds them)."""

    start: int
    stop: int


def league_games(config, part: Slice | None = None) -> Iterator[GameSpec]:
    """The games of a league's schedule (``config``: its ``LeagueConfig``), or of one slice of it."""
    args = (len(config.bots), config.players, config.deals, config.seats, config.seed, config.match,
            config.self_play)
    if part is None:
        return schedule(*args)
    return itertools.islice(schedule(*args, start=part.start), part.stop - part.start)


def games_of(config, batch: list[GameSpec] | Slice) -> list[GameSpec]:
    """A batch's games: a list of them already, or a slice of the config's schedule."""
    return list(league_games(config, batch)) if isinstance(batch, Slice) else batch


def pack_games(batch: list[GameSpec] | Slice) -> tuple[tuple, ...] | Slice:
    """How a batch travels to a Ray task: a slice as it is, a list as one tuple per GameSpec field
    (a fifth of the bytes, and a tenth of the driver's time, of pickling the specs one by one)."""
    return batch if isinstance(batch, Slice) else tuple(zip(*batch))


def unpack_games(config, packed: tuple[tuple, ...] | Slice) -> list[GameSpec]:
    """The games ``pack_games`` packed (``config``: the league's, for a slice)."""
    return games_of(config, packed) if isinstance(packed, Slice) else list(map(GameSpec._make, zip(*packed)))


def series_id(spec: GameSpec) -> str | None:
    """The id shared by the games of one series (``t<table>-d<deal>-a<arrangement>``), or None."""
    return None if spec.series_game is None else spec.game_id.rpartition("-s")[0]


def event_values(spec: GameSpec) -> tuple[int | None, int | None, list[str] | None]:
    """The game's ``event_round``, ``pairing`` and ``event_byes`` (all None outside an event)."""
    e = spec.event
    return (None, None, None) if e is None else (e.round, e.pairing, list(e.byes))


def event_columns(specs: list[GameSpec]) -> dict[str, list]:
    """The event columns of the games of ``specs`` (none when no game is an event's)."""
    if not any(s.event for s in specs):
        return {}
    rounds, pairings, byes = zip(*map(event_values, specs))
    return {"event_round": list(rounds), "pairing": list(pairings), "event_byes": list(byes)}


def count_games(n_bots: int, players: int, deals: int, seats: str, match: str = "game",
                self_play: bool = False) -> int:
    """How many games a league has: tables x deals x arrangements (x 2 for series), plus with
    ``self_play`` one game per bot and deal (x 2 for series)."""
    n_arr = len(arrangements(players, seats))
    per_match = SERIES_GAMES if match == "series" else 1
    self_games = n_bots * deals if self_play else 0
    return (math.comb(n_bots, players) * deals * n_arr + self_games) * per_match


def schedule(n_bots: int, players: int, deals: int, seats: str, seed: int,
             match: str = "game", self_play: bool = False, start: int = 0) -> Iterator[GameSpec]:
    """Every game of a league, deal by deal, table by table, arrangement by arrangement.

    Lazy: a league of millions of games costs no memory to schedule. Deal-major order means
    every table makes progress together, so the standings are fair at any moment. With
    ``match="series"`` each scheduled game becomes the two games of a series, one after the
    other (see ``series_games``). With ``self_play`` each deal ends with the self tables (one
    game each, arrangement 0); the round-robin's games are the same as without it.
    ``start``: begin at that position of the schedule (0-based; the games before it are not made).
    """
    if match not in MATCHES:
        raise ValueError(f"match must be one of {', '.join(MATCHES)}, not {match!r}")
    all_tables = tables(n_bots, players)
    n_round_robin = len(all_tables)
    all_tables += self_tables(n_bots, players) if self_play else []
    blocks = seat_blocks(players, seats)
    lineups = blocks[0]  # every deal of the block has as many
    per_match = SERIES_GAMES if match == "series" else 1
    # where ``start`` falls: its deal, then its table (a round-robin table plays every lineup, a
    # self table one), its lineup, and its game of the series
    first_deal, at = divmod(start, count_games(n_bots, players, 1, seats, match, self_play))
    round_robin_games = n_round_robin * len(lineups) * per_match
    if at < round_robin_games:
        first_table, at = divmod(at, len(lineups) * per_match)
    else:
        first_table, at = divmod(at - round_robin_games, per_match)
        first_table += n_round_robin
    first_arrangement, skip = divmod(at, per_match)
    games = table_games(all_tables, n_round_robin, blocks, deals, seed, match == "series", first_deal,
                        first_table, first_arrangement)
    return itertools.islice(games, skip, None)


def table_games(all_tables: list[tuple[int, ...]], n_round_robin: int, blocks: list[list[tuple[int, ...]]],
                deals: int, seed: int, series: bool, first_deal: int = 0, first_table: int = 0,
                first_arrangement: int = 0) -> Iterator[GameSpec]:
    """The games of a list of tables (each a tuple of bot indices), deal by deal, table by table:
    a round-robin table (the first ``n_round_robin``) in every seat arrangement of its deal's
    lineups (deal d plays ``blocks[d % len(blocks)]``, each list as long), a later one (a self
    table) in arrangement 0 only; ids ``t<table>-d<deal>-a<arrangement>``, deal seeds from
    ``seed``; with ``series``, each game as the two of its series (``series_games``).

    ``schedule`` calls it with the round-robin's tables, a gauntlet with its own; lazy, from deal
    ``first_deal``, table ``first_table``, arrangement ``first_arrangement`` on (tables and
    arrangements counted from 0 in every later deal)."""
    seats_of = [[itemgetter(*arr) for arr in lineups] for lineups in blocks]  # members in each seat
    tails = [_id_tail(a) for a in range(len(blocks[0]))]
    heads = [_id_head(t) for t in range(len(all_tables))]
    for d in range(first_deal, deals):
        dseed, seating = deal_seed(seed, d), seats_of[d % len(blocks)]
        for t in range(first_table if d == first_deal else 0, len(all_tables)):
            members, head = all_tables[t], heads[t]
            a0 = first_arrangement if d == first_deal and t == first_table else 0
            for a in range(a0, len(seating) if t < n_round_robin else 1):
                spec = GameSpec(f"{head}{d:05d}{tails[a]}", t, d, a, dseed, seating[a](members))
                if series:
                    yield from series_games(spec)
                else:
                    yield spec


def series_games(spec: GameSpec) -> list[GameSpec]:
    """The two games of a series on a scheduled game: same table, deal and seating.

    Ids ``<game id>-s1`` and ``-s2``; game 1 plays the deal seed and opens with seat 0, game 2
    plays ``series_deal_seed(deal_seed, 2)`` and opens with the next seat clockwise (seat 1).
    """
    players = len(spec.seats)
    return [GameSpec(f"{spec.game_id}-s{g}", spec.table, spec.deal, spec.arrangement,
                     series_deal_seed(spec.deal_seed, g), spec.seats, (g - 1) % players, g, event=spec.event)
            for g in range(1, SERIES_GAMES + 1)]

