"""Bots in any language: a program that speaks the ``azul-bot/1`` protocol on stdin/stdout.

One JSON object per line each way (the protocol is documented in docs/bots.md and
examples/README.md). The referee side lives here: ``reset`` starts the program before a game
(outside any move's clock, within ``startup_time``) or tells a running one that a new game begins;
``act`` reads its answer against a deadline, and turns every failure (a crash, a hang, garbage,
an illegal move) into a ``BotForfeit`` whose ``kind`` is ``"timeout"``, ``"illegal"`` or
``"error"``, after killing the process. The next ``reset`` (or ``act``) starts a fresh process.
"""
from __future__ import annotations

import collections
import json
import os
import queue
import signal
import subprocess
import threading
import time
from typing import Annotated, Any, NoReturn

from engine import GameState, IllegalMoveError, Move

from .base import Bot
from .registry import Param, register

PROTOCOL = "azul-bot/1"
STDERR_LINES = 50  # the stderr lines kept (each cut to STDERR_LINE_CHARS)
STDERR_LINE_CHARS = 2000
LINE_CHARS = 1_000_000  # the longest line (newline not counted) a bot may send on stdout
QUEUED_LINES = 16  # stdout lines read ahead of the referee; then the bot waits to write more
KILL_GRACE = 1.0  # seconds between terminate and kill
MOVE_TIME = 5.0  # seconds per move when neither move_time nor the referee sets a limit


class BotForfeit(RuntimeError):
    """An external bot lost the game by misbehaving; ``kind`` is "timeout", "illegal" or "error"."""

    def __init__(self, reason: str, kind: str = "error"):
        super().__init__(reason)
        self.reason = reason
        self.kind = kind


TOO_LONG = object()  # the stdout reader's mark for a line over LINE_CHARS (it stops reading)


def _garbage(line: str) -> BotForfeit:
    shown = line if len(line) <= 80 else line[:77] + "..."
    return BotForfeit(f"sent garbage: {shown!r}", "error")


