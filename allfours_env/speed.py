"""Decisions per second of random legal play (the engine, an AEC env): what ``allfours bench`` and
benchmarks/vector_speed.py measure.

    aec_rate(lambda: env("yorkshire"), seconds=2)   # an AEC env, an observation every decision
    engine_rate("yorkshire", {}, seconds=2)         # the raw engine: legal_actions() then apply()

Each plays for ``seconds`` of wall clock, match after match (seeds ``seed``, ``seed + 1`` ...), and
returns the decisions made per second.
"""

from __future__ import annotations

import random
import time

import numpy as np

from allfours_env.engine import GameState
from allfours_env.rules import make_rules


def aec_rate(factory, seconds: float, seed: int = 0) -> float:
    """Decisions/s of random legal play through an AEC env, an observation per decision."""
    e = factory()
    rng = np.random.default_rng(seed)
    decisions, episode = 0, 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        e.reset(seed=seed + episode)
        episode += 1
        for _agent in e.agent_iter():
            obs, _reward, term, trunc, _info = e.last()
            if term or trunc:
                e.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            e.step(int(legal[rng.integers(len(legal))]))
            decisions += 1
    return decisions / (time.perf_counter() - start)


def engine_rate(preset: str, options: dict, seconds: float, seed: int = 0) -> float:
    """Decisions/s of random legal play on the raw engine. The clock is read between matches and every 1,024
    decisions: random bidding in the auction presets is set back hand after hand, and a match can run long."""
    rules = make_rules(preset, **options)
    rng = random.Random(seed)
    decisions, match = 0, 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        s = GameState.new(rules, seed=seed + match)
        match += 1
        while not s.done:
            s.apply(rng.choice(s.legal_actions()))
            decisions += 1
            if not decisions & 1023 and time.perf_counter() - start >= seconds:
                break
    return decisions / (time.perf_counter() - start)
