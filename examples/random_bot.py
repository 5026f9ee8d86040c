#!/usr/bin/env python3
"""A complete Azul bot for the azul-bot/1 protocol: it plays a uniformly random legal move.

The referee writes one JSON object per line on our stdin; we answer one per line on stdout.
Standalone on purpose (no import from the azul-league project): copy it and change choose().
Try it: make_bot("external", command=["python3", "examples/random_bot.py"])
"""
import json
import random
import sys

rng = random.Random()


def choose(position, legal, time_left):
    """Pick a move: position is the azul-position/1 dict, legal the moves in notation."""
    return rng.choice(legal)


for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":  # the handshake: seed our generator, say who we are
        rng.seed(message.get("seed", 0))
        reply = {"type": "hello", "name": "example-random", "version": "1.0"}
    elif message["type"] == "move":
        move = choose(message["position"], message["legal"], message["time_left"])
        reply = {"type": "move", "move": move, "info": {"choices": len(message["legal"])}}
    elif message["type"] == "quit":
        break
    else:  # "reset" (a new game) and any message type added later: no answer
        continue
    print(json.dumps(reply), flush=True)
