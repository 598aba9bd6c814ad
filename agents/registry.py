"""Agents by spec, as used on the command line (the grammar: ``allfours.agents.spec``, docs/agents.md),
above the players it builds.

    make_agent("random")                      # uniform over the legal actions
    make_agent("heuristic")                   # the rule-based pub player
    make_agent("search")                      # determinized search, default budget
    make_agent("search:worlds=64")            # more sampled worlds per move
    make_agent("search:worlds=200,time=1")    # ... but at most about a second a move
    make_agent("checkpoints/yorkshire.pt")    # a trained network (players.neural.load_agent; a run folder too)
    make_agent("bot:yorkshire")               # a shipped bot (players.neural.load_bot): yorkshire, traditional,
                                              # traditional_2p, seven_up, pitch, setback
    make_agent("bot:yorkshire:sym=0")         # ... its raw network, without averaging over suit relabellings
    make_agent("search:playout=bot:yorkshire")  # search whose playouts play that network for its side
    make_agent("guided")                      # search guided by the preset's shipped bot (players.guided)
    make_agent("guided:bot=yorkshire,worlds=64")  # ... by a named bot or checkpoint, more worlds
    make_agent("experimental:nested:24x8")    # a research player of allfours.agents.lab.experimental (not stable API)
    make_agent("ismcts:simulations=100")      # OpenSpiel's ISMCTS (players.ismcts; the extra allfours[openspiel])
    make_agent("br:target=bot:seven_up", preset="seven_up")  # a best response to a deterministic player
    make_agent("solved:mini2", preset="mini2")  # the stored equilibrium of a mini preset (players.solved)

``make_agent`` takes the text or an ``allfours.agents.spec.AgentSpec`` parsed once at the boundary (the
same value a worker process gets). Unknown names or parameters raise a ``ValueError`` that lists
the valid ones. The registry builds a search's parts from the spec: ``playout=bot:<name>`` (or a
checkpoint path) becomes an ``allfours.agents.players.playout.NetworkPlayout`` given to ``SearchAgent``.

Two kinds of player are loaded only when one is built, by module name: ``ismcts`` (OpenSpiel is an
optional extra) and ``experimental:<name>`` (research players; no stable module imports them).
"""

from __future__ import annotations

import importlib
import inspect
import os

from allfours_env.cards import NUM_ACTIONS
from allfours_env.rules import ALL_PRESETS, FAMILIES, Rules, presets

from .base import Agent
from .network.checkpoint import checkpoints_dir
from .players.batched import batched
from .players.best_response import BestResponseAgent
from .players.guided import GuidedAgent
from .players.heuristic import HeuristicAgent
from .players.neural import load_network
from .players.playout import NetworkPlayout
from .players.random_agent import RandomAgent
from .players.search import SearchAgent
from .players.solved import SolvedAgent
from .spec.bots import BOTS, bot_name
from .spec.grammar import EXPERIMENTAL, OPTIONS, AgentSpec, check_seats, expect_spec

EVERY = tuple(FAMILIES)  # All Fours' presets and the auction presets (``Rules.family``)


def _ismcts(**params) -> Agent:
    """``allfours.agents.players.ismcts.ISMCTSAgent``, imported only when asked for: OpenSpiel is an optional extra."""
    try:
        module = importlib.import_module("allfours.agents.players.ismcts")
    except ImportError as e:
        raise ValueError(f"agent 'ismcts' needs OpenSpiel ({e}): pip install 'allfours[openspiel]'") from None
    return module.ISMCTSAgent(**params)


def _sb3(path: str, seed: int | None = None) -> Agent:
    """``allfours.agents.adapters.sb3_agent.SB3Agent``, loaded by name: the adapters sit above the registry."""
    return importlib.import_module("allfours.agents.adapters.sb3_agent").SB3Agent(path, seed=seed)


def _experimental(name: str):
    """The builder of ``experimental:<name>`` (``allfours.agents.lab.experimental.EXPERIMENTS``), imported only when
    asked for."""
    return importlib.import_module("allfours.agents.lab.experimental").EXPERIMENTS[name][0]


