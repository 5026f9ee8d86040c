"""The MCTS bot: UCT over the compiled engine, its search loop and rollouts in C (bots/_mcts.pyx),
the value of the positions the rollouts reach from an evaluator (bots/_evaluators.pyx).

Chance (the next deal) is sampled with the bot's own generator, seeded from the bot's seed and
the position: a search depends on nothing but the position, the seed and the parameters, and
never on the referee's deals (a GameState holds no generator of future deals anyway).
"""
from __future__ import annotations

from typing import Annotated, Literal

from engine import GameState, Move
from engine.notation import MOVES

from . import _evaluators, _mcts, _policies
from .base import Bot, CompiledForm
from .heuristic import ColourSet, Column, Later, Line, Marker, Row
from .registry import Param, bot_parameters, changed_parameters, check_params, declared, register, register_preset
from .value_file import default_model, model_bytes, read_model

EVALUATORS = tuple(_evaluators.EVALUATORS)  # the choices of the evaluator parameter
# The parameters only one evaluator reads (bots/_evaluators.pyx), and only at a round cut-off: the
# heuristic value's scale and its six weights (a heuristic rollout plays the heuristic's own
# defaults), and the learned value's model. ``parameters_error`` refuses them elsewhere.
READ_ONLY_BY = {"value_scale": "heuristic", "line": "heuristic", "later": "heuristic", "column": "heuristic",
                "row": "heuristic", "colour_set": "heuristic", "marker": "heuristic", "model": "value"}


