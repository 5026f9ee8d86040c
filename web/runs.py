"""The runs under the served folders: found by walking them, named in URLs by a path under one of
them, and mapped back to a folder only when it lies inside (``Served.folder``).

A served folder (``azul serve RUNS...``) is known by a label, its own name (a second folder of
the same name gets ``-2``...); a run's URL path is that label and the run's folders below it:
``/run/runs/quick``. A path is refused (None) when a part is empty, ``.`` or ``..`` (percent-
decoded already: ``%2e%2e`` is ``..``), or holds a backslash or a NUL, when its label serves
nothing, and when the folder it names, symlinks resolved, lies outside the served folder: a URL
never reads a file outside RUNS.

A run folder holds ``run.json``, a ``config.yaml`` or records (``azul league status`` asks the
same); a rating list holds ``list.json`` (analysis/rating_list.py). The walk does not go into a
run (the runs a training run holds are its kind's ``nested_runs``), nor into hidden folders,
quarantine or record tables.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from analysis.rating_list import LIST_FILE
from records.columns import TABLES
from records.names import QUARANTINE, RUN_FILE
from records.parts import has_records
from records.store import RunStore

MAX_DEPTH = 4  # folders below a served folder the walk looks into for runs


@dataclass
class Found:
    """A run (or a rating list) under a served folder: its folder, its URL path, the runs it holds."""

    folder: Path
    url: str
    rating_list: bool = False
    nested: list[Found] = field(default_factory=list)


def is_run(folder: Path) -> bool:
    """A run folder: its run.json, or records (a folder from before run.json). A config.yaml alone
    is not one: MLflow keeps a copy of each run's under mlartifacts/, beside the runs."""
    return RunStore(folder).exists(RUN_FILE) or has_records(folder)


def is_rating_list(folder: Path) -> bool:
    return (folder / LIST_FILE).is_file()


class Served:
    """The folders ``azul serve`` serves, each by its label."""

    def __init__(self, roots: list[Path]):
        self.roots: dict[str, Path] = {}
        for root in roots:
            root = Path(root).resolve()
            base = root.name or "root"
            label, n = base, 1
            while label in self.roots:
                n += 1
                label = f"{base}-{n}"
            self.roots[label] = root

    def inside(self, path: Path, root: Path) -> bool:
        """Whether ``path``, symlinks resolved, is ``root`` or lies below it."""
        try:
            return path.resolve().is_relative_to(root)
        except (OSError, RuntimeError):  # a symlink loop
            return False

    def url(self, folder: Path) -> str:
        """The URL path of a folder under a served one (``label/a/b``)."""
        folder = Path(folder).resolve()
        for label, root in self.roots.items():
            if folder.is_relative_to(root):
                rel = folder.relative_to(root).as_posix()
                return label if rel == "." else f"{label}/{rel}"
        raise ValueError(f"{folder} is not under a served folder")

    def folder(self, path: str) -> Path | None:
        """The folder a URL path names, or None: a refused path, or one that is not a folder
        inside the served one it names."""
        parts = path.split("/")
        if any(p in ("", ".", "..") or "\\" in p or "\0" in p for p in parts):
            return None
        root = self.roots.get(parts[0])
        if root is None:
            return None
        folder = root.joinpath(*parts[1:])
        if not self.inside(folder, root) or not folder.is_dir():
            return None
        return folder.resolve()

    def run(self, path: str) -> Path | None:
        """The run folder (or rating list) a URL path names, or None."""
        folder = self.folder(path)
        return folder if folder is not None and (is_run(folder) or is_rating_list(folder)) else None

    def found(self, path: str) -> Found | None:
        """The run (with the runs it holds) or rating list a URL path names, or None."""
        folder = self.run(path)
        if folder is None:
            return None
        root = self.roots[path.split("/")[0]]
        return self._run(folder, root) if is_run(folder) else Found(folder, self.url(folder), rating_list=True)

    def find(self) -> list[Found]:
        """Every run and rating list under the served folders, in name order, each training run
        with the runs it holds."""
        found: list[Found] = []
        for root in self.roots.values():
            found += self._walk(root, root, 0)
        return found

    def _walk(self, folder: Path, root: Path, depth: int) -> list[Found]:
        if not self.inside(folder, root):  # a symlink that leads out
            return []
        if is_run(folder):
            return [self._run(folder, root)]
        if is_rating_list(folder):
            return [Found(folder, self.url(folder), rating_list=True)]
        if depth >= MAX_DEPTH:
            return []
        try:
            children = sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith(".")
                              and p.name not in (QUARANTINE, *TABLES))
        except OSError:
            return []
        return [f for child in children for f in self._walk(child, root, depth + 1)]

    def _run(self, folder: Path, root: Path) -> Found:
        from kinds import kind_of

        run = Found(folder, self.url(folder))
        try:
            kind = kind_of(folder)
            nested = kind.nested_runs(folder) if kind.nests else []
        except (ValueError, OSError):  # an unknown kind: the index row says so
            nested = []
        for rel in nested:
            inner = folder / rel
            if self.inside(inner, root):
                run.nested.append(Found(inner, self.url(inner)))
        return run
