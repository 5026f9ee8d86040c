"""Counts of the house's seams, read from the code (issue 43's "Measured" note): run it before and
after a restructuring and compare.

    python benchmarks/bench_house.py           # a second or two
    python benchmarks/bench_house.py --list    # and where each count comes from

Nothing is imported or run: every .py file under the packages engine, bots, tournament, kinds,
records, analysis, learn, web, azul_cli is parsed (``ast``); tests/, benchmarks/ and the rest are
not read. A *place* is one line of one file. The counts:

- ``is_url calls outside records/``: calls of a function named ``is_url`` (``is_url(x)`` or
  ``anything.is_url(x)``) in files outside records/.
- ``type sniffs``: ``hasattr(x, "NAME")`` where NAME is a method or attribute of a class of
  records/ whose name ends in ``Store`` (``write_part``, ``commit_of``...), and ``isinstance(x, C)``
  where C (or one in a tuple of them) is such a class's name; inside and outside records/.
- ``exception classes``: classes deriving, through classes of the project or directly, from a
  built-in exception (``Exception``, ``ValueError``, ``BaseException``...); their distinct direct
  bases (as written), and the distinct built-in exceptions at the top of their chains.
- ``settings classes``: classes whose name ends in ``Config`` or ``Settings`` (not exceptions).
- ``checks of name / out / workers``: calls that check the run's field F: a call of a checking
  helper (a function whose name holds ``check`` or starts with ``_``, as ``check_out``, ``_int``)
  or of an exception class, with an argument that is the literal ``"F"``, ``"--F"`` or ``"x.F"``
  (the name the error gives); or a call of a ``check`` function whose first argument reads the
  field: a settings object's (``self.F``, ``config.F``, ``c.F``, ``settings.F``, ``league.F``) or
  a mapping's (``data.get("F", ...)``, ``data["F"]``).
  Counted as places, and as the distinct functions (and modules) holding them.
- ``run parameters not typed as a store``: in records/, tournament/ and kinds/, the function
  parameters named ``run_dir``, ``run_dirs``, ``run``, ``runs`` or ``store`` whose annotation is
  missing or names ``str`` or ``Path`` (a run handed around as a path or a string, not as a
  ``RunStore``). The folder store's own insides (records/parts.py, folder.py, checks.py, side.py)
  take its folder, named ``folder``. Counted apart: the annotated class fields of those names
  (a result's ``run_dir``: the run as the command named it, for printing).
- ``web modules importing azul_cli``: modules under web/ with an ``import azul_cli...`` or
  ``from azul_cli... import``; and those import statements.
- ``HTML built in Python``: string literals (an f-string counts once; docstrings do not count)
  holding an HTML or SVG tag, ``<TAG`` or ``</TAG`` followed by a space, ``>`` or ``/``, for a
  known tag name; by package. Templates (``.jinja``, ``.html`` files) are not Python and not counted.
"""
from __future__ import annotations

import argparse
import ast
import builtins
import re
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "bots", "tournament", "kinds", "records", "analysis", "learn", "web", "azul_cli")
FIELDS = ("name", "out", "workers")
SETTINGS_OBJECTS = ("self", "config", "c", "settings", "league", "cfg")  # names a settings object goes by
TAGS = ("html|head|body|div|span|table|thead|tbody|tfoot|tr|td|th|caption|col|colgroup|p|a|h1|h2|h3|h4|h5|h6|ul|ol|"
        "li|dl|dt|dd|pre|code|b|i|em|strong|small|sub|sup|br|hr|img|svg|g|path|rect|line|polyline|polygon|circle|"
        "ellipse|text|tspan|title|desc|defs|use|script|style|link|meta|section|article|nav|header|footer|main|"
        "form|input|button|select|option|label|textarea|details|summary|figure|figcaption|canvas|abbr")
TAG = re.compile(rf"</?(?:{TAGS})(?=[\s>/])", re.IGNORECASE)
BUILTIN_EXCEPTIONS = {name for name, value in vars(builtins).items()
                      if isinstance(value, type) and issubclass(value, BaseException)}


def project_files() -> list[tuple[str, ast.Module]]:
    """(path relative to the root, its syntax tree) of every .py file of the packages."""
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            found.append((rel, ast.parse(path.read_text(encoding="utf-8"), filename=rel)))
    return found


def package(rel: str) -> str:
    return rel.split("/", 1)[0]


