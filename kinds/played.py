"""The played kind: a person's finished games against the bots, written by ``azul serve``'s table
in the browser (web/play.py) into the folder ``--play-out`` names (docs/serve.md, "Play in the
browser").

The folder is one run: ``run.json`` (kind ``played``) and the four record tables, one part per
finished game, each written under the folder's lock. Every game in it is whole when it is
written, so the run is never unfinished and nothing resumes it; ``azul elo``, ``standings``,
``report`` and ``replay`` read it as any other run.
"""
from __future__ import annotations

from records.names import RUN_FILE
from records.store import RunStore

from .base import RunKind, register


class PlayedKind(RunKind):
    name, label, article = "played", "person's games", "a folder of a person's games"
    settings = RUN_FILE  # nothing is set up front: each game is whole in its records
    owned = ()

    def finish_command(self, run: RunStore) -> str:
        return "nothing to finish: each game is written whole when it ends (azul serve, Play)"

    def planned_games(self, run: RunStore) -> int | None:
        """The games it holds: no game is planned before a person has played it."""
        return self.recorded_games(run)

    def is_finished(self, run: RunStore, recorded: int, planned: int | None) -> bool:
        return True


PLAYED = register(PlayedKind())
