"""The kinds of run, declared once (kinds/base.py; docs/architecture.md, "Run kinds").

    from kinds import finish_command, kind_of
    st = kind_of("runs/quick").status(Path("runs/quick"))   # RunStatus: counts, state, the finishing command
    st.lines(), st.detail.ahead(), st.detail.as_dict()   # its StatusDetail: the kind describes itself

One module a kind, above the league driver (tournament/) and above learn/: ``league`` (a
round-robin or an event format), ``sprt``, ``study``, ``tune`` (with its settings, ``tune_config``,
and SPSA, ``spsa``) ``train`` (generations of self-play, training and gating) and ``atlas`` (claims tested by
studies and leagues nested in it, ``atlas_config`` its claims file). Importing the package
registers them all.
"""
from __future__ import annotations

from .base import (KINDS, NoteDetail, RunKind, RunStatus, StatusDetail, failures_text, finish_command, kind_named,
                   kind_of, model_lines, parent_run, register)
from .atlas import ATLAS
from .league import LEAGUE
from .played import PLAYED
from .sprt import SPRT
from .study import STUDY
from .train import TRAIN
from .tune import TUNE, tune_path

__all__ = ["ATLAS", "KINDS", "LEAGUE", "PLAYED", "SPRT", "STUDY", "TRAIN", "TUNE", "NoteDetail", "RunKind", "RunStatus",
           "StatusDetail", "failures_text", "finish_command", "kind_named", "kind_of", "model_lines", "parent_run",
           "register", "tune_path"]