@register("mcts")
class MCTSBot(Bot):
    """UCT search with a configurable rollout policy and cut-off (parameters: docs/bots.md)."""

    def __init__(
        self, seed: int = 0, *,
        iterations: Annotated[int, Param(
            "search iterations per move; the budget unless seconds is given", 1, 10_000_000)] = 5000,
        seconds: Annotated[float | None, Param(
            "a time budget per move; overrides iterations, and is then not deterministic",
            0.001, 3600.0)] = None,
        exploration: Annotated[float, Param(
            "the UCT constant c in mean + c * sqrt(ln N / n)", 0.0, 10.0)] = 0.7,
        rollout: Annotated[Literal["random", "greedy", "heuristic", "prior"], Param(
            "the policy that plays on from a leaf (prior: the policy prior's most likely draft; "
            "needs prior=model)")] = "greedy",
        cutoff: Annotated[Literal["round", "game"], Param(
            "round: stop each rollout at the round's end and value it with the evaluator; "
            "game: deal the next rounds with the bot's generator and play on")] = "round",
        evaluator: Annotated[Literal[EVALUATORS], Param(
            "how a rollout stopped before the game's end is valued: heuristic: the heuristic's "
            "evaluation, softened by value_scale; score: the points as they stand; value: the "
            "learned value network of model")] = "heuristic",
        value_scale: Annotated[float, Param(
            "points of heuristic evaluation margin that make a 73% pairwise value at a cut-off",
            0.01, 1000.0)] = 8.0,
        prior: Annotated[Literal["none", "model"], Param(
            "none: UCT; model: PUCT with the policy prior kept in model's file (its policy section, "
            "bots/prior.py), mean + puct * P * sqrt(N) / (1 + n)")] = "none",
        puct: Annotated[float, Param("prior=model's constant c in mean + c * P * sqrt(N) / (1 + n)",
                                     0.0, 100.0)] = 1.0,
        prune: Annotated[Literal["none", "floor"], Param(
            "moves the tree leaves out: none; floor: a draft to the floor when one pattern line "
            "could take all its tiles")] = "none",
        max_nodes: Annotated[int, Param(
            "the most tree nodes one search may hold (24 bytes each)", 1000, 2**31 - 1)] = 1 << 23,
        model: Annotated[str | None, Param(
            "evaluator=value's model: one shipped in bots/models by name, or the path of an "
            "azul-value/1 (network) or azul-ntuple/1 (n-tuple tables) file (its bytes travel with the bot); "
            "none: the shipped model of the table's player count (value-2p, value-3p, value-4p)")] = None,
        # the heuristic's weights that value a round's end with evaluator heuristic (its defaults)
        line: Line = 0.5, later: Later = 0.2, column: Column = 0.5, row: Row = 0.5,
        colour_set: ColourSet = 0.5, marker: Marker = 1.5,
    ):
        super().__init__(seed)
        self.iterations = iterations
        self.seconds = seconds
        self.exploration = exploration
        self.rollout = rollout
        self.cutoff = cutoff
        self.evaluator = evaluator
        self.value_scale = value_scale
        self.max_nodes = max_nodes
        self.prune = prune
        self.prior = prior
        self.puct = puct
        self._prior_weights = None
        self.model = model
        # read once, pickled along; without a model, the table's model is read at the first search
        self._model = model_bytes(model) if evaluator == "value" and model is not None else None
        self.line, self.later, self.column, self.row = line, later, column, row
        self.colour_set, self.marker = colour_set, marker
        self._search = None
        self._evaluator = None

    def parameters(self) -> dict:
        """Every parameter's value by name, written out (a preset's constants too)."""
        return {name: getattr(self, name) for name in bot_parameters("mcts")}

    @property
    def name(self) -> str:
        shown = {"iterations": self.iterations, "seconds": self.seconds,
                 **changed_parameters(self, self.parameters())}
        if self.seconds is None:
            del shown["seconds"]
        else:
            del shown["iterations"]
        if "model" in shown:   # a file: its name (bot names hold no '/')
            shown["model"] = self.model.replace("\\", "/").rsplit("/", 1)[-1]
        return f"{self.type_name}(" + ", ".join(f"{k}={v}" for k, v in shown.items()) + ")"

    @classmethod
    def parameters_error(cls, params: dict) -> str | None:
        """A parameter the other settings leave unread is refused when it differs from the type's
        default (a preset's, for a preset): a default written out is always accepted (docs/bots.md,
        "No parameter is accepted that does nothing" and "What reads what")."""
        defaults = {p.name: p.default for p in declared(cls)}
        preset_prior = defaults["prior"] == "model"   # a preset that searches with its model's prior
        if params["prior"] == "model" and (params["evaluator"] != "value" or params["cutoff"] != "round"):
            return ("prior=model reads the policy section of the value model's file: it needs "
                    "evaluator=value and cutoff=round" + (" (or add prior=none)" if preset_prior else ""))
        if params["rollout"] == "prior" and params["prior"] != "model":
            return ("rollout=prior plays the policy prior's most likely draft, read from the model's "
                    "policy section with prior=model: add prior=model, or choose another rollout")
        for name in (p.name for p in declared(cls)):
            value = params[name]
            if value == defaults[name]:
                continue
            if name == "puct" and params["prior"] != "model":
                return (f"puct={value} is read only with prior=model (a policy prior): add prior=model, "
                        "or leave puct out")
            if name == "exploration" and params["prior"] == "model":
                return (f"exploration={value} is UCT's constant, unread with prior=model (PUCT's is puct): "
                        "leave exploration out" + (", or add prior=none to search by UCT" if preset_prior else ""))
            if name == "iterations" and params["seconds"] is not None:
                return (f"iterations={value} is the budget only without seconds (seconds="
                        f"{params['seconds']:g} replaces it): give one of them")
            wanted = READ_ONLY_BY.get(name)
            if wanted and params["evaluator"] != wanted:
                return (f"{name}={value} is read only by evaluator={wanted} (evaluator is "
                        f"{params['evaluator']}): add evaluator={wanted}, or leave {name} out")
            if (wanted or name == "evaluator") and params["cutoff"] != "round":
                return (f"{name}={value} is read only with cutoff=round (cutoff=game plays every rollout "
                        f"to the game's end, where no evaluator is asked): leave {name} out")
        return None

    def models(self, players: int) -> tuple[str, ...]:
        if self.evaluator != "value" or self.cutoff != "round":  # cutoff=game asks no evaluator
            return ()
        return (self.model if self.model is not None else default_model(players),)

    def table_error(self, players: int, variant: str) -> str | None:
        made_for = PRESET_PLAYERS.get(self.type_name)
        if made_for is not None and made_for != players:
            other = f"mcts-{players}p" if f"mcts-{players}p" in PRESETS else "mcts"
            return (f"{self.type_name} is made for {made_for}-player tables, not a {players}-player one: "
                    f"at {players} players play {other} (or mcts:evaluator=value)")
        if self.evaluator != "value":
            return None
        if self.model is None:  # the shipped model of that player count, if there is one
            try:
                name = default_model(players)
            except ValueError as exc:
                return str(exc)
            return self._prior_error(model_bytes(name), name)
        wanted = read_model(self._model, self.model)[0]["players"]
        if wanted == players:
            return self._prior_error(self._model, self.model)
        return (f"mcts: model {self.model!r} values {wanted}-player games, not {players}-player ones "
                f"(a {players}-player table)")

    def _prior_error(self, data: bytes, name: str) -> str | None:
        """With prior=model: why the model file cannot give the prior (it holds no policy section)."""
        if self.prior != "model":
            return None
        from .prior import PolicyPrior
        try:
            found = PolicyPrior.from_model(data, name)
        except ValueError as exc:
            return str(exc)
        return None if found is not None else (f"mcts: prior=model, but the model {name!r} holds no policy section "
                                               "(fit one: docs/train.md, 'The policy prior')")

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_search"] = None        # the node pool and the evaluator are rebuilt on first use
        state["_evaluator"] = None
        return state

    # ------------------------------------------------------------ playing
    def act(self, state: GameState) -> Move:
        """The most visited move at the root after the search (the shown state is not changed)."""
        search = self._run(state, None)
        return MOVES[search.best_move()]

    def choose_among(self, state: GameState, allowed: list[Move]) -> Move:
        """The most visited of the allowed moves, the search's root restricted to them (one
        allowed move is played without a search: each search draws from its own seeded stream)."""
        if len(allowed) == 1:
            return allowed[0]
        return MOVES[self._run(state, None, [m.code for m in allowed]).best_move()]

    def choose_planned(self, state: GameState, plan: tuple[float, float, float, float]) -> Move:
        """The most visited move of a search whose root adds each move's plan bias, in points,
        times ``points_value`` to its child's mean (docs/bots.md, "Plans"); rollouts do not see it."""
        scale = self.points_value()
        bias = {code: points * scale for code, points in _policies.plan_biases(state, plan).items()}
        return MOVES[self._run(state, None, None, bias).best_move()]

    def points_value(self) -> float:
        """One point of final score in the search's value units: the heuristic evaluator's pairwise
        share sigmoid(margin / value_scale) rises by 1 / (4 value_scale) a point at an even
        position; the learned value and the score evaluator take the same slope at the default
        scale 8 (1/32 a point)."""
        return 1 / (4 * (self.value_scale if self.evaluator == "heuristic" else 8.0))

    def compiled_form(self) -> CompiledForm:
        """The compiled league loop asks ``act`` once per move (its search runs in C)."""
        return CompiledForm("callback")

    def analyze(self, state: GameState, iterations: int | None = None) -> list[dict]:
        """Each root move's visits, mean value (for the seat to move, in [0, 1]) and principal
        variation, sorted by visits (most first; the first row is the move ``act`` plays)."""
        search = self._run(state, iterations)
        rows = search.root_rows(8)
        best = search.best_move()
        order = sorted(range(len(rows)), key=lambda i: (rows[i][0] != best, -rows[i][1], -rows[i][2]))
        return [{"move": str(MOVES[rows[i][0]]), "visits": int(rows[i][1]), "value": float(rows[i][2]),
                 "pv": [str(MOVES[c]) for c in rows[i][3]]} for i in order]

    def position_values(self, state: GameState, iterations: int | None = None) -> list[float]:
        """Each seat's value of the position, in [0, 1], after a search from it: the mean over the
        iterations through the move the search plays (its most visited) of what the rollouts and
        the evaluator gave that seat. What a review maps to win probabilities (analysis/calibration.py)."""
        search = self._run(state, iterations)
        return search.child_values(search.best_move())

    def _run(self, state: GameState, iterations: int | None, allowed: list[int] | None = None,
             root_bias: dict[int, float] | None = None):
        if not isinstance(state, GameState):
            raise ValueError(f"mcts: expected a GameState, not {type(state).__name__}")
        if state.phase not in ("draft", "tiling"):
            raise ValueError(f"mcts: no move to choose in phase {state.phase}")
        if iterations is not None:
            iterations = check_params("mcts", {"iterations": iterations})["iterations"]
        budget = self.iterations if iterations is None else iterations
        seconds = self.seconds if iterations is None else None
        if self.evaluator == "value" and self.model is None and (
                self._model is None or self._evaluator is None or self._evaluator.players != state.players):
            self._model = model_bytes(default_model(state.players))  # the table's: value-2p, value-3p, ...
            self._evaluator = None
            self._prior_weights = None
        if self._search is None:
            self._search = _mcts.Search(self.max_nodes)
        if self._evaluator is None:
            self._evaluator = _evaluators.make_evaluator(
                self.evaluator, model_bytes=self._model, **self.parameters())
        if self._model is not None and self._evaluator.players != state.players:
            raise ValueError(f"mcts: model {self.model!r} values {self._evaluator.players}-player "
                             f"games, not {state.players}-player ones")
        if seconds is not None:
            budget = 1 << 62
        if self.prior == "model" and self._prior_weights is None:
            from .prior import PolicyPrior
            found = PolicyPrior.from_model(self._model, self.model or "the table's model")
            if found is None:
                raise ValueError(self._prior_error(self._model, self.model or default_model(state.players)))
            self._prior_weights = list(found.weights)
        self._search.run(state, self.seed, budget, seconds or 0.0, self.exploration,
                         self.rollout, self.cutoff, self._evaluator, allowed, self.prune, root_bias,
                         self._prior_weights, self.puct)
        return self._search