# name -> (factory, help, the families of presets it plays); the options each takes are allfours.agents.spec.OPTIONS
AGENTS = {
    "random": (RandomAgent, "uniform over the legal actions", EVERY),
    "heuristic": (HeuristicAgent, "rule-based pub player", EVERY),
    "search": (SearchAgent, "determinized search (worlds per move, time cap in s, exact-solve threshold in cards, "
               "bid: 1 searched or 0 heuristic trump decisions, value: match or points, playout: heuristic, or "
               "bot:<name> / a checkpoint, seats: side (default) or all, whom a network playout plays)", EVERY),
    "guided": (GuidedAgent, "search guided by a network (bot: shipped bot or checkpoint, default the preset's; worlds "
               "valued and candidates weighed per move, floor of an action's probability, infer: 1 weighted worlds "
               "or 0, playout: heuristic, bot:<name> or a checkpoint, default the guiding network; seats: all "
               "(default) or side, whom the network plays in the playouts)", ("all_fours",)),
    "ismcts": (_ismcts, "OpenSpiel's ISMCTS on python_allfours (simulations per move, uct constant, episode: hand or "
               "match horizon; needs pip install 'allfours[openspiel]')", EVERY),
    "solved": (SolvedAgent, "a mini preset's stored equilibrium, its mixed strategy sampled (solved:mini2, "
               "solved:mini3; plays that preset only)", ("all_fours",)),
    "br": (BestResponseAgent, "local best response to a deterministic target (target: heuristic, bot:<name> or a "
           "checkpoint; consistent worlds valued and candidates drawn per move, continuation: target or heuristic, "
           "depth: 1 or 2, value: match or points; games of two sides)", EVERY),
}
assert set(AGENTS) == set(OPTIONS), "every agent name of allfours.agents.spec has a factory here"


def families(spec: str | AgentSpec) -> tuple:
    """The families of presets (``allfours_env.rules.FAMILIES``) the player ``spec`` names may play: its ``AGENTS``
    entry's (search with a network's playouts: All Fours' only so far), a shipped bot's own, every family for a
    checkpoint or an sb3 model (``make_agent`` refuses one without the auction's calls once it is loaded)."""
    spec = AgentSpec.parse(spec)
    if spec.name == "bot" and spec.target in BOTS:  # (an unknown bot is left to the loader, which names the shipped)
        return (ALL_PRESETS[BOTS[spec.target].preset].family,)
    if spec.is_network or spec.name == "sb3":
        return EVERY
    if spec.name.startswith(EXPERIMENTAL):
        return ("all_fours",)
    playout = spec.options.get("playout") if spec.name == "search" else None
    if playout is not None and playout.name != "heuristic":
        return ("all_fours",)
    return AGENTS[spec.name][2]


def plays(spec: str | AgentSpec, preset: str) -> bool:
    """Whether the player ``spec`` names may play ``preset``, by its family (``families``)."""
    if preset not in ALL_PRESETS:
        raise ValueError(f"unknown preset {preset!r}: choose one of {sorted(ALL_PRESETS)}")
    return ALL_PRESETS[preset].family in families(spec)


def _refuse(spec: AgentSpec, preset: str) -> None:
    """The ValueError of a player ``spec`` whose ``families`` do not take ``preset``."""
    family = ALL_PRESETS[preset].family
    if spec.is_network:
        bots = ", ".join(f"bot:{b}" for b, t in BOTS.items() if ALL_PRESETS[t.preset].family == family)
        raise ValueError(f"{spec.label} is a network for {BOTS[spec.target].preset}: it does not play {preset} "
                         f"({bots} do)")
    if spec.name == "search":
        raise ValueError(f"search plays {FAMILIES[family]} with heuristic playouts only so far")
    names = ", ".join(n for n, entry in AGENTS.items() if family in entry[2])
    raise ValueError(f"agent {spec.label!r} does not play {FAMILIES[family]} ({', '.join(presets(family, True))}) "
                     f"yet: {names} and the networks trained on them do (docs/rules.md)")


