"""Agents by short spec, as used on the command line.

    make_agent("random")                      # uniform over the legal actions
    make_agent("heuristic")                   # the rule-based pub player
    make_agent("search")                      # determinized search, default budget
    make_agent("search:worlds=64")            # more sampled worlds per move
    make_agent("search:worlds=200,time=1")    # ... but at most about a second a move
    make_agent("checkpoints/yorkshire.pt")    # a trained network (agents.neural.load_agent)
    make_agent("bot:yorkshire")               # a shipped bot (agents.neural.load_bot): yorkshire, traditional,
                                              # traditional_2p, seven_up
    make_agent("bot:yorkshire:sym=0")         # ... its raw network, without averaging over suit relabellings
    make_agent("search:playout=bot:yorkshire")  # search whose playouts play that network for its side
    make_agent("guided")                      # search guided by the preset's shipped bot (agents.guided)
    make_agent("guided:bot=yorkshire,worlds=64")  # ... by a named bot or checkpoint, more worlds
    make_agent("experimental:nested:24x8")    # a research player of agents.experimental (not stable API)
    make_agent("ismcts:simulations=100")      # OpenSpiel's ISMCTS (agents.ismcts; the extra allfours[openspiel])

A spec is ``name`` or ``name:key=value,key=value``. Unknown names or parameters raise a
``ValueError`` that lists the valid ones. The registry builds a search's parts from the spec:
``playout=bot:<name>`` (or a checkpoint path) becomes an ``agents.playout.NetworkPlayout`` given
to ``SearchAgent``.
"""

from __future__ import annotations

import importlib
import os

from .base import Agent
from .experimental import EXPERIMENTS, SHORTHANDS
from .guided import GuidedAgent
from .heuristic import HeuristicAgent
from .neural import load_agent, load_bot
from .playout import NetworkPlayout
from .random_agent import RandomAgent
from .sb3_agent import SB3Agent
from .search import SearchAgent

EXPERIMENTAL = "experimental:"


def _ismcts(**params) -> Agent:
    """``agents.ismcts.ISMCTSAgent``, imported only when asked for: OpenSpiel is an optional extra."""
    try:
        module = importlib.import_module(f"{__package__}.ismcts")
    except ImportError as e:
        raise ValueError(f"agent 'ismcts' needs OpenSpiel ({e}): pip install 'allfours[openspiel]'") from None
    return module.ISMCTSAgent(**params)


# name -> (class, {param: type}, help)
AGENTS = {
    "random": (RandomAgent, {"seed": int}, "uniform over the legal actions"),
    "heuristic": (HeuristicAgent, {"seed": int}, "rule-based pub player"),
    "search": (SearchAgent, {"worlds": int, "time": float, "exact": int, "bid": int, "value": str, "playout": str,
                             "seed": int},
               "determinized search (worlds per move, time cap in s, exact-solve threshold in cards, "
               "bid: 1 searched or 0 heuristic trump decisions, value: match or points, "
               "playout: heuristic, or bot:<name> / a checkpoint for the searching side's play)"),
    "guided": (GuidedAgent, {"bot": str, "worlds": int, "time": float, "candidates": int, "floor": float,
                             "exact": int, "infer": int, "playout": str, "seed": int},
               "search guided by a network (bot: shipped bot or checkpoint, default the preset's; worlds valued and "
               "candidates weighed per move, floor of an action's probability, infer: 1 weighted worlds or 0, "
               "playout: network for every seat, side for the searching side, or heuristic)"),
    "ismcts": (_ismcts, {"simulations": int, "uct": float, "episode": str, "seed": int},
               "OpenSpiel's ISMCTS on python_allfours (simulations per move, uct constant, episode: hand or match "
               "horizon; needs pip install 'allfours[openspiel]')"),
}


def agent_names() -> list[str]:
    return [*AGENTS, "bot:<name>", "<checkpoint path or *.pt>", f"{EXPERIMENTAL}<{'|'.join(EXPERIMENTS)}>"]


