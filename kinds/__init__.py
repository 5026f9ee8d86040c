"""The kinds of run, declared once (kinds/base.py; docs/architecture.md, "Run kinds").

    from kinds import finish_command, kind_of
    kind_of("runs/quick").status(Path("runs/quick"))   # RunStatus: counts, state, the finishing command

One module a kind, above the league driver (tournament/) and above learn/: ``league`` (a
round-robin or an event format), ``sprt``, ``study``, ``tune`` (with its settings, ``tune_config``,
and SPSA, ``spsa``) and ``train`` (generations of self-play, training and gating). Importing the
package registers them all.
"""
from __future__ import annotations

from .base import KINDS, RunKind, RunStatus, finish_command, kind_named, kind_of, parent_run, register
from .league import LEAGUE
from .played import PLAYED
from .sprt import SPRT
from .study import STUDY
from .train import TRAIN
from .tune import TUNE

__all__ = ["KINDS", "LEAGUE", "PLAYED", "SPRT", "STUDY", "TRAIN", "TUNE", "RunKind", "RunStatus", "finish_command",
           "kind_named", "kind_of", "parent_run", "register"]
