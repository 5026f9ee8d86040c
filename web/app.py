"""The web application ``azul serve`` runs: the views of the runs under the served folders
(web/views.py) and the table where a person plays the bots (web/play.py, under ``/play``)."""
from __future__ import annotations

from pathlib import Path

from starlette.applications import Starlette
from starlette.routing import Mount

from .play import play_routes
from .views import view_routes


def create_app(runs: list[Path], play_out: Path) -> Starlette:
    """The app over the run folders ``runs``, writing a person's games under ``play_out``."""
    return Starlette(routes=[*view_routes(runs), Mount("/play", routes=play_routes(play_out))])