def called_name(call: ast.Call) -> str | None:
    """``f`` of ``f(...)`` or ``x.f(...)``."""
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def enclosing(tree: ast.Module) -> dict[ast.AST, str]:
    """Each node's innermost enclosing function (``Class.method``), or ``<module>``."""
    owner: dict[ast.AST, str] = {}

    def visit(node: ast.AST, where: str, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                inner = f"{prefix}{child.name}"
                owner[child] = inner
                visit(child, inner, inner + ".")
            elif isinstance(child, ast.ClassDef):
                owner[child] = where
                visit(child, where, f"{prefix}{child.name}.")
            else:
                owner[child] = where
                visit(child, where, prefix)

    visit(tree, "<module>", "")
    return owner


def docstrings(tree: ast.Module) -> set[int]:
    """The ids of the docstring nodes of the module, its classes and functions."""
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            value = first.value if isinstance(first, ast.Expr) else None
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                ids.add(id(value))
    return ids


# ---------------------------------------------------------------- the counts

def is_url_calls(files) -> list[str]:
    return [f"{rel}:{node.lineno}" for rel, tree in files if package(rel) != "records"
            for node in ast.walk(tree) if isinstance(node, ast.Call) and called_name(node) == "is_url"]


def store_classes(files) -> tuple[set[str], set[str]]:
    """The names of records/'s *Store classes, and their methods' and attributes' names."""
    classes, members = set(), set()
    for rel, tree in files:
        if package(rel) != "records":
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and node.name.endswith("Store"):
                classes.add(node.name)
                for item in ast.walk(node):
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and not item.name.startswith("__"):
                        members.add(item.name)
                    elif (isinstance(item, ast.Attribute) and isinstance(item.value, ast.Name)
                          and item.value.id == "self"):
                        members.add(item.attr)
    return classes, members


def type_sniffs(files) -> list[str]:
    classes, members = store_classes(files)
    found = []
    for rel, tree in files:
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or len(node.args) != 2 or not isinstance(node.func, ast.Name):
                continue
            what = node.args[1]
            if node.func.id == "hasattr" and isinstance(what, ast.Constant) and what.value in members:
                found.append(f"{rel}:{node.lineno} hasattr {what.value}")
            elif node.func.id == "isinstance":
                names = what.elts if isinstance(what, ast.Tuple) else [what]
                named = [n.id if isinstance(n, ast.Name) else getattr(n, "attr", None) for n in names]
                if any(n in classes for n in named):
                    found.append(f"{rel}:{node.lineno} isinstance {'|'.join(n for n in named if n)}")
    return found


def base_name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    return node.attr if isinstance(node, ast.Attribute) else ast.unparse(node)


def exception_classes(files) -> dict[str, dict]:
    """name -> {where, bases, roots} of every class that is an exception."""
    classes = {}
    for rel, tree in files:
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                classes.setdefault(node.name, {"where": f"{rel}:{node.lineno}",
                                               "bases": [base_name(b) for b in node.bases]})

    def roots(name: str, seen: frozenset = frozenset()) -> set[str]:
        if name in BUILTIN_EXCEPTIONS:
            return {name}
        if name not in classes or name in seen:
            return set()
        return set().union(set(), *(roots(b, seen | {name}) for b in classes[name]["bases"]))

    found = {}
    for name, info in classes.items():
        top = roots(name)
        if top:
            found[name] = {**info, "roots": sorted(top)}
    return found


def settings_classes(files, exceptions) -> list[str]:
    return [f"{node.name} ({rel}:{node.lineno})" for rel, tree in files for node in ast.walk(tree)
            if isinstance(node, ast.ClassDef) and re.search(r"(Config|Settings)$", node.name)
            and node.name not in exceptions]


def names_field(node: ast.expr, field: str) -> bool:
    """Whether an argument is a literal naming ``field``: "F", "--F" or "x.F"."""
    return isinstance(node, ast.Constant) and isinstance(node.value, str) and (
        node.value in (field, f"--{field}") or node.value.endswith(f".{field}"))


def own_field(node: ast.expr, field: str) -> bool:
    """Whether an argument reads a settings field: ``self.F``, ``config.F``..., ``data.get("F", ...)``
    or ``data["F"]``."""
    if isinstance(node, ast.Attribute):
        return node.attr == field and isinstance(node.value, ast.Name) and node.value.id in SETTINGS_OBJECTS
    if isinstance(node, ast.Call) and called_name(node) == "get" and node.args:
        return names_field(node.args[0], field) and node.args[0].value == field
    if isinstance(node, ast.Subscript):
        return names_field(node.slice, field) and node.slice.value == field
    return False


def field_checks(files, exceptions) -> dict[str, list[tuple[str, str]]]:
    """field -> [(place, enclosing function)] of the calls that check it."""
    found: dict[str, list[tuple[str, str]]] = {f: [] for f in FIELDS}
    for rel, tree in files:
        owner = enclosing(tree)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name = called_name(node) or ""
            checking = "check" in name.lower()
            if not (checking or name.startswith("_") or name in exceptions):
                continue
            arguments = [*node.args, *(k.value for k in node.keywords)]
            for field in FIELDS:
                if any(names_field(a, field) for a in arguments) or (
                        checking and node.args and own_field(node.args[0], field)):
                    found[field].append((f"{rel}:{node.lineno}", f"{rel}:{owner.get(node, '<module>')}"))
    return found


RUN_NAMES = {"run_dir", "run_dirs", "run", "runs", "store"}


def untyped_runs(files) -> tuple[list[str], list[str]]:
    found, fields = [], []
    for rel, tree in files:
        if package(rel) not in ("records", "tournament", "kinds"):
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                a = node.args
                named, into = [(x.arg, x.annotation, x.lineno) for x in [*a.posonlyargs, *a.args, *a.kwonlyargs]], found
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                named, into = [(node.target.id, node.annotation, node.lineno)], fields
            else:
                continue
            for name, annotation, line in named:
                text = "" if annotation is None else ast.unparse(annotation)
                if name in RUN_NAMES and (not text or re.search(r"\b(str|Path)\b", text)):
                    into.append(f"{rel}:{line} {name}: {text or '(no annotation)'}")
    return found, fields


def web_imports_of_cli(files) -> list[str]:
    found = []
    for rel, tree in files:
        if package(rel) != "web":
            continue
        for node in ast.walk(tree):
            modules = ([a.name for a in node.names] if isinstance(node, ast.Import)
                       else [node.module or ""] if isinstance(node, ast.ImportFrom) and node.level == 0 else [])
            for module in modules:
                if module == "azul_cli" or module.startswith("azul_cli."):
                    found.append(f"{rel}:{node.lineno} {module}")
    return found


def html_literals(files) -> list[str]:
    found = []
    for rel, tree in files:
        skip = docstrings(tree)
        inside_fstring = {id(v) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for v in node.values}
        for node in ast.walk(tree):
            if isinstance(node, ast.JoinedStr):
                text = "".join(v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
            elif (isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip
                  and id(node) not in inside_fstring):
                text = node.value
            else:
                continue
            if TAG.search(text):
                found.append(f"{rel}:{node.lineno}")
    return found


# ---------------------------------------------------------------- printing

def row(what: str, count, detail: str = "") -> None:
    print(f"  {what:<44} {count!s:>5}  {detail}".rstrip())


def listing(places, indent: str = "      ") -> None:
    for place in places:
        print(f"{indent}{place}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--list", action="store_true", help="list where each count comes from")
    args = parser.parse_args()
    files = project_files()
    print(f"{len(files)} .py files under {', '.join(PACKAGES)}")

    urls = is_url_calls(files)
    row("is_url calls outside records/", len(urls))
    if args.list:
        listing(urls)

    sniffs = type_sniffs(files)
    outside = [s for s in sniffs if not s.startswith("records/")]
    row("type sniffs outside records/", len(outside), f"(and {len(sniffs) - len(outside)} inside records/)")
    if args.list:
        listing(sniffs)

    exceptions = exception_classes(files)
    bases = sorted({b for e in exceptions.values() for b in e["bases"]})
    tops = sorted({r for e in exceptions.values() for r in e["roots"]})
    row("exception classes", len(exceptions))
    row("  their distinct direct bases", len(bases), ", ".join(bases))
    row("  the built-in exceptions they derive from", len(tops), ", ".join(tops))
    if args.list:
        listing(f"{name}({', '.join(e['bases'])})  {e['where']}" for name, e in sorted(exceptions.items()))

    settings = settings_classes(files, exceptions)
    row("settings classes (*Config, *Settings)", len(settings))
    listing(settings)

    for field, places in field_checks(files, exceptions).items():
        owners = sorted({o for _, o in places})
        modules = sorted({o.split(":")[0] for o in owners})
        row(f"checks of {field!r}: places", len(places), f"in {len(owners)} functions of {len(modules)} modules")
        if args.list:
            listing(f"{place}  ({owner.split(':', 1)[1]})" for place, owner in places)

    untyped, fields = untyped_runs(files)
    row("run parameters not typed as a store", len(untyped), "(records/, tournament/, kinds/)")
    if args.list:
        listing(untyped)
    row("  result fields naming a run as typed", len(fields))
    if args.list:
        listing(fields)

    imports = web_imports_of_cli(files)
    modules = sorted({i.split(":")[0] for i in imports})
    row("web modules importing azul_cli", len(modules), f"({len(imports)} import statements)")
    if args.list:
        listing(imports)

    html = html_literals(files)
    by_package = defaultdict(int)
    for place in html:
        by_package[package(place)] += 1
    row("HTML built in Python: string literals", len(html),
        ", ".join(f"{p} {n}" for p, n in sorted(by_package.items(), key=lambda kv: -kv[1])))
    row("  of them in web/ and azul_cli/", by_package["web"] + by_package["azul_cli"])
    if args.list:
        counts = defaultdict(int)
        for place in html:
            counts[place.split(":")[0]] += 1
        listing(f"{n:>4}  {f}" for f, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


if __name__ == "__main__":
    main()
