#!/usr/bin/env python3
"""Bots that break the azul-bot/1 protocol on purpose, or probe the referee, for its tests.

    python3 broken_bots.py MODE [ARG]

MODE is one of:
  crash          answers hello, then at its first move prints a traceback to stderr and exits 3
  hang           answers hello, then never answers a move
  stubborn       like hang, and ignores SIGTERM (the referee has to kill it)
  garbage        answers hello, then answers a move with the text xyz
  illegal        answers hello, then answers every move with ARG (default 1B9)
  silent-hello   reads the hello and never answers it
  chatty         writes megabytes to stderr before each answer, then plays the first legal move
  slow-start     sleeps ARG seconds before answering hello, then plays the first legal move
  flood          answers hello, then at its first move writes ARG megabytes (default 3) with no
                 newline and waits
  nested         answers hello, then answers a move with JSON nested 100,000 deep
  nested-hello   answers hello with JSON nested 100,000 deep
  spam           answers hello, writes ARG info lines of 100,000 characters each (default 100),
                 then plays the first legal move
  log            appends "hello SEED", "reset SEED" and "move TIME_LEFT" lines to the file ARG,
                 plays the first legal move with info {"resets": resets so far}
"""
import json
import signal
import sys
import time

mode = sys.argv[1]
arg = sys.argv[2] if len(sys.argv) > 2 else {"flood": "3", "spam": "100"}.get(mode, "1B9")
NESTED = "[" * 100_000 + "]" * 100_000
if mode == "stubborn":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
resets = 0


def say(message):
    print(json.dumps(message), flush=True)


def log(line):
    if mode == "log":
        with open(arg, "a") as out:
            print(line, file=out)


for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        if mode == "silent-hello":
            time.sleep(3600)
        if mode == "slow-start":
            time.sleep(float(arg))
        log(f"hello {message['seed']}")
        if mode == "nested-hello":
            print(NESTED, flush=True)
            continue
        say({"type": "hello", "name": f"broken-{mode}", "version": "0"})
        if mode == "spam":
            for _ in range(int(arg)):
                say({"type": "info", "pad": "x" * 100_000})
    elif message["type"] == "move":
        if mode == "crash":
            print("Traceback (most recent call last):\nRuntimeError: boom", file=sys.stderr)
            print("the bot crashed on purpose", file=sys.stderr, flush=True)
            sys.exit(3)
        if mode in ("hang", "stubborn"):
            time.sleep(3600)
        if mode == "flood":
            for _ in range(int(arg) * 16):
                sys.stdout.write("x" * 65536)
                sys.stdout.flush()
            time.sleep(3600)
        if mode == "nested":
            print(NESTED, flush=True)
        if mode == "garbage":
            print("xyz", flush=True)
        elif mode == "illegal":
            say({"type": "move", "move": arg})
        elif mode == "chatty":
            for _ in range(2000):
                print("thinking " * 100, file=sys.stderr)
            say({"type": "move", "move": message["legal"][0]})
        elif mode in ("slow-start", "log", "spam"):
            log(f"move {message['time_left']}")
            say({"type": "move", "move": message["legal"][0], "info": {"resets": resets}})
    elif message["type"] == "reset":
        resets += 1
        log(f"reset {message.get('seed')}")
    elif message["type"] == "quit":
        break