def make_agent(spec: str | AgentSpec | Agent, preset: str = "yorkshire", seed: int | None = None,
               players: int | None = None) -> Agent:
    """The agent named by ``spec`` (see module doc); ``seed`` seeds its randomness unless the spec does.
    ``players``: the game's player count, so ``bot:traditional`` picks the 2-player bot for 2 players."""
    if isinstance(spec, Agent):
        return spec
    spec = AgentSpec.parse(spec)
    if spec.name == "solved":  # one game only: the tree its equilibrium was solved on
        if preset != spec.target:
            raise ValueError(f"{spec.label} is the equilibrium of {spec.target}: it plays {spec.target} only, not "
                             f"{preset}")
        return SolvedAgent(spec.target, seed=spec.get("seed", seed))
    if not plays(spec, preset):
        _refuse(spec, preset)
    if spec.is_network:
        agent = load_network(spec, players=players, game=preset)
        if ALL_PRESETS[preset].auction and agent.net.num_actions < NUM_ACTIONS:
            raise ValueError(f"{spec.label} was trained on All Fours' {agent.net.num_actions} actions, without the "
                             f"auction's calls: it does not play {preset}")
        if seed is not None:
            agent.seed(seed)
        return agent
    if spec.name == "sb3":  # a MaskablePPO model (allfours.agents.adapters.sb3_agent)
        agent = _sb3(spec.target, seed=seed)
        actions = int(agent.model.action_space.n)
        if ALL_PRESETS[preset].auction and actions < NUM_ACTIONS:
            raise ValueError(f"{spec.label} was trained on All Fours' {actions} actions, without the auction's calls: "
                             f"it does not play {preset}")
        return agent
    params = spec.options
    params.setdefault("seed", seed)
    if spec.name.startswith(EXPERIMENTAL):
        build = _experimental(spec.name[len(EXPERIMENTAL):])
        if "preset" in inspect.signature(build).parameters:  # a builder that loads a network for the game
            params.update(preset=preset, players=players)
        return build(**params)
    if spec.name == "guided":
        return GuidedAgent(**params, preset=preset, players=players)
    if spec.name == "br":  # the target is built here, as any agent is, and answered by the responder
        target = params.pop("target", None)
        if target is None:
            raise ValueError("agent 'br' needs a target: br:target=heuristic, br:target=bot:<name> or a checkpoint")
        params["target"] = make_agent(target, preset=preset, players=players)
        return BestResponseAgent(**params, target_label=target.label, preset=preset, players=players)
    if spec.name == "search":
        seats = check_seats(params.pop("seats", "side"), "search")
        if "playout" in params:
            params["playout"] = search_playout(params["playout"], players, seats=seats)
    return AGENTS[spec.name][0](**params)


def check_spec(spec: str | AgentSpec, preset: str = "yorkshire", players: int | None = None) -> AgentSpec:
    """The parsed ``spec`` if ``make_agent`` would build it for ``preset`` and ``players`` as far as can be told
    without building it: names and options, the game it plays, and the files of its networks (nested ones
    included) there; no network is loaded. ValueError, one line, otherwise (the words ``make_agent`` uses)."""
    spec = AgentSpec.parse(spec)
    if spec.name == "solved" and preset != spec.target:
        raise ValueError(f"{spec.label} is the equilibrium of {spec.target}: it plays {spec.target} only, not {preset}")
    if spec.name != "solved" and not plays(spec, preset):
        _refuse(spec, preset)
    if spec.name == "bot":
        name = bot_name(spec.target, players, preset)
        if not (checkpoints_dir() / f"{name}.pt").exists():
            raise ValueError(f"no trained bot is shipped as {name!r} yet (shipped: {', '.join(BOTS)})")
    elif spec.name == "checkpoint" and not os.path.exists(spec.target):
        raise ValueError(f"checkpoint {spec.target!r} not found")
    elif spec.name == "sb3" and not os.path.exists(spec.target):
        raise ValueError(f"sb3 model {spec.target!r} not found")
    if spec.name == "br" and spec.get("target") is None:
        raise ValueError("agent 'br' needs a target: br:target=heuristic, br:target=bot:<name> or a checkpoint")
    for value in spec.options.values():
        if isinstance(value, AgentSpec):
            check_spec(value, preset, players)
    return spec


def search_playout(spec: AgentSpec, players: int | None = None, *, seats: str = "side"
                   ) -> NetworkPlayout | None:
    """The playout part of ``search:playout=<spec>``: None for the heuristic (the default), else the
    network of ``bot:<name>`` or a checkpoint path (raw unless ``:sym=1``) for the searching side
    (``seats="all"``: for every seat)."""
    expect_spec(spec, "search_playout")
    if spec.name == "heuristic":
        return None
    # the raw network unless the spec asks for ``:sym=1``: averaging costs 6 times as much a move
    agent = load_network(spec, players=players, symmetrize=False)
    return NetworkPlayout.from_agent(agent, symmetrize=agent.symmetrize, name=spec.label,
                                     every_seat=check_seats(seats, "search") == "all")


def unbatchable(specs, rules: Rules) -> list[str]:
    """The agent specs of ``specs`` that have no batched form (``players.batched``; empty: the array engine can seat
    them all)."""
    return [spec for spec in specs
            if batched(make_agent(spec, preset=rules.preset, players=rules.players), rules) is None]
