"""Duplicate-deal evaluation of agents: matches, pairings, round robins, ratings.

A match is fully determined by its ``GameState`` seed (first dealer and every shuffle derive
from it) and by the agents' own seeds. A *duplicate* pairing plays each deal sequence (one game
seed) once per seating:

* two sides (yorkshire, traditional with 2 or 4 players, seven_up): agent A on side 0 and B on
  side 1, then the same seed with the sides swapped;
* three players (traditional ``players=3``): A is rotated through seats 0, 1, 2 with B in the
  other two seats (A plays alone against two copies of B; an even match is won 1/3 of the time).

Every pairing of a run uses the same game seeds, so all agents meet the same deals. Each match's
seeds derive from the run seed, the game and the deal only, and ``play_match`` seeds each agent
from them and its seat: a match of A and B is the same whatever the other pairings of the run,
the order its agents are listed in or the number of worker processes, so a pairing's figures are
the same on every board that holds it and in a lone ``allfours eval``.

An agent that exists only in memory (the network under training) plays the same schedule through
``agents={name: agent}`` or ``evaluate_agent``: its row is the one ``allfours eval`` prints for the
agent saved to a file, on the same seed and options.

Agents are named by specs (text or ``agents.spec.AgentSpec``), parsed once; a task carries the
parsed values and the game's ``Rules`` to the process that plays it, and each process builds an
agent once per spec and game (``build_agent``): the checks before the first match build the
agents that this process then plays, and a worker process builds each on its first match.

    from allfours.agents.evaluation import evaluate_agent, evaluate_pairing, round_robin
    res = round_robin(["search", "heuristic", "random"], preset="yorkshire", matches=400, seed=0)
    row = evaluate_agent(my_agent, "heuristic", preset="yorkshire", matches=400, seed=0)

Stopped by Ctrl-C (or any ``KeyboardInterrupt``, such as the one ``allfours eval`` raises for
SIGTERM), ``run_tasks`` and ``evaluate_pairings`` raise ``EvaluationInterrupted`` carrying the
finished matches; ``evaluate_pairings`` adds ``report``, the results of the duplicate groups
played in full (``"partial": true``). Worker processes ignore Ctrl-C from their start: it reaches
every process of a terminal's group, and only the parent acts on it (it ends the pool).

``ray_address`` (``"local"``, ``"auto"``, ``HOST:PORT``) plays the same schedule as Ray tasks on
a cluster instead of local processes (``allfours.agents.ray_eval``), with the same results, the
same progress bar and the same partial report when stopped.
"""

from __future__ import annotations

import contextlib
import math
import multiprocessing as mp
import os
import random
import signal
import statistics
import threading
from dataclasses import dataclass, field

import torch
from scipy import stats
from tqdm import tqdm

from allfours_env import GameState, make_rules
from allfours_env.rules import PRESETS, Rules

from . import ray_eval
from .base import Agent, check_turn
from .rating import fit_ratings
from .registry import make_agent
from .spec import AgentSpec

_AGENT_CACHE: dict = {}


MIN_UNITS = 10  # deals needed for a points-per-hand interval


def derive_seed(*parts) -> int:
    """A stable 63-bit seed from the parts (same in every process and Python run)."""
    return random.Random(":".join(str(p) for p in parts)).getrandbits(63)


