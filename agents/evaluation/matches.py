"""One match and the duplicate schedule: seeds, tasks, and the agents a process builds once per spec and game
(``allfours.agents.evaluation``'s module doc says how the seeds make a pairing's figures the same everywhere)."""

from __future__ import annotations

import random
from dataclasses import dataclass

from allfours_env import GameState, make_rules
from allfours_env.rules import ALL_PRESETS, Rules

from ..base import Agent, check_turn
from ..registry import make_agent
from ..spec import AgentSpec, expect_spec

_AGENT_CACHE: dict = {}


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


def seatings(players: int, partnerships: bool) -> list[tuple[int, ...]]:
    """Seat assignments of a duplicate group: 0 = agent A, 1 = agent B. Two sides: A on each side in turn;
    each for themselves (three players, or four without partnerships: pitch): A in each seat in turn, B in
    the others."""
    if players == 4 and partnerships:
        return [(0, 1, 0, 1), (1, 0, 1, 0)]
    if players == 2:
        return [(0, 1), (1, 0)]
    if players in (3, 4):
        return [tuple(0 if s == a else 1 for s in range(players)) for a in range(players)]
    raise ValueError(f"unsupported number of players {players}")


def deal_group(rules: Rules) -> int:
    """The matches one deal makes at ``rules``' table: its seatings (2 with two sides, one a seat each for
    themselves); a run's matches are a multiple of it."""
    return len(seatings(rules.players, rules.partnerships))


def make_tasks(pairs: list[tuple], preset: str, matches: int, seed: int, options: dict | None = None,
               rules: Rules | None = None) -> list[Task]:
    """The schedule of ``pairs`` (specs, or names of in-memory agents); ``rules``: the game of
    ``preset`` with ``options``, made by the caller (default: made here)."""
    if rules is None:
        rules = make_rules(preset, **(options or {}))
    group = deal_group(rules)
    if not isinstance(matches, int) or matches < group or matches % group:
        raise ValueError(f"matches must be a positive multiple of {group} for {preset!r} with {rules.players} "
                         f"players (each deal is played {group} times), got {matches!r}")
    # Options at the preset's own value (``--players 4`` on traditional) do not change the deals.
    base = ALL_PRESETS[preset]
    opts = tuple(sorted((k, v) for k, v in (options or {}).items() if getattr(base, k) != v))
    tasks = []
    for p, (a, b) in enumerate(pairs):
        for d in range(matches // group):
            game_seed = derive_seed(seed, preset, opts, "deal", d)
            # Agents are seeded from the deal and their seats alone (play_match): never from the pairing's
            # place in the schedule, so a pairing plays the same on every board and in a lone eval.
            agent_seed = derive_seed(seed, preset, opts, "agents", d)
            for v, seating in enumerate(seatings(rules.players, rules.partnerships)):
                tasks.append(Task(p, d, v, preset, opts, (a, b), seating, game_seed, agent_seed, rules))
    return tasks


def build_agent(spec: AgentSpec, rules: Rules) -> Agent:
    """The agent of ``spec`` for the game ``rules``, made by ``make_agent`` once per process, spec and game
    (reseeded before every match, so one object serves every match of the process)."""
    key = (expect_spec(spec, "build_agent"), rules)
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
