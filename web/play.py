"""The table in the browser where a person plays the bots (``/play``; docs/serve.md, "Play in the
browser").

    GET  /play/                   the form: opponents, seat, wall, teaching mode, series, name
    POST /play/                   a new table (checked: web/play_setup.py), then its page
    GET  /play/t/TOKEN            the table: ?pick=1B (a source and colour chosen), ?move=1B2
                                  (teaching: the preview of a move), ?hint=1 (a bot's advice)
    POST /play/t/TOKEN/move       the person's move (form field move), then the bots' replies
    POST /play/t/TOKEN/undo       take back the person's last move (not past a deal)
    POST /play/t/TOKEN/next       the series' second game
    POST /play/t/TOKEN/save       save again a finished game whose save failed (kept on the table)
    POST /play/t/TOKEN/review     review a saved game of the table (form field game; iterations and
                                  analyser, when sent, must be the default analyser's 1000), stored
                                  with the played run as its reviews/ (web/play_records.py)
    GET  /play/t/TOKEN/game/ID    a saved game of the table replayed, with its review when it has
                                  one: the run pages' replay (present/replay_page.py)

Tables live in this process's memory (``Tables``, at most ``MAX_TABLES``), each under a random
token that is its URL, so a reload continues the game; every POST answers with a redirect to the
table's page (a reload never plays a move twice). Nothing is written but a finished game, into
``play_out``, a folder or an s3:// run (web/play_records.py, through the run's store), and the review of
a saved game the person asks for, beside it; a game whose
save fails stays on its table, said on its page, until "Save again" writes it. A form's body is at
most ``MAX_FORM`` bytes: a larger one is refused (413) before it is read. The pages
are Jinja templates (web/templates/play/), every text escaped by them; no script is needed: each choice is a link or a button.
"""
from __future__ import annotations

import secrets
import threading
import time
from pathlib import Path
from urllib.parse import parse_qs

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from present.lines import verdict
from present.teach import hint
from records.store import open_store

from .play_records import REVIEW_ITERATIONS, check_play_out
from .play_setup import HINT_ITERATIONS, MAX_ITERATIONS, MAX_SECONDS, check_setup, table_bots
from .play_table import Table
from .play_view import choices, position, preview_lines

MAX_TABLES = 32  # tables kept at once
IDLE_S = 1800.0  # a table untouched this long makes room for a new one when the server is full
MAX_FORM = 4096  # bytes of a form's body
STATIC = Path(__file__).parent / "static" / "play"
PAGES = Environment(loader=PackageLoader("web", "templates/play"), autoescape=select_autoescape(default=True),
                    trim_blocks=True, lstrip_blocks=True)


class Tables:
    """The tables in play, by token; at most ``MAX_TABLES`` (then the longest idle, if idle for
    ``IDLE_S``, makes room)."""

    def __init__(self) -> None:
        self.tables: dict[str, Table] = {}
        self.lock = threading.Lock()

    def add(self, table: Table) -> str:
        with self.lock:
            if len(self.tables) >= MAX_TABLES:
                token, oldest = min(self.tables.items(), key=lambda kv: kv[1].touched)
                if time.monotonic() - oldest.touched < IDLE_S:
                    raise ValueError(f"the server holds {MAX_TABLES} tables in play, the most it keeps; "
                                     "finish one, or wait until one has been left for half an hour")
                del self.tables[token]
            token = secrets.token_urlsafe(16)
            self.tables[token] = table
            return token

    def get(self, token: str) -> Table | None:
        table = self.tables.get(token)
        if table is not None:
            table.touched = time.monotonic()
        return table


