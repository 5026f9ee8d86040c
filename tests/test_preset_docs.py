"""The preset lists that people read, checked against the registry (``bots.registry.BOTS``, the
presets ``register_preset`` made there): docs/bots.md's presets paragraph, docs/serve.md's list of
the browser table's bots and what the ``/play`` page offers; and what the README says its test
command takes and needs."""
from __future__ import annotations

import re
from pathlib import Path

import bots.heuristic
import bots.mcts
from bots.registry import BOTS
from web.play_setup import BASE_BOTS, table_bots

ROOT = Path(__file__).resolve().parent.parent


def registered_presets() -> set[str]:
    """The registered types made on another registered type (``register_preset``'s classes)."""
    bases = set(BOTS.values())
    return {name for name, cls in BOTS.items() if cls.__bases__[0] in bases}


def paragraph(path: str, start: str) -> str:
    """The paragraph of ``path`` that begins with ``start``."""
    text = (ROOT / path).read_text()
    found = [p for p in re.split(r"\n\s*\n", text) if p.lstrip().startswith(start)]
    assert len(found) == 1, f"{path}: no single paragraph starting {start!r}"
    return found[0]


def bot_types(text: str) -> set[str]:
    """The registered types and presets named in backquotes in ``text`` (`mcts-2p`, not
    `value-2p` nor `heuristic-4p:marker=2`)."""
    names = set(re.findall(r"`([a-z_]+(?:-\dp)?)`", text))
    return {n for n in names if n in BOTS or n.rpartition("-")[0] in BOTS}


def test_the_registry_presets_are_the_preset_tables():
    assert registered_presets() == set(bots.heuristic.PRESETS) | set(bots.mcts.PRESETS)
    assert {"mcts-3p", "mcts-4p"} <= registered_presets()


def test_docs_bots_names_every_preset():
    text = paragraph("docs/bots.md", "**Tuned presets.**")
    assert bot_types(text) - set(BASE_BOTS) == registered_presets()


def test_docs_serve_lists_what_the_table_offers():
    text = paragraph("docs/serve.md", "**What the table plays.**")
    text = text.partition("(`web/play_setup.py`")[0]  # the list, before the bots the page refuses
    offered = set(table_bots())
    assert offered == set(BASE_BOTS) | registered_presets()  # every preset is of a built-in bot
    assert bot_types(text) == offered


def test_the_play_page_offers_the_registry_s_bots(tmp_path):
    from serve_support import get, serving

    (tmp_path / "runs").mkdir()
    with serving([tmp_path / "runs"], tmp_path / "played") as base:
        status, body = get(base + "/play/")
    assert status == 200
    datalist = re.search(r'<datalist id="bot-types">(.*?)</datalist>', body, re.DOTALL).group(1)
    assert set(re.findall(r'<option value="([^"]+)">', datalist)) == set(BASE_BOTS) | registered_presets()


def test_the_readme_says_what_its_test_command_takes_and_needs():
    text = " ".join(paragraph("README.md", "The first command builds").split())
    assert "about 10 minutes on 2 cores" in text
    assert "`chromium`" in text and "`chromium-driver`" in text and "browser tests" in text
