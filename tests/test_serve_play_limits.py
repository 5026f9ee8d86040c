"""``/play`` never loses a game (issue 42, item 5), over real HTTP against uvicorn
(tests/serve_support.py): a seed the records cannot hold is refused on the form before anything is
played; a save that fails is an error line on the table's page with the game kept, and "Save again"
writes it; a body over the form's limit is refused (413) before it is read, by its Content-Length or
(chunked) as it arrives, and a form just over the limit says it is too large."""
from __future__ import annotations

import http.client
import socket

import pytest
from serve_support import get, play_to_the_end, position, play_site, post

import web.play_table
from records.columns import COLUMNS
from records.store import RunStore
from tournament.replay import replay
from web.play import MAX_FORM


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    with play_site(tmp_path_factory.mktemp("limits")) as served:
        yield served


def games_in(play_out) -> int:
    return len(RunStore(play_out).committed()) if play_out.exists() else 0


@pytest.mark.parametrize("seed", [2**64 - 1, 2**63])
def test_a_seed_the_records_cannot_hold_is_refused_on_the_form(site, seed):
    base, play_out = site
    before = games_in(play_out)
    status, page, url = post(base + "/play/", bot1="random", seed=str(seed))
    assert status == 400 and url == base + "/play/"  # no table was made
    assert "error: the seed: must be from 0 to 9223372036854775807" in page and "2**63 - 1" in page
    assert f'value="{seed}"' in page  # the form keeps what was typed
    assert games_in(play_out) == before


def test_the_largest_seed_the_records_hold_plays_and_is_saved(site):
    base, play_out = site
    assert next(c.type for c in COLUMNS if c.name == "deal_seed").bit_width == 64
    page, _ = play_to_the_end(base, bot1="random", seed=str(2**63 - 1))
    assert 'id="saved"' in page and 'id="save-error"' not in page
    game_id = page.split(" as game")[1].split(":")[0].split()[-1]
    assert replay(play_out, game_id).to_json() == position(page).to_json()


def test_a_failed_save_is_an_error_line_the_game_kept_and_saved_again(site, monkeypatch):
    base, play_out = site
    real, calls = web.play_table.write_game, []

    def failing_once(where, game):  # the server runs in this process: its save fails the first time
        calls.append(game)
        if len(calls) == 1:
            raise OverflowError("Python int too large to convert to C long")
        return real(where, game)

    monkeypatch.setattr(web.play_table, "write_game", failing_once)
    before = games_in(play_out)
    page, table = play_to_the_end(base, bot1="random", seed="7")  # a 500 here on the old code
    final = position(page).to_json()
    assert "error: the game is over but was not saved: OverflowError: Python int too large" in page
    assert 'id="save-again"' in page and 'id="saved"' not in page and games_in(play_out) == before
    status, again = get(table)  # a reload: still kept, still said
    assert status == 200 and 'id="save-error"' in again and position(again).to_json() == final
    status, page, _ = post(table + "/save")
    assert status == 200 and len(calls) == 2
    assert 'id="save-error"' not in page and 'id="save-again"' not in page
    assert "saved as game web" in page and 'id="saved"' in page
    game_id = page.split('id="notice">saved as game ')[1].split("<")[0]
    assert games_in(play_out) == before + 1
    assert replay(play_out, game_id).to_json() == final  # the game kept is the game played
    status, page, _ = post(table + "/save")  # nothing twice
    assert "nothing to save" in page and len(calls) == 2 and games_in(play_out) == before + 1


def _send_head(base: str, path: str, headers: dict[str, str], body: bytes = b"") -> http.client.HTTPResponse:
    """POST ``path`` with ``headers`` and only ``body`` of what they announce: the server's answer,
    waited for at most 10 s (an old server waiting for the rest times out here)."""
    host, port = base.removeprefix("http://").split(":")
    con = http.client.HTTPConnection(host, int(port), timeout=10)
    con.putrequest("POST", path)
    for key, value in headers.items():
        con.putheader(key, value)
    con.endheaders()
    if body:
        con.send(body)
    try:
        response = con.getresponse()
        response.body = response.read()
    except (socket.timeout, TimeoutError):
        raise AssertionError("the server waited for the body instead of answering") from None
    finally:
        con.close()
    return response


def test_a_body_over_the_limit_is_refused_before_it_is_read(site):
    base, play_out = site
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    # 300 MB announced, 100 bytes sent: the answer comes without the rest
    r = _send_head(base, "/play/", {**form, "Content-Length": str(300_000_000)}, b"bot1=greedy&" + b"x" * 88)
    assert r.status == 413 and r.getheader("connection") == "close"  # the rest never read, not even to drop it
    assert b"the form is too large: 300,000,000 bytes; a form here is at most 4,096 bytes" in r.body
    # chunked, no length: refused once the limit is passed, the body's end never sent
    chunk = b"x" * 3000
    r = _send_head(base, "/play/", {**form, "Transfer-Encoding": "chunked"},
                   (b"%x\r\n" % len(chunk) + chunk + b"\r\n") * 2)
    assert r.status == 413 and b"the form is too large: more than that" in r.body
    # a table's action too
    _, _, table = post(base + "/play/", bot1="random", seed="1")
    path = table.removeprefix(base) + "/move"
    r = _send_head(base, path, {**form, "Content-Length": str(10**9)})
    assert r.status == 413 and b"the form is too large" in r.body and b"back to the table" in r.body


def test_a_form_just_over_the_limit_says_it_is_too_large(site):
    base, _ = site
    fields = {"bot1": "greedy", "name": "person", "seed": "1"}
    fields["pad"] = "x" * (MAX_FORM + 1 - len("bot1=greedy&name=person&seed=1&pad="))
    status, page, url = post(base + "/play/", **fields)
    assert status == 413 and url == base + "/play/"
    assert "the form is too large: 4,097 bytes" in page and "choose at least one opponent" not in page
    fields["pad"] = fields["pad"][:-1]  # at the limit: played
    status, page, url = post(base + "/play/", **fields)
    assert status == 200 and url.startswith(base + "/play/t/"), page
