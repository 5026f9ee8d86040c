"""How every HTML page of the house is drawn: a Jinja environment over a package's templates
(``html_pages``), the same for the replay page here and the run pages of web/.

Every value a template prints is escaped (autoescape, and ``escaped`` writes it as ``html.escape``
does: ``&quot;``, ``&#x27;``; a bot may be named ``<script>``); None prints nothing; HTML a
template made (Markup) goes in as it is. A ``.jinja`` template is written an element or two a
line and its lines are joined (``OneLine``): the page holds no line break that its template does
not spell. Any other template (a page's CSS or script, ``.html``) is kept as written.
"""
from __future__ import annotations

import re
from html import escape
from typing import Any

from jinja2 import Environment, PackageLoader
from jinja2.ext import Extension
from markupsafe import Markup


def escaped(value: Any) -> Markup:
    """What a template prints for ``value``: escaped as ``html.escape(..., quote=True)`` writes it
    (a fragment made by a template, already Markup, as it is); None as nothing."""
    if isinstance(value, Markup):
        return value
    return Markup(escape("" if value is None else str(value), quote=True))


class OneLine(Extension):
    """A ``.jinja`` template's lines joined, each without its indentation."""

    def preprocess(self, source: str, name: str | None, filename: str | None = None) -> str:
        return re.sub(r"\n[ \t]*", "", source) if name and name.endswith(".jinja") else source


def html_pages(package: str, folder: str = "templates") -> Environment:
    """The environment of the templates in ``package``'s ``folder``."""
    return Environment(loader=PackageLoader(package, folder), autoescape=True, finalize=escaped,
                       extensions=[OneLine], keep_trailing_newline=True)
