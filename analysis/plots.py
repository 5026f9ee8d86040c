"""How the report draws (matplotlib, Agg): its style, and each figure as an inline ``<svg>`` string.

Each report section draws its own figures (``analysis.sections``) from small aggregate frames (a
ratings table, a crosstable, seat rates, ...), never the move records, with these. The SVG is deterministic (fixed ``svg.hashsalt``, no date), its text kept
as text (``svg.fonttype: none``, so names stay searchable), and stripped of the XML prologue,
namespaces and metadata so that it embeds in HTML without a single URL.
"""
from __future__ import annotations

import io
import re
import warnings

import matplotlib

matplotlib.use("Agg")  # no display, ever

import matplotlib.pyplot as plt
import numpy as np

STYLE = {
    "svg.hashsalt": "azul-report",  # ids in the SVG do not change from run to run
    "svg.fonttype": "none",  # text as <text>, not glyph paths
    "text.parse_math": False,  # a '$' in a bot's name is just a character
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
}
BLUE, GREY = "#3366aa", "#888888"


def to_svg(fig) -> str:
    """A figure as an ``<svg>`` element for inline HTML (closes the figure).

    Text stays text in the SVG, so the browser draws every character of a name with its own
    fonts; matplotlib's warning that its font lacks a glyph (a CJK name: one warning a character)
    is about its estimate of the text's width only, and is not shown."""
    buf = io.StringIO()
    with plt.rc_context(STYLE), warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"Glyph \d+ .*missing from font", category=UserWarning)
        fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
    plt.close(fig)
    text = buf.getvalue()
    text = text[text.index("<svg"):]
    text = re.sub(r"<metadata>.*?</metadata>\s*", "", text, flags=re.DOTALL)
    return re.sub(r'\s+xmlns(:xlink)?="[^"]*"', "", text)


def figure(width: float, height: float):
    with plt.rc_context(STYLE):
        return plt.subplots(figsize=(width, height))


def error_bars(values, low, high):
    """Error bar lengths (below, above); nan intervals draw no bar."""
    v, lo, hi = (np.asarray(x, dtype=float) for x in (values, low, high))
    return np.nan_to_num(np.vstack([v - lo, hi - v]), nan=0.0).clip(min=0.0)