def parse_spec(spec: str) -> tuple[str, dict]:
    """``"search:worlds=64,time=1"`` -> ``("search", {"worlds": 64, "time": 1.0})`` (values typed);
    ``"experimental:nested:24x8"`` -> ``("experimental:nested", {"worlds": 24, "inner": 8})``."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"agent spec must be a non-empty string, got {spec!r}")
    spec = spec.strip()
    if spec.lower().startswith(EXPERIMENTAL):
        name, _, rest = spec[len(EXPERIMENTAL):].partition(":")
        name = name.strip().lower()
        if name not in EXPERIMENTS:
            raise ValueError(f"unknown experimental agent {name!r}: choose one of {', '.join(EXPERIMENTS)}")
        if name in SHORTHANDS and rest.strip() and "=" not in rest:
            return EXPERIMENTAL + name, SHORTHANDS[name](rest)
        return EXPERIMENTAL + name, _params(spec, name, rest, EXPERIMENTS[name][1])
    name, _, rest = spec.partition(":")
    name = name.strip().lower()
    if name not in AGENTS:
        raise ValueError(f"unknown agent {name!r}: choose one of {', '.join(agent_names())}")
    return name, _params(spec, name, rest, AGENTS[name][1])


def _params(spec: str, name: str, rest: str, types: dict) -> dict:
    """The typed ``key=value`` parameters ``rest`` of agent ``name``."""
    params: dict = {}
    if rest.strip():
        for item in rest.split(","):
            key, eq, value = item.partition("=")
            key = key.strip()
            if not eq or not key:
                raise ValueError(f"bad parameter {item!r} in agent spec {spec!r}: expected key=value")
            if key not in types:
                raise ValueError(f"unknown parameter {key!r} for agent {name!r}: valid are {sorted(types)}")
            try:
                params[key] = types[key](value.strip())
            except ValueError:
                raise ValueError(f"parameter {key!r} of agent {name!r} must be {types[key].__name__}, "
                                 f"got {value.strip()!r}") from None
    return params


def make_agent(spec: str, preset: str = "yorkshire", seed: int | None = None, players: int | None = None) -> Agent:
    """The agent named by ``spec`` (see module doc); ``seed`` seeds its randomness unless the spec does.
    ``players``: the game's player count, so ``bot:traditional`` picks the 2-player bot for 2 players."""
    if isinstance(spec, Agent):
        return spec
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"agent spec must be a non-empty string, got {spec!r}")
    spec = spec.strip()
    spec, neural_opts = _neural_options(spec)
    if spec.startswith("bot:"):
        agent = load_bot(spec[4:], players=players, game=preset, **neural_opts)
        if seed is not None:
            agent.seed(seed)
        return agent
    if spec.startswith("sb3:"):  # a MaskablePPO model (agents/sb3_agent.py)
        return SB3Agent(spec[4:], seed=seed)
    if (spec.endswith(".pt") or os.path.isfile(spec)) and spec.partition(":")[0].strip().lower() not in AGENTS:
        if not os.path.isfile(spec):
            raise ValueError(f"checkpoint {spec!r} not found")
        agent = load_agent(spec, **neural_opts)
        if seed is not None:
            agent.seed(seed)
        return agent
    if neural_opts:
        raise ValueError(f"option(s) {sorted(neural_opts)} apply only to bot:<name> or a checkpoint, not {spec!r}")
    name, params = parse_spec(spec)
    params.setdefault("seed", seed)
    if name.startswith(EXPERIMENTAL):
        return EXPERIMENTS[name[len(EXPERIMENTAL):]][0](**params)
    if name == "guided":
        return GuidedAgent(**params, preset=preset, players=players)
    if "playout" in params:
        params["playout"] = search_playout(params["playout"], players)
    return AGENTS[name][0](**params)


def search_playout(spec: str, players: int | None = None) -> NetworkPlayout | None:
    """The playout part of ``search:playout=<spec>``: None for the heuristic (the default), else the
    network of ``bot:<name>`` or a checkpoint path (raw unless ``:sym=1``) for the searching side."""
    spec = spec.strip()
    if not spec:
        raise ValueError("search playout must be 'heuristic', bot:<name> or a checkpoint path, got ''")
    if spec == "heuristic":
        return None
    agent = make_agent(spec, players=players)
    # the raw network unless the spec asks for ``:sym=1``: averaging costs 6 times as much a move
    return NetworkPlayout.from_agent(agent, symmetrize=_neural_options(spec)[1].get("symmetrize", False), name=spec)


def _neural_options(spec: str) -> tuple[str, dict]:
    """Split a trailing ``:sym=0``/``:sym=1`` off a bot or checkpoint spec: (spec, {"symmetrize": bool})."""
    head, sep, tail = spec.rpartition(":")
    if not sep or not head.startswith("bot:") and not head.endswith(".pt") and not os.path.isfile(head):
        return spec, {}
    opts = {}
    for item in tail.split(","):
        key, eq, value = (x.strip() for x in item.partition("="))
        if key != "sym" or not eq:
            raise ValueError(f"bad option {item.strip()!r} in {spec!r}: a bot or checkpoint takes only sym=0 or sym=1")
        if value not in ("0", "1"):
            raise ValueError(f"option sym of {head!r} must be 0 or 1, got {value!r}")
        opts["symmetrize"] = value == "1"
    return head, opts