# ---------------------------------------------------------------------- one match
def play_match(agents: list[Agent], preset: str | Rules = "yorkshire", seed: int = 0, agent_seed: int | None = None,
               options: dict | None = None) -> dict:
    """Play one whole match; ``agents[seat]`` moves for each seat (one object may sit in several seats).
    ``preset``: a preset's name (with rule ``options``) or the game's ``Rules`` themselves.

    Every distinct agent object is reseeded from ``agent_seed`` (default: from ``seed``) first.
    Returns {"winner": side, "scores", "hands", "points": [per side, summed over hands], "decisions"}.
    """
    rules = preset if isinstance(preset, Rules) and not options else make_rules(preset, **(options or {}))
    if len(agents) != rules.players:
        raise ValueError(f"play_match needs {rules.players} agents (one per seat) for {rules.preset!r}, "
                         f"got {len(agents)}")
    base = seed if agent_seed is None else agent_seed
    seen: list[int] = []
    for i, a in enumerate(agents):
        if not isinstance(a, Agent):
            raise ValueError(f"agents[{i}] is not an Agent: {a!r}")
        if id(a) not in seen:
            seen.append(id(a))
            a.seed(derive_seed(base, "agent", i))
    state = GameState.new(rules, seed=seed)
    points = [0] * rules.sides
    hands_seen = state.hand_no
    decisions = 0
    while not state.done:
        seat = state.current
        check_turn(state, seat)
        action = agents[seat](state, seat)  # Agent.__call__ checks legality
        state.apply(action)
        decisions += 1
        if state.hand_no != hands_seen:
            for result in state.hand_results[hands_seen:]:  # one, or two when a turn-up won at once
                for s, p in enumerate(result["points"]):
                    points[s] += p
            hands_seen = state.hand_no
    return {"winner": state.winner, "scores": list(state.scores), "hands": state.hand_no, "points": points,
            "decisions": decisions}


# ---------------------------------------------------------------------- schedule
@dataclass(frozen=True)
class Task:
    """One match of a duplicate pairing: ``seats[seat]`` = index of the agent in ``specs`` (an
    ``AgentSpec``, or the name of an in-memory agent); ``rules``, the game (``preset`` with ``options``)."""
    pairing: int
    deal: int
    variant: int
    preset: str
    options: tuple
    specs: tuple
    seats: tuple
    game_seed: int
    agent_seed: int
    rules: Rules | None = None


def seatings(players: int) -> list[tuple[int, ...]]:
    """Seat assignments of a duplicate group: 0 = agent A, 1 = agent B."""
    if players == 4:
        return [(0, 1, 0, 1), (1, 0, 1, 0)]
    if players == 2:
        return [(0, 1), (1, 0)]
    if players == 3:
        return [(0, 1, 1), (1, 0, 1), (1, 1, 0)]
    raise ValueError(f"unsupported number of players {players}")