@register("external")
class ExternalBot(Bot):
    """A bot that runs as a separate program (any language) and answers over pipes."""

    def __init__(
        self, seed: int = 0, *,
        command: Annotated[list[str], Param(
            "the program and its arguments, e.g. ['python3', 'examples/random_bot.py'] "
            "(run without a shell, in the current directory)", 1)],
        move_time: Annotated[float | None, Param(
            "seconds the bot has for each move: the referee's time limit if lower, 5 if neither is "
            "set (default: the referee's limit)", 0.001, 3600.0)] = None,
        startup_time: Annotated[float, Param(
            "seconds it has to answer the hello", 0.001, 3600.0)] = 10.0,
        name: Annotated[str | None, Param(
            "the label in tables and records (default: external(FILE), FILE the file name of the "
            "command's last word; the hello's name once the program has answered)")] = None,
    ):
        super().__init__(seed)
        if not command or not command[0]:
            raise ValueError(f"external: parameter command must name a program first, not {command!r}")
        self.command = list(command)
        self.move_time = None if move_time is None else float(move_time)
        self.startup_time = float(startup_time)
        self._name = name
        self.hello: dict[str, Any] | None = None  # the bot's hello: name, version
        self.last_info: Any = None  # the "info" of its last move, if it sent one
        self.process: subprocess.Popen | None = None
        self._lines: queue.Queue = queue.Queue(QUEUED_LINES)
        self._stderr: collections.deque = collections.deque(maxlen=STDERR_LINES)
        self._threads: list[threading.Thread] = []

    # ------------------------------------------------------------ the Bot interface
    @property
    def name(self) -> str:
        if self._name:
            return self._name
        if self.hello and self.hello.get("name"):
            return str(self.hello["name"])
        return f"external({os.path.basename(self.command[-1])})"

    @property
    def move_limit(self) -> float:
        """The seconds a move may take: the lower of ``move_time`` and the referee's limit."""
        limits = [t for t in (self.move_time, self.time_limit) if t is not None]
        return min(limits) if limits else MOVE_TIME

    def reset(self) -> None:
        """A new game: start the program (its start-up outside any move's clock), or tell the
        running one (``{"type": "reset", "seed": seed}``, no answer expected)."""
        if self.process is not None and self.process.poll() is not None:
            self._kill()  # it exited between games: start it afresh
        if self.process is None:
            self.start()
        else:
            self._send({"type": "reset", "seed": self.seed}, quiet=True)

    def act(self, state: GameState) -> Move:
        legal = state.legal_moves()
        if not legal:
            raise ValueError(f"external: no legal move in phase {state.phase}")
        self.start()  # a bot used without reset starts here (a referee's clock would include it)
        asked = time.monotonic()
        try:
            message, line = self._ask(state, legal, asked)
        except BotForfeit:
            raise
        except BaseException:  # e.g. the referee's alarm: an answer may still come, so stop it
            self._kill()
            raise
        text = message.get("move")
        if message.get("type") != "move" or not isinstance(text, str):
            self._forfeit(_garbage(line))
        self.last_info = message.get("info")
        by_text = {str(m): m for m in legal}
        try:
            move = Move.parse(text)
        except ValueError as exc:
            shown = text if text.isalnum() and len(text) <= 8 else repr(text[:40])
            self._forfeit(BotForfeit(f"illegal move {shown}: {self._why(text, exc)}", "illegal"))
        if str(move) in by_text:
            return by_text[str(move)]
        try:
            state.clone().play(move)
            why = "not among the legal moves"
        except IllegalMoveError as exc:
            why = self._why(str(move), exc)
        self._forfeit(BotForfeit(f"illegal move {move}: {why}", "illegal"))

    def _ask(self, state: GameState, legal: list[Move], asked: float) -> tuple[dict, str]:
        """Send the move request; the answer (skipping info lines) within the move's limit."""
        limit = self.move_limit
        deadline = asked + limit
        self._send({"type": "move", "position": state.to_json(), "legal": [str(m) for m in legal],
                    "time_left": round(max(0.0, deadline - time.monotonic()), 3)})
        while True:
            reply = self._receive(deadline, lambda: f"timed out after {limit} s")
            if reply[0].get("type") != "info":  # progress lines are allowed before the answer
                return reply

    # ------------------------------------------------------------ process life
    def start(self) -> None:
        """Start the program and shake hands, unless it is already running."""
        if self.process is not None:
            return
        popen_args: dict[str, Any] = {}
        if os.name == "posix":
            popen_args["start_new_session"] = True  # its own group: killed with its children
        try:
            self.process = subprocess.Popen(
                self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                text=True, encoding="utf-8", errors="replace", bufsize=1, **popen_args)
        except OSError as exc:
            raise BotForfeit(f"could not start {self.command[0]!r}: {exc.strerror or exc}",
                             "error") from None
        self._lines = queue.Queue(QUEUED_LINES)
        self._stderr = collections.deque(maxlen=STDERR_LINES)
        self._threads = [
            threading.Thread(target=self._pump_stdout, args=(self.process.stdout, self._lines),
                             daemon=True),
            threading.Thread(target=self._pump_stderr, args=(self.process.stderr, self._stderr),
                             daemon=True),
        ]
        for thread in self._threads:
            thread.start()
        self._send({"type": "hello", "protocol": PROTOCOL, "seed": self.seed})
        message, line = self._receive(time.monotonic() + self.startup_time,
                                      lambda: f"did not answer hello within {self.startup_time} s")
        if message.get("type") != "hello":
            self._forfeit(BotForfeit(f"did not answer hello: it sent {line[:80]!r}", "error"))
        self.hello = {"name": message.get("name"), "version": message.get("version")}

    def close(self) -> None:
        """Say quit, give the program a moment to exit, then make sure it is gone."""
        if self.process is None:
            return
        try:
            self._send({"type": "quit"}, quiet=True)
            self.process.wait(timeout=KILL_GRACE)
        except (subprocess.TimeoutExpired, OSError, ValueError):
            pass
        self._kill()

    def __enter__(self) -> "ExternalBot":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __getstate__(self) -> dict:  # a pickled copy (e.g. sent to a worker) starts its own
        state = self.__dict__.copy()
        state.update(process=None, _lines=None, _stderr=None, _threads=[])
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state, _lines=queue.Queue(QUEUED_LINES),
                             _stderr=collections.deque(maxlen=STDERR_LINES))

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001  (never raise from a finalizer)
            pass

    # ------------------------------------------------------------ helpers
    @staticmethod
    def _pump_stdout(stream, lines: queue.Queue) -> None:
        """Each line into ``lines`` (bounded: a bot that writes faster than the referee reads
        waits); a line over LINE_CHARS puts TOO_LONG and stops reading, so memory stays bounded."""
        try:
            while True:
                line = stream.readline(LINE_CHARS + 1)
                if not line:
                    break
                if len(line) > LINE_CHARS and not line.endswith("\n"):
                    lines.put(TOO_LONG)
                    return
                lines.put(line)
        except (OSError, ValueError):
            pass
        lines.put(None)  # end of output: the program exited or closed stdout

    @staticmethod
    def _pump_stderr(stream, kept: collections.deque) -> None:
        try:
            while True:
                line = stream.readline(STDERR_LINE_CHARS)
                if not line:
                    return
                if line.strip():
                    kept.append(line.rstrip("\n"))
        except (OSError, ValueError):
            pass

    def _send(self, message: dict, quiet: bool = False) -> None:
        try:
            self.process.stdin.write(json.dumps(message, separators=(",", ":")) + "\n")
            self.process.stdin.flush()
        except (OSError, ValueError):  # a broken pipe: it has exited, or closed its input
            if not quiet:
                self._forfeit(self._exited())

    def _receive(self, deadline: float, timeout_reason) -> tuple[dict, str]:
        """The next non-blank line as a JSON object (and the line), or a forfeit."""
        while True:
            try:
                line = self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                self._forfeit(BotForfeit(timeout_reason(), "timeout"))
            if line is None:
                self._forfeit(self._exited())
            if line is TOO_LONG:
                self._forfeit(BotForfeit(f"sent a line longer than {LINE_CHARS} characters", "error"))
            line = line.strip()
            if not line:
                continue
            try:
                message = json.loads(line)
            except (ValueError, RecursionError):  # not JSON, or nested too deep to read
                self._forfeit(_garbage(line))
            if not isinstance(message, dict):
                self._forfeit(_garbage(line))
            return message, line

    def _exited(self) -> BotForfeit:
        try:
            code = self.process.wait(timeout=KILL_GRACE)
        except subprocess.TimeoutExpired:
            return BotForfeit("closed its output but kept running", "error")
        self._threads[1].join(timeout=KILL_GRACE)  # let the last stderr lines arrive
        last = self._stderr[-1].strip() if self._stderr else ""
        return BotForfeit(f"exited with code {code}" + (f": {last}" if last else ""), "error")

    def _forfeit(self, error: BotForfeit) -> NoReturn:
        self._kill()
        raise error

    def _kill(self) -> None:
        """Terminate, wait, then kill (the whole process group on POSIX); reap it; close pipes."""
        process, self.process = self.process, None
        if process is None:
            return
        if process.poll() is None:  # not reaped yet, so its pid (and group id) is still its own
            self._signal(process, signal.SIGTERM)
            try:
                process.wait(timeout=KILL_GRACE)
            except subprocess.TimeoutExpired:
                self._signal(process, getattr(signal, "SIGKILL", signal.SIGTERM))
                process.wait()
        self._close(process.stdin)
        deadline = time.monotonic() + KILL_GRACE
        for thread in self._threads:  # the stdout reader may wait on a full queue: empty it
            while thread.is_alive() and time.monotonic() < deadline:
                self._drain(self._lines)
                thread.join(timeout=0.01)
        if not any(thread.is_alive() for thread in self._threads):
            self._close(process.stdout)
            self._close(process.stderr)

    @staticmethod
    def _drain(lines: queue.Queue) -> None:
        try:
            while True:
                lines.get_nowait()
        except queue.Empty:
            pass

    @staticmethod
    def _close(stream) -> None:
        try:
            stream.close()
        except (OSError, ValueError):
            pass

    @staticmethod
    def _signal(process: subprocess.Popen, sig: int) -> None:
        try:
            if os.name == "posix":
                os.killpg(process.pid, sig)
            elif sig == signal.SIGTERM:
                process.terminate()
            else:
                process.kill()
        except (ProcessLookupError, PermissionError, OSError):
            pass

    @staticmethod
    def _why(text: str, exc: Exception) -> str:
        reason = str(exc)
        for prefix in (f"illegal move {text}: ", f"not a move: {text!r} "):
            if reason.startswith(prefix):
                return ("not a move " if prefix.startswith("not") else "") + reason[len(prefix):]
        return reason
