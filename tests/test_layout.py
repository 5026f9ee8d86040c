"""Where code lives: the command line only in azul_cli, libraries that print nothing."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LIBRARIES = ("engine", "bots", "tournament", "analysis")
UI_MODULES = {"typer", "rich", "click"}


def python_files(package: str) -> list[Path]:
    return [p for p in sorted((ROOT / package).rglob("*.py")) if "notebooks" not in p.parts]


def imported(tree: ast.AST, package: str) -> set[str]:
    """Absolute names of the modules a file imports (relative imports resolved in ``package``)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = f"{package}.{node.module or ''}".rstrip(".") if node.level else node.module
            names.add(base)
            if node.level and not node.module:
                names.update(f"{package}.{alias.name}" for alias in node.names)
    return names


@pytest.mark.parametrize("package", LIBRARIES)
def test_libraries_import_no_command_line_and_print_nothing(package):
    files = python_files(package)
    assert files
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        ui = {n for n in imported(tree, package) if n.split(".")[0] in UI_MODULES}
        assert not ui, f"{path.relative_to(ROOT)} imports {sorted(ui)}: that belongs in azul_cli"
        prints = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Call)
                  and isinstance(node.func, ast.Name) and node.func.id == "print"]
        assert not prints, f"{path.relative_to(ROOT)} prints (lines {prints}): return or report instead"


def test_command_modules_import_no_cycle_and_not_main():
    modules = {p.stem: p for p in python_files("azul_cli")}
    graph = {name: {n.split(".", 1)[1] for n in imported(ast.parse(path.read_text()), "azul_cli")
                    if n.startswith("azul_cli.") and n.split(".", 1)[1] in modules}
             for name, path in modules.items()}
    for name, deps in graph.items():
        if name != "__main__":
            assert "main" not in deps, f"azul_cli/{name}.py imports azul_cli.main"

    def visit(name: str, path: tuple[str, ...]) -> None:
        assert name not in path, f"import cycle: {' -> '.join(path + (name,))}"
        for dep in graph[name]:
            visit(dep, path + (name,))

    for name in graph:
        visit(name, ())