def make_tasks(pairs: list[tuple], preset: str, matches: int, seed: int, options: dict | None = None,
               rules: Rules | None = None) -> list[Task]:
    """The schedule of ``pairs`` (specs, or names of in-memory agents); ``rules``: the game of
    ``preset`` with ``options``, made by the caller (default: made here)."""
    if rules is None:
        rules = make_rules(preset, **(options or {}))
    group = len(seatings(rules.players))
    if not isinstance(matches, int) or matches < group or matches % group:
        raise ValueError(f"matches must be a positive multiple of {group} for {preset!r} with {rules.players} "
                         f"players (each deal is played {group} times), got {matches!r}")
    # Options at the preset's own value (``--players 4`` on traditional) do not change the deals.
    base = PRESETS[preset]
    opts = tuple(sorted((k, v) for k, v in (options or {}).items() if getattr(base, k) != v))
    tasks = []
    for p, (a, b) in enumerate(pairs):
        for d in range(matches // group):
            game_seed = derive_seed(seed, preset, opts, "deal", d)
            # Agents are seeded from the deal and their seats alone (play_match): never from the pairing's
            # place in the schedule, so a pairing plays the same on every board and in a lone eval.
            agent_seed = derive_seed(seed, preset, opts, "agents", d)
            for v, seating in enumerate(seatings(rules.players)):
                tasks.append(Task(p, d, v, preset, opts, (a, b), seating, game_seed, agent_seed, rules))
    return tasks


def build_agent(spec: str | AgentSpec, rules: Rules) -> Agent:
    """The agent of ``spec`` for the game ``rules``, made by ``make_agent`` once per process, spec and game
    (reseeded before every match, so one object serves every match of the process)."""
    spec = AgentSpec.parse(spec)
    key = (spec, rules)
    if key not in _AGENT_CACHE:
        _AGENT_CACHE[key] = make_agent(spec, preset=rules.preset, players=rules.players)
    return _AGENT_CACHE[key]


def _rules(task: Task) -> Rules:
    return task.rules if task.rules is not None else make_rules(task.preset, **dict(task.options))


def task_agent(task: Task, k: int) -> Agent:
    """The agent of ``task.specs[k]`` (``build_agent``: once per process and spec)."""
    return build_agent(task.specs[k], _rules(task))


def run_task(task: Task, agents: dict | None = None) -> dict:
    """Play one task; a name in ``agents`` is played by that object, any spec by its agent (``build_agent``)."""
    rules = _rules(task)
    objs = [agents[spec] if agents and isinstance(spec, str) and spec in agents else build_agent(spec, rules)
            for spec in task.specs]
    out = play_match([objs[i] for i in task.seats], rules, task.game_seed, task.agent_seed)
    side_a = {rules.side(s) for s, i in enumerate(task.seats) if i == 0}
    (sa,) = side_a
    out["a_side"] = sa
    out["a_won"] = out["winner"] == sa
    return out


def init_worker():
    """Initializer of a spawned worker process that may run neural agents (evaluation, benchmarks)."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    torch.set_num_threads(1)  # a neural agent must not take every core of a shared machine
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C (children_ignore covers the start)


WORKER_IGNORES = tuple(getattr(signal, n) for n in ("SIGINT", "SIGHUP") if hasattr(signal, n))


@contextlib.contextmanager
def children_ignore(signals=WORKER_IGNORES):
    """Processes started inside ignore ``signals`` from their first instruction.

    An ignored signal stays ignored across exec and Python keeps it so, while a handler does not
    survive: without this a Ctrl-C while a spawned child imports torch prints its traceback. A
    signal to this process during the few milliseconds of the start is lost."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {s: signal.signal(s, signal.SIG_IGN) for s in signals}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, signal.SIG_DFL if handler is None else handler)


class EvaluationInterrupted(KeyboardInterrupt):
    """The matches were stopped: ``results`` in task order (None where not finished), ``signum`` the
    signal (SIGINT for a plain Ctrl-C); from ``evaluate_pairings`` also ``report``, the results of
    the finished duplicate groups (``"partial": true``)."""

    def __init__(self, results: list, signum: int = signal.SIGINT):
        done = sum(r is not None for r in results)
        super().__init__(f"interrupted after {done} of {len(results)} matches")
        self.results, self.signum, self.report = results, signum, None


def run_tasks(tasks: list[Task], workers: int = 2, progress: bool = True, desc: str = "matches",
              agents: dict | None = None, ray_address: str | None = None) -> list[dict]:
    """Results in task order, whatever the number of workers. In-memory ``agents`` play in this process.
    With ``ray_address`` the matches are Ray tasks on that cluster (``workers`` unused; see ``ray_eval``).

    A ``KeyboardInterrupt`` ends the pool and becomes ``EvaluationInterrupted`` with the finished matches."""
    if agents and workers > 1:
        raise ValueError(f"in-memory agents {sorted(agents)} play in this process: workers must be 1, got {workers}")
    if agents and ray_address is not None:
        raise ValueError(f"in-memory agents {sorted(agents)} play in this process: leave out ray_address")
    results: list = [None] * len(tasks)
    bar = tqdm(total=len(tasks), desc=desc, disable=not progress, unit="match", dynamic_ncols=True)
    try:
        if ray_address is not None:
            stream = ray_eval.imap(tasks, ray_address, run_task, task_agent)
            try:
                for i, r in stream:
                    results[i] = r
                    bar.update(1)
            finally:
                stream.close()  # at once, not at garbage collection: no more matches are sent
        elif workers <= 1:
            threads = torch.get_num_threads()
            torch.set_num_threads(1)  # as a worker process: one core (neural agents ran 2.6x slower on two busy ones)
            try:
                for i, t in enumerate(tasks):
                    results[i] = run_task(t, agents)
                    bar.update(1)
            finally:
                torch.set_num_threads(threads)
        else:
            ctx = mp.get_context("spawn")
            with children_ignore():
                pool = ctx.Pool(workers, initializer=init_worker)
            with pool:  # leaving it (normally or not) terminates the workers
                for i, r in pool.imap_unordered(_indexed, list(enumerate(tasks)), chunksize=1):
                    results[i] = r
                    bar.update(1)
    except EvaluationInterrupted:
        raise
    except KeyboardInterrupt as e:
        raise EvaluationInterrupted(results, getattr(e, "signum", signal.SIGINT)) from None
    finally:
        bar.close()
    return results


def _indexed(item):
    i, t = item
    return i, run_task(t)


# ---------------------------------------------------------------------- statistics
def wilson(wins: int, n: int) -> tuple[float, float]:
    """Wilson score 95% interval of a win rate (scipy's binomtest)."""
    if n == 0:
        return (0.0, 1.0)
    ci = stats.binomtest(wins, n).proportion_ci(confidence_level=0.95, method="wilson")
    return (float(ci.low), float(ci.high))


def t_interval(values: list[float]) -> tuple[float, float] | None:
    """Student-t 95% interval of the mean (None with fewer than two values)."""
    if len(values) < 2:
        return None
    m = statistics.fmean(values)
    sd = statistics.stdev(values)
    if sd == 0:
        return (m, m)
    half = float(stats.t.ppf(0.975, len(values) - 1)) * sd / math.sqrt(len(values))
    return (m - half, m + half)


def ratio_interval(num: list[float], den: list[float]) -> tuple[float, float] | None:
    """95% interval of ``sum(num) / sum(den)`` (points per hand: ``num`` >= 0, ``den`` > 0) with each
    (num, den) pair one independent unit (a deal: its points and its hands), by linearization on the
    log scale: ``r * exp(+-t * se / r)``, which never reaches below 0 as a linear interval over a few
    deals can. None with fewer than ``MIN_UNITS`` units (a t interval over two deals spans the board)."""
    n = len(num)
    total = sum(den)
    if n < MIN_UNITS or not total:
        return None
    r = sum(num) / total
    if r <= 0:
        return None if any(num) else (0.0, 0.0)
    se = math.sqrt(n / (n - 1) * sum((x - r * d) ** 2 for x, d in zip(num, den))) / total
    spread = math.exp(float(stats.t.ppf(0.975, n - 1)) * se / r)
    return (r / spread, r * spread)


@dataclass
class PairingResult:
    agent: str
    opponent: str
    preset: str
    players: int
    matches: int = 0
    wins: int = 0
    hands: int = 0
    groups: dict = field(default_factory=dict)  # deal -> [agent points, opponent points, hands]

    def to_dict(self) -> dict:
        ci = ratio_interval([g[0] for g in self.groups.values()], [g[2] for g in self.groups.values()])
        tot_hands = sum(g[2] for g in self.groups.values())
        return {
            "agent": self.agent, "opponent": self.opponent, "preset": self.preset, "players": self.players,
            "matches": self.matches, "wins": self.wins,
            "win_rate": self.wins / self.matches if self.matches else 0.0,
            "ci95": list(wilson(self.wins, self.matches)),
            "points_per_hand": (sum(g[0] for g in self.groups.values()) / tot_hands) if tot_hands else 0.0,
            "points_per_hand_ci95": list(ci) if ci else None,
            "opponent_points_per_hand": (sum(g[1] for g in self.groups.values()) / tot_hands) if tot_hands else 0.0,
            "hands": tot_hands,
        }


def summarize(tasks: list[Task], results: list[dict], pairs: list[tuple[str, str]], preset: str,
              players: int) -> list[PairingResult]:
    """Per pairing, from A's side; for two sides also the mirror row (B against A, same matches)."""
    rows: dict[tuple, PairingResult] = {}
    for t, r in zip(tasks, results):
        a, b = pairs[t.pairing]
        fwd = rows.setdefault((t.pairing, 0), PairingResult(a, b, preset, players))
        _add(fwd, t.deal, r["a_won"], r["points"][r["a_side"]], _others(r["points"], r["a_side"]), r["hands"])
        if players != 3:
            rev = rows.setdefault((t.pairing, 1), PairingResult(b, a, preset, players))
            b_side = 1 - r["a_side"]
            _add(rev, t.deal, r["winner"] == b_side, r["points"][b_side], r["points"][r["a_side"]], r["hands"])
    return [rows[k] for k in sorted(rows)]


def _others(points: list[int], side: int) -> float:
    rest = [p for s, p in enumerate(points) if s != side]
    return sum(rest) / len(rest)


def _add(row: PairingResult, deal: int, won: bool, pts: float, opp: float, hands: int) -> None:
    row.matches += 1
    row.wins += bool(won)
    g = row.groups.setdefault(deal, [0, 0, 0])
    g[0] += pts
    g[1] += opp
    g[2] += hands


def ratings(tasks: list[Task], results: list[dict], pairs: list[tuple[str, str]]) -> dict:
    """Each agent's rating (Elo, with a 95% interval) from a Plackett-Luce maximum-likelihood fit over every
    match (``rating.fit_ratings``): the same whatever the order of the matches."""
    matches = []
    for t, r in zip(tasks, results):
        rules = _rules(t)
        names = pairs[t.pairing]
        sides = [None] * rules.sides
        for seat, k in enumerate(t.seats):
            sides[rules.side(seat)] = names[k]
        matches.append((tuple(sides), r["winner"]))
    return fit_ratings(matches, names={x for p in pairs for x in p})


# ---------------------------------------------------------------------- public API
def evaluate_pairings(pairs: list[tuple], preset: str = "yorkshire", matches: int = 400, seed: int = 0,
                      workers: int = 2, options: dict | None = None, progress: bool = True,
                      agents: dict[str, Agent] | None = None, both_ways: bool = True,
                      ray_address: str | None = None, rules: Rules | None = None) -> dict:
    """Duplicate matches for each (A, B) in ``pairs``: {"results": [...], "ratings": {...}}.

    A and B are agent specs (text or ``AgentSpec``; the rows name them as given) or names in
    ``agents``, played by these objects (in this process, ``workers=1``). ``both_ways=False``: with
    three players, no matches of B alone against two A (the rows of A against B are the same either
    way). ``ray_address``: the matches run as Ray tasks on that cluster (``"local"``, ``"auto"``,
    ``HOST:PORT``), with the same results. ``rules``: the game of ``preset`` with ``options``, when
    the caller has made it already."""
    if rules is None:
        rules = make_rules(preset, **(options or {}))
    for name, agent in (agents or {}).items():
        if not isinstance(agent, Agent):
            raise ValueError(f"agents[{name!r}] is not an Agent: {agent!r}")
    entries = {}  # label -> the name of an in-memory agent, or its parsed spec
    for x in dict.fromkeys(x for p in pairs for x in p):
        label = x.label if isinstance(x, AgentSpec) else x
        if agents and isinstance(x, str) and x in agents:
            entries[label] = x
        else:
            entries[label] = AgentSpec.parse(x)
            build_agent(entries[label], rules)  # fail fast, with a clear message, before any work
    pairs = [tuple(x.label if isinstance(x, AgentSpec) else x for x in p) for p in pairs]
    all_pairs = list(pairs)
    if rules.players == 3 and both_ways:  # both directions need their own matches
        all_pairs += [(b, a) for a, b in pairs if (b, a) not in pairs]
    tasks = make_tasks([(entries[a], entries[b]) for a, b in all_pairs], preset, matches, seed, options, rules)
    head = {"preset": preset, "players": rules.players, "seed": seed, "matches_per_pairing": matches,
            "options": dict(options or {})}
    try:
        results = run_tasks(tasks, workers=workers, progress=progress, desc=f"{preset} matches", agents=agents,
                            ray_address=ray_address)
    except EvaluationInterrupted as e:
        done = whole_groups(tasks, e.results)
        kept = [tasks[i] for i in done], [e.results[i] for i in done]
        e.report = {**head, "partial": True, "matches_planned": len(tasks), "matches_played": len(done),
                    "matches_finished": sum(r is not None for r in e.results),
                    **_tables(*kept, all_pairs, preset, rules.players)}
        raise
    return {**head, **_tables(tasks, results, all_pairs, preset, rules.players)}


def _tables(tasks: list[Task], results: list[dict], pairs: list, preset: str, players: int) -> dict:
    rows = summarize(tasks, results, pairs, preset, players)
    return {"results": [r.to_dict() for r in rows], "ratings": ratings(tasks, results, pairs)}


def whole_groups(tasks: list[Task], results: list) -> list[int]:
    """Indices of the finished tasks whose duplicate group (every seating of the deal) finished:
    a partial result keeps no deal played in one seating only, which would favour one side."""
    missing = {(t.pairing, t.deal) for t, r in zip(tasks, results) if r is None}
    return [i for i, t in enumerate(tasks) if (t.pairing, t.deal) not in missing]


def evaluate_pairing(agent: str | AgentSpec, opponent: str | AgentSpec, **kwargs) -> dict:
    """One duplicate pairing (see ``evaluate_pairings``); the first row is ``agent`` against ``opponent``."""
    return evaluate_pairings([(agent, opponent)], **kwargs)


def evaluate_agent(agent: Agent, opponent: str, preset: str = "yorkshire", matches: int = 400, seed: int = 0,
                   options: dict | None = None, name: str = "agent") -> dict:
    """The row of ``agent`` (an object, named ``name``) against the ``opponent`` spec: the first row
    ``allfours eval --agents <agent's file> <opponent>`` prints for the same preset, options, matches
    and seed (the same deals, agent seeds and figures)."""
    if name == opponent:
        raise ValueError(f"the agent's name {name!r} is also the opponent's spec: give it another name")
    out = evaluate_pairings([(name, opponent)], preset=preset, matches=matches, seed=seed, workers=1, options=options,
                            progress=False, agents={name: agent}, both_ways=False)
    return out["results"][0]


def eval_command(agents: list[str], preset: str, options: dict | None, matches: int, seed: int) -> str:
    """The ``allfours eval`` command line that plays these matches (rule options as --players,
    --target or --rule KEY=VALUE)."""
    opts = dict(options or {})
    parts = ["allfours eval --preset", preset]
    for key in ("players", "target"):
        if key in opts:
            parts += [f"--{key}", str(opts.pop(key))]
    for key, value in sorted(opts.items()):
        parts += ["--rule", f"{key}={str(value).lower() if isinstance(value, bool) else value}"]
    parts += ["--agents", *agents, "--matches", str(matches), "--seed", str(seed)]
    return " ".join(parts)


def round_robin(agents: list, **kwargs) -> dict:
    """Every pair of ``agents`` (specs) on the same duplicate deals, with ratings over all the matches."""
    if len(agents) < 2 or len(set(agents)) != len(agents):
        raise ValueError(f"a round robin needs at least two distinct agent specs, got {agents!r}")
    pairs = [(agents[i], agents[j]) for i in range(len(agents)) for j in range(i + 1, len(agents))]
    return evaluate_pairings(pairs, **kwargs)