def play_routes(play_out: Path | str) -> list:
    """The routes of the table, writing finished games into ``play_out`` (a folder or an s3:// URL,
    through its store: records.store.open_store)."""
    tables = Tables()
    play_out = open_store(play_out)
    viewing = threading.Lock()  # the played run's local view (a run on object storage) is made by one at a time

    def page(name: str, status: int = 200, **context) -> HTMLResponse:
        return HTMLResponse(PAGES.get_template(name).render(**context), status_code=status)

    def form_page(request: Request, form: dict, error: str | None = None, status: int = 200) -> HTMLResponse:
        if error is None:  # the folder's problem first: no table can be saved there
            try:
                check_play_out(play_out)
            except ValueError as exc:
                error, status = str(exc), 500
        return page("new.jinja", status, form=form, error=error, bots=table_bots(), play_out=str(play_out),
                    max_iterations=MAX_ITERATIONS, max_seconds=MAX_SECONDS,
                    action=request.url_for("play_new").path)

    defaults = {"bot1": "greedy", "seat": "0", "variant": "colored", "name": "person"}

    async def new(request: Request) -> Response:
        if request.method == "GET":
            return form_page(request, defaults)
        try:
            form = await _form(request)
        except FormTooLarge as exc:
            return _closing(form_page(request, defaults, str(exc), 413))
        try:
            check_play_out(play_out)
            setup, bots = check_setup(form)
            table = await run_in_threadpool(Table, setup, bots, play_out)
            token = tables.add(table)
        except ValueError as exc:
            return form_page(request, form, str(exc), 400)
        return RedirectResponse(request.url_for("play_table", token=token).path, status_code=303)

    def show(request: Request, table: Table, token: str) -> HTMLResponse:
        q = request.query_params
        state = table.state
        mine = table.persons_turn
        asked = q.get("move") if mine and table.setup.teach else None
        hints = None
        if mine and q.get("hint"):
            hints = hint(state, HINT_ITERATIONS, table.setup.seed, 3)
        notice, table.notice = table.notice, None
        urls = {k: request.url_for(f"play_{k}", token=token).path
                for k in ("table", "move", "undo", "next", "save", "review")}
        urls["games"] = {gid: request.url_for("play_game", token=token, game_id=gid).path for gid in table.saved}
        return page("table.jinja", table=table, view=position(state, table.names),
                    choices=choices(state, q.get("pick")) if mine else None,
                    asked=asked, preview=preview_lines(state, asked) if asked else None,
                    hints=hints, hint_iterations=HINT_ITERATIONS, notice=notice, urls=urls,
                    verdict=verdict(state.to_json()["ranks"], table.seat) if state.is_over else None,
                    new=request.url_for("play_new").path, play_out=str(play_out),
                    review_iterations=REVIEW_ITERATIONS)

    async def table_page(request: Request) -> Response:
        token = request.path_params["token"]
        table = tables.get(token)
        if table is None:
            return _missing(request)

        def draw():
            with table.lock:
                return show(request, table, token)
        return await run_in_threadpool(draw)

    def action(name: str):
        async def act(request: Request) -> Response:
            token = request.path_params["token"]
            table = tables.get(token)
            if table is None:
                return _missing(request)
            try:
                form = await _form(request)
            except FormTooLarge as exc:
                return _closing(page("refused.jinja", 413, error=str(exc), new=request.url_for("play_new").path,
                                     table=request.url_for("play_table", token=token).path))

            def run():
                with table.lock:
                    if name == "move":
                        refused = table.play(form.get("move", ""))
                        table.notice = None if refused is None else f"not played: {refused}"
                    elif name == "undo":
                        table.notice = table.undo()
                    elif name == "save":
                        table.notice = table.save()
                    elif table.next_game is not None:
                        table.start_game(table.next_game)
            await run_in_threadpool(run)
            return RedirectResponse(request.url_for("play_table", token=token).path, status_code=303)
        return act

    async def review(request: Request) -> Response:
        """Review a saved game of the table with the default analyser at the capped budget (a
        request for another budget or analyser is refused, 400), then the table's page, which says
        the person's accuracy and links to the game's replay with its marks."""
        token = request.path_params["token"]
        table = tables.get(token)
        if table is None:
            return _missing(request)
        back = request.url_for("play_table", token=token).path

        def refused(error: str, status: int = 400) -> HTMLResponse:
            return page("refused.jinja", status, error=error, heading="Not reviewed",
                        new=request.url_for("play_new").path, table=back)
        try:
            form = await _form(request)
        except FormTooLarge as exc:
            return _closing(refused(str(exc), 413))
        from analysis.review_marks import default_analyser

        spec = default_analyser(table.setup.players)
        iterations = form.get("iterations", str(REVIEW_ITERATIONS)).strip()
        if iterations != str(REVIEW_ITERATIONS):
            return refused(f"iterations: the review here searches {REVIEW_ITERATIONS:,} iterations a move, "
                           f"the most the table allows, not {iterations!r} (another budget: azul review run "
                           f"{play_out} --game ID --analyser SPEC)")
        if form.get("analyser", spec).strip() != spec:
            return refused(f"analyser: the review here is {spec}'s, not {form['analyser']!r} (another "
                           f"analyser: azul review run {play_out} --game ID --analyser SPEC)")
        game_id = form.get("game") or (table.saved[-1] if table.saved else "")
        if game_id not in table.saved:
            if game_id:
                return refused(f"game: this table saved no game {game_id!r}", 404)
            return refused("no game of this table is saved yet: a game is reviewed once it is over and saved", 409)

        def run():
            with table.lock:
                table.notice = table.review(game_id)
        await run_in_threadpool(run)
        return RedirectResponse(back, status_code=303)

    async def game_page(request: Request) -> Response:
        """A saved game of the table, replayed, with its review when it has one (read, never made)."""
        from present.replay_page import page as replay_page
        from tournament.replay import replay_steps

        token, game_id = request.path_params["token"], request.path_params["game_id"]
        table = tables.get(token)
        if table is None:
            return _missing(request)
        if game_id not in table.saved:
            return page("refused.jinja", 404, error=f"this table saved no game {game_id!r}", heading="No such game",
                        new=request.url_for("play_new").path, table=request.url_for("play_table", token=token).path)

        def draw() -> str:
            with viewing:
                return replay_page(replay_steps(play_out, game_id).to_dict())
        try:
            return HTMLResponse(await run_in_threadpool(draw))
        except Exception as exc:  # noqa: BLE001 - the played run cannot be read now: said, never a traceback
            return page("refused.jinja", 503, error=f"--play-out {play_out}: cannot read game {game_id} "
                        f"({type(exc).__name__}: {exc})", heading="Unreadable",
                        new=request.url_for("play_new").path, table=request.url_for("play_table", token=token).path)

    def _missing(request: Request) -> HTMLResponse:
        return page("missing.jinja", 404, new=request.url_for("play_new").path)

    return [
        Route("/", new, methods=["GET", "POST"], name="play_new"),
        Route("/t/{token}", table_page, name="play_table"),
        Route("/t/{token}/move", action("move"), methods=["POST"], name="play_move"),
        Route("/t/{token}/undo", action("undo"), methods=["POST"], name="play_undo"),
        Route("/t/{token}/next", action("next"), methods=["POST"], name="play_next"),
        Route("/t/{token}/save", action("save"), methods=["POST"], name="play_save"),
        Route("/t/{token}/review", review, methods=["POST"], name="play_review"),
        Route("/t/{token}/game/{game_id}", game_page, name="play_game"),
        Mount("/static", StaticFiles(directory=STATIC), name="play_static"),
    ]


class FormTooLarge(Exception):
    """A form's body over ``MAX_FORM`` bytes: refused (413) without reading it."""

    def __init__(self, size: int | None):
        said = f"{size:,} bytes" if size is not None else "more than that"
        super().__init__(f"the form is too large: {said}; a form here is at most {MAX_FORM:,} bytes "
                         "(nothing was played)")


def _closing(response: Response) -> Response:
    """``response`` with the connection closed after it: the body refused is never read, not even
    to be thrown away."""
    response.headers["connection"] = "close"
    return response


async def _form(request: Request) -> dict[str, str]:
    """A posted form (application/x-www-form-urlencoded), each field's first value. A body over
    ``MAX_FORM`` bytes raises ``FormTooLarge`` before it is read: by its Content-Length, or (a
    chunked body) once the part read passes the limit, so at most ``MAX_FORM`` bytes and a chunk
    are ever held."""
    length = request.headers.get("content-length", "").strip()
    if length.isascii() and length.isdigit() and int(length) > MAX_FORM:
        raise FormTooLarge(int(length))
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_FORM:
            raise FormTooLarge(None)
    return {k: v[0] for k, v in parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True).items()}
