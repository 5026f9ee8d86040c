"""The league kind: a round-robin, or an event format (gauntlet, Swiss, knockout), played from a
league config (``azul league run``; tournament/config.py, tournament/events/)."""
from __future__ import annotations

from typing import Any

from records.names import CONFIG_FILE
from records.store import RunStore
from tournament.config import ConfigError, LeagueConfig, parse_config, read_stored_yaml

from .base import RunKind, StatusDetail, failures_text, register, settings_command


def saved_config(run: RunStore) -> LeagueConfig | None:
    """The league config a run was started with (its ``config.yaml``), or None if unreadable."""
    try:
        store = RunStore(run)
        return parse_config(read_stored_yaml(store, CONFIG_FILE), source=store.where(CONFIG_FILE))
    except ConfigError:
        return None


class StandingsDetail(StatusDetail):
    """A league driver's run as it stands: each bot's standing (``tournament.standings.BotStanding``)
    and the failures by kind. The status prints the failures and draws the standings; the leader
    (of the bots with games against others) is ahead."""

    def __init__(self, standings: list, failures: dict[str, int]):
        self.rows, self.failures = list(standings), dict(failures)

    def as_dict(self) -> dict[str, Any]:
        return {"standings": [s.as_dict() for s in self.rows], "failures": dict(self.failures)}

    def lines(self, models: list[str]) -> list[str]:
        return [f"failures: {failures_text(self.failures)}", *models]

    def standings(self) -> list:
        return self.rows

    def ahead(self) -> str | None:
        played = [s for s in self.rows if s.games]  # a bot only in self-play: none counted
        if not played:
            return None
        top = played[0]
        elo = "" if top.elo is None else f", elo {top.elo:+.0f}"
        return f"{top.bot} ({top.win_rate:.1%} win rate{elo})"


def standings_detail(run: RunStore) -> StatusDetail:
    """A league driver's run as it stands (``StandingsDetail``); an empty detail when the saved
    config cannot be read."""
    from tournament.standings import league_standings

    config = saved_config(run)
    if config is None:
        return StatusDetail()
    standings, tally = league_standings(run, [b.name for b in config.bots])
    return StandingsDetail(standings, tally.failures)


def finished_pairings(run: RunStore, records: dict) -> tuple[Any, list[tuple[int, int, int, int]]]:
    """An event's ``results`` rows (``records``: a run's frames, analysis.records) of its whole
    pairings only, and the unfinished pairings left out, ``(round, pairing, games recorded, games
    of a whole pairing)``: a Swiss table or a knockout match counts in the event's table once all
    its games are recorded, as in the finished event's (a round's byes count once it is paired).
    The rows as they are for a round-robin, a gauntlet (not paired), or when the saved config
    cannot be read."""
    import polars as pl

    from tournament.events import pairing_size

    config = saved_config(run)
    games, results = records["games"], records["results"]
    if config is None or config.format == "round-robin" or "event_round" not in games.columns:
        return results, []
    size = pairing_size(config)
    if size is None:
        return results, []
    keys = ["run_id", "event_round", "pairing"]
    paired = games.filter(pl.col("event_round").is_not_null())
    short = paired.group_by(keys).agg(pl.len().alias("games")).filter(pl.col("games") < size).sort(keys)
    if short.is_empty():
        return results, []
    left_out = paired.join(short, on=keys).select("run_id", "game_id")
    return (results.join(left_out, on=["run_id", "game_id"], how="anti"),
            [(r, p, n, size) for _, r, p, n in short.iter_rows()])


class LeagueKind(RunKind):
    name, label, article = "league", "league", "a league"

    def finish_command(self, run: RunStore) -> str:
        return settings_command(run, ["azul", "league", "run"], CONFIG_FILE, "CONFIG",
                                "the league config that started it")

    def planned_games(self, run: RunStore) -> int | None:
        config = saved_config(run)
        return None if config is None else config.total_games

    def detail(self, run: RunStore) -> StatusDetail:
        return standings_detail(run)

    def event_results(self, run: RunStore, records: dict) -> tuple[Any, list[tuple[int, int, int, int]]]:
        return finished_pairings(run, records)


LEAGUE = register(LeagueKind())
