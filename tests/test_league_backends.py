"""The driver's one interface to where games are played (tournament.backends.Backend): every
backend implements all of it, and the driver asks for nothing else."""
from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

from test_league_support import league, ray_address  # noqa: F401  (a session fixture)
from tournament.backends import Backend, RayBackend, SerialBackend
from tournament.config import parse_config

BACKENDS = (SerialBackend, RayBackend)
RUNNER = Path(__file__).resolve().parents[1] / "tournament" / "runner.py"


def protocol_members() -> tuple[set[str], set[str]]:
    """Backend's methods and its attributes (declared by annotation)."""
    methods = {name for name, value in vars(Backend).items()
               if inspect.isfunction(value) and not name.startswith("_")}
    return methods, set(Backend.__annotations__)


def test_the_protocol_names_what_the_driver_uses():
    methods, attributes = protocol_members()
    assert methods == {"submit", "wait", "get", "cancel", "close"}
    assert attributes == {"concurrency", "max_in_flight", "crash_errors", "task_error"}
    assert Backend.crash_errors == () and Backend.task_error == ()  # the defaults: no error means a crash


@pytest.mark.parametrize("cls", BACKENDS, ids=lambda c: c.__name__)
def test_every_backend_implements_every_method_with_the_protocols_parameters(cls):
    methods, _ = protocol_members()
    assert Backend in cls.__mro__  # declared, so the defaults (crash_errors, task_error) are inherited
    for name in methods:
        mine, declared = getattr(cls, name), getattr(Backend, name)
        assert mine is not declared, f"{cls.__name__}.{name} is the protocol's stub"
        assert list(inspect.signature(mine).parameters) == list(inspect.signature(declared).parameters), \
            f"{cls.__name__}.{name}{inspect.signature(mine)} is not Backend.{name}{inspect.signature(declared)}"


def test_a_serial_backend_is_a_backend_with_no_crash_errors(tmp_path):
    backend = SerialBackend(parse_config(league(tmp_path, ["random", "greedy"])), "run")
    try:
        assert isinstance(backend, Backend)  # every member present, the data ones included
        assert (backend.concurrency, backend.max_in_flight) == (1, 2)
        assert backend.crash_errors == () and backend.task_error == ()
    finally:
        backend.close()


def test_a_ray_backend_is_a_backend_whose_crash_errors_are_rays(tmp_path, ray_address):
    config = parse_config(league(tmp_path, ["random", "greedy"], ray={"workers": 1}))
    backend = RayBackend(config, "run", None, 1, 0)
    try:
        assert isinstance(backend, Backend)
        assert backend.concurrency == 1 and backend.max_in_flight == 2
        import ray.exceptions as rex
        assert rex.WorkerCrashedError in backend.crash_errors and backend.task_error is rex.RayTaskError
    finally:
        backend.close()


def test_the_driver_asks_a_backend_for_nothing_the_protocol_does_not_declare():
    """Every attribute the driver reads of its backend (``backend.X``, ``self.backend.X``) is a
    member of Backend: a backend written to the protocol runs under the driver."""
    methods, attributes = protocol_members()
    tree = ast.parse(RUNNER.read_text())
    used = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            target = node.value
            if (isinstance(target, ast.Name) and target.id == "backend") or (
                    isinstance(target, ast.Attribute) and target.attr == "backend"):
                used.add(node.attr)
    assert used, "the driver reads no backend attribute: this test no longer looks where it should"
    assert used <= methods | attributes, sorted(used - methods - attributes)
