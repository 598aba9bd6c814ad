"""The public entry points: duplicate pairings, round robins, one in-memory agent's row, and the command
line that replays them (``allfours.agents.evaluation``'s module doc)."""

from __future__ import annotations

from allfours_env import make_rules
from allfours_env.rules import Rules

from ..base import Agent
from ..spec import AgentSpec
from .matches import Task, build_agent, make_tasks
from .pool import EvaluationInterrupted, run_tasks
from .stats import ratings, summarize


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
    if rules.sides > 2 and both_ways:  # each for themselves: both directions need their own matches
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