# ---------------------------------------------------------------- presets
# The strongest MCTS per player count, each a bot type of its own (``mcts-2p:iterations=1000``),
# each the learned value of its table (evaluator=value: the n-tuple tables of value-Np) searched
# by PUCT with the policy prior fitted on the moves the preset before played (prior=model: the
# policy section of value-Np-prior, whose value section is value-Np's bytes; issue 46,
# docs/train.md "The policy prior"). PUCT's constant was chosen at 1,000 iterations at 2 players
# (where 0.05 s a move agreed: examples/prior-puct-time-2p.yaml) and at 0.05 s a move at 3 and 4;
# each preset was checked at 0.05 s a move against the one before, by SPRT at 2 players and by
# Plackett-Luce leagues at 3 and 4. The presets before, written out in full: mcts-2p
# ``mcts:evaluator=value,prune=floor``, mcts-3p ``mcts:evaluator=value,exploration=0.07767``
# (until 2026-12-07), mcts-4p ``mcts:evaluator=value,exploration=0.08777`` (until 2026-12-08; the
# exploration ``azul tune`` found at 5,000 iterations, configs/tunes/mcts-value-4p-5000.yaml), each
# value-Np the default model; mcts-2p's floor pruning: docs/train.md "The presets and the goals".
# Before the learned value, mcts-2p was ``mcts:exploration=0.1458,value_scale=2.598``
# (configs/tunes/mcts-2p.yaml). MCTS's own defaults do not change.
PRESETS: dict[str, dict[str, float | str]] = {
    "mcts-2p": {"evaluator": "value", "prune": "floor", "model": "value-2p-prior", "prior": "model"},
    "mcts-3p": {"evaluator": "value", "model": "value-3p-prior", "prior": "model", "puct": 0.5},
    "mcts-4p": {"evaluator": "value", "model": "value-4p-prior", "prior": "model", "puct": 0.25},
}

# A preset is made for the player count its name says (its model and its search settings were
# chosen there): ``table_error`` refuses a table of another count rather than play value-2p
# under the name mcts-3p.
PRESET_PLAYERS = {name: int(name[5]) for name in PRESETS}

for _name, _values in PRESETS.items():
    _learned = "the learned value and policy prior" if "prior" in _values else "the learned value"
    register_preset(_name, MCTSBot, _values, f"MCTS with {_learned} at {_name[5]} players and the search "
                                             f"settings chosen for it (docs/tune.md, docs/train.md).")
