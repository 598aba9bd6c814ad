"""The levels of a network player (allfours.agents.spec.levels): the spec option ``level=1..5``, the top level
playing as the bot itself, a lower level playing a uniformly random legal move instead of the network's on its
share of moves (``BLUNDER``), its batched twin (``players.batched.NetworkPlayer``) wandering alike, a seeded
level replaying its moves; and benchmarks/ladder.py's figures.

A level wanders with chance ``b = BLUNDER[level]`` and then picks any of the ``n`` legal moves, the network's
one included, so it leaves the network's move with chance ``b * (1 - 1/n)``. Over many trials the number of
moves off the network's is a sum of independent Bernoulli draws: its mean and variance are summed exactly
(``Fraction``) and the count must lie within ``SIGMAS`` standard deviations of the mean (a correct player
misses that by chance about once in 10**4 seeds; the seeds here are fixed, so the outcome is too)."""

from __future__ import annotations

import functools
import importlib.util
import json
import math
import random
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import torch

from allfours.agents.evaluation import evaluate_pairings, play_match
from allfours.agents.network.checkpoint import checkpoints_dir
from allfours.agents.players.batched import NetworkPlayer, batched
from allfours.agents.players.target import determinism_problem
from allfours.agents.registry import make_agent
from allfours.agents.spec import AgentSpec
from allfours.agents.spec.bots import BOTS
from allfours.agents.spec.levels import BLUNDER, TOP, WORDS, check_level
from allfours_env import GameState
from allfours_env.vector import VectorEnv

ROOT = Path(__file__).resolve().parents[2]
SPEC = importlib.util.spec_from_file_location("ladder", ROOT / "benchmarks" / "ladder.py")
ladder = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(ladder)

SIGMAS = 4
MOVES = 120
LOWER = range(1, TOP)  # the levels that wander


@pytest.fixture(autouse=True, scope="module")
def one_thread():
    """One torch thread, as the evaluation's workers play: a network's positions here are small, and two threads
    on a busy machine wait on each other far longer than they compute."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@functools.cache
def agent_of(text: str, preset: str = "seven_up", players: int = 2):
    """The agent of ``text`` for a game, loaded once for the module (the tests that depend on its seed seed it)."""
    return make_agent(text, preset=preset, players=players)


def bot_options(name: str) -> tuple[str, dict]:
    """(preset, rule options) of a shipped bot's game."""
    return BOTS[name].preset, {"players": BOTS[name].players, **BOTS[name].options()}


def bot_agent(name: str, level: int | None = None):
    """Bot ``name``'s agent, at ``level`` (None: the bot's spec without a level)."""
    preset, players = BOTS[name].preset, BOTS[name].players
    return agent_of(f"bot:{name}" if level is None else f"bot:{name}:level={level}", preset, players)


def positions(name: str, count: int, choice: bool = False, seed: int = 0) -> list[GameState]:
    """``count`` positions of random play of the bot's game, each kept with chance 1/2, from up to ``MOVES`` moves
    of matches seeded ``seed``, ``seed + 1``, ... (random play can go on long, in the auction games forever);
    ``choice``: only positions with more than one legal move."""
    preset, options = bot_options(name)
    rng, out, match = random.Random(seed), [], seed
    while len(out) < count:
        s = GameState.new(preset, seed=match, **options)
        for _ in range(MOVES):
            if s.done or len(out) == count:
                break
            legal = s.legal_actions()
            if rng.random() < 0.5 and (len(legal) > 1 or not choice):
                out.append(s.clone())
            s.apply(rng.choice(legal))
        match += 1
    return out


def within_spread(off: int, legal_counts: list[int], share: float) -> bool:
    """``off`` moves off the network's within ``SIGMAS`` standard deviations of what a level of ``share`` makes,
    each trial of ``n`` legal moves leaving it with chance ``share * (1 - 1/n)`` (exact arithmetic)."""
    b = Fraction(share)
    p = [b * (1 - Fraction(1, n)) for n in legal_counts]
    mean, var = sum(p), sum(q * (1 - q) for q in p)
    return (off - mean) ** 2 <= SIGMAS ** 2 * var


# ---------------------------------------------------------------------- the ladder itself
def test_the_ladder_names_every_level_and_wanders_less_as_it_climbs():
    assert list(WORDS) == list(BLUNDER) == list(range(1, TOP + 1))
    assert BLUNDER[TOP] == 0 and all(0 < BLUNDER[k] < 1 for k in LOWER)
    assert all(BLUNDER[k] > BLUNDER[k + 1] for k in LOWER)
    assert [check_level(k) for k in WORDS] == list(WORDS)
    for bad in (0, TOP + 1, True, 2.0, "2", None):
        with pytest.raises(ValueError, match=f"must be a level from 1 to {TOP} .*1 Beginner.*5 Expert"):
            check_level(bad)


# ---------------------------------------------------------------------- the grammar
@pytest.mark.parametrize("text,canonical", [
    ("bot:seven_up:level=2,sym=0", "bot:seven_up:sym=0,level=2"),
    (" bot:seven_up : level = 2 , sym = 0 ", "bot:seven_up:sym=0,level=2"),
    ("bot:seven_up:sym=0,level=2", "bot:seven_up:sym=0,level=2"),
    ("bot:yorkshire:level=5", "bot:yorkshire:level=5"),
    ("runs/x/best.pt:level=1", "runs/x/best.pt:level=1"),
    ("runs/a:b/best.pt:level=3,sym=1", "runs/a:b/best.pt:sym=1,level=3"),
])
def test_level_is_an_option_of_a_network(text, canonical):
    spec = AgentSpec.parse(text)
    assert str(spec) == canonical
    assert AgentSpec.parse(canonical) == spec and spec.is_network
    assert spec.get("level") == int(canonical.rpartition("level=")[2])


@pytest.mark.parametrize("text,message", [
    ("bot:seven_up:level=0", "option level of 'bot:seven_up' must be a level from 1 to 5 (1 Beginner, 2 Casual, "
                             "3 Club, 4 Strong, 5 Expert), got 0"),
    ("bot:seven_up:level=6", "option level of 'bot:seven_up' must be a level from 1 to 5 (1 Beginner, 2 Casual, "
                             "3 Club, 4 Strong, 5 Expert), got 6"),
    ("bot:seven_up:level=x", "option level of 'bot:seven_up' must be a level from 1 to 5 (1 Beginner, 2 Casual, "
                             "3 Club, 4 Strong, 5 Expert), got 'x'"),
    ("bot:seven_up:level=2.0", "got '2.0'"),
    ("bot:seven_up:level=", "got ''"),
    ("bot:seven_up:level=2,level=3", "option level is given twice in 'bot:seven_up:level=2,level=3'"),
    ("bot:seven_up:level=2,sym=0,level=2", "option level is given twice"),
    ("x.pt:level=9", "option level of 'x.pt' must be a level from 1 to 5"),
    ("bot:seven_up:level", "a bot or checkpoint takes only sym=0 or sym=1 and level=1 to 5"),
])
def test_a_bad_level_is_one_line(text, message):
    with pytest.raises(ValueError) as e:
        AgentSpec.parse(text)
    assert message in str(e.value) and "\n" not in str(e.value)


def test_a_level_loads_the_bot_with_its_share_of_random_moves():
    for level in (1, TOP):
        agent = agent_of(f"bot:seven_up:level={level}")
        assert agent.blunder == BLUNDER[level] and agent.name == f"bot:seven_up:level={level}"
    ck = make_agent(f"{checkpoints_dir() / 'seven_up.pt'}:sym=0,level=2")
    assert ck.blunder == BLUNDER[2] and not ck.symmetrize
    assert agent_of("bot:seven_up").blunder == 0


# ---------------------------------------------------------------------- the top level is the bot
@pytest.mark.parametrize("name", list(BOTS))
def test_the_top_level_plays_as_the_bot(name):
    states = positions(name, 150)
    bot, top = bot_agent(name), bot_agent(name, TOP)
    top.seed(12345)  # its seed plays no part
    assert sum(len(s.legal_actions()) > 1 for s in states) >= 50
    assert [top.act(s, s.current) for s in states] == [bot.act(s, s.current) for s in states]


# ---------------------------------------------------------------------- a level's share of random moves
def wander(name: str, level: int, states: list, repeats: int, seed: int) -> tuple[int, list[int]]:
    """(moves off the network's, the legal counts of the trials) of ``level`` of bot ``name``, each position
    asked ``repeats`` times."""
    bot, agent = bot_agent(name), bot_agent(name, level)
    agent.seed(seed)
    greedy = [bot.act(s, s.current) for s in states]
    off, counts = 0, []
    for _ in range(repeats):
        for s, g in zip(states, greedy):
            legal = s.legal_actions()
            move = agent.act(s, s.current)
            assert move in legal
            off += move != g
            counts.append(len(legal))
    return off, counts


def assert_level_share(off: int, counts: list[int], level: int) -> None:
    """``off`` moves left the network's on positions with ``counts`` legal moves at the share of ``level``: not the
    share of a player that wanders among the other moves only, nor that of the next level up."""
    assert within_spread(off, counts, BLUNDER[level]), (off, len(counts))
    assert not within_spread(off, counts, BLUNDER[level + 1])
    assert off < Fraction(BLUNDER[level]) * len(counts)


@pytest.mark.parametrize("level", LOWER)
def test_a_level_leaves_the_networks_move_at_its_share(level):
    off, counts = wander("seven_up", level, positions("seven_up", 400, choice=True), 4, seed=level)
    assert_level_share(off, counts, level)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(BOTS))
def test_every_bots_levels_leave_its_move_at_their_share(name):
    states = positions(name, 600, choice=True, seed=50)
    for level in LOWER:
        off, counts = wander(name, level, states, 4, seed=100 + level)
        assert within_spread(off, counts, BLUNDER[level]), (name, level, off, len(counts))


# ---------------------------------------------------------------------- the batched twin
def batched_wander(name: str, level: int, games: int, steps: int, repeats: int, seed: int) -> tuple[int, list[int]]:
    """As ``wander``, for the batched twin on the positions of ``games`` games of random play, ``steps`` moves long:
    (moves off the network's, legal counts) on the positions with a choice; the top level's batched play
    is the bot's there, move for move."""
    preset, options = bot_options(name)
    vec = VectorEnv(preset, games, **options)
    vec.reset(seed=list(range(700, 700 + games)))
    bot = batched(bot_agent(name), vec.rules)
    top = batched(bot_agent(name, TOP), vec.rules, seed=seed)
    player = batched(bot_agent(name, level), vec.rules, seed=seed)
    assert isinstance(player, NetworkPlayer) and player.blunder == BLUNDER[level]
    rng = np.random.default_rng(seed)
    rows = np.arange(games)
    off, counts = 0, []
    for _ in range(steps):
        obs, mask = vec.observe(vec.seat_to_move), vec.legal_mask()
        greedy = bot.actions(vec, rows, obs, mask)
        assert np.array_equal(top.actions(vec, rows, obs, mask), greedy)
        choice = mask.sum(1) > 1
        for _ in range(repeats):
            acts = player.actions(vec, rows, obs, mask)
            assert mask[rows, acts].all()
            assert np.array_equal(acts[~choice], greedy[~choice])
            off += int((acts != greedy)[choice].sum())
            counts += mask.sum(1)[choice].tolist()
        vec.step(vec.random_actions(rng))
    return off, counts


@pytest.mark.parametrize("level", LOWER)
def test_the_batched_level_wanders_at_the_same_share(level):
    off, counts = batched_wander("seven_up", level, 64, 30, 2, seed=level)
    assert len(counts) >= 2000
    assert_level_share(off, counts, level)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(BOTS))
def test_every_bots_batched_levels_wander_at_their_share(name):
    for level in LOWER:
        off, counts = batched_wander(name, level, 64, 40, 2, seed=200 + level)
        assert within_spread(off, counts, BLUNDER[level]), (name, level, off, len(counts))


# ---------------------------------------------------------------------- seeds
def test_a_level_seeded_twice_plays_the_same_moves():
    states = positions("seven_up", 150, choice=True)
    first, second = make_agent("bot:seven_up:level=2"), make_agent("bot:seven_up:level=2")
    moves = []
    for agent, seed in ((first, 5), (second, 5), (first, 5), (first, 6)):
        agent.seed(seed)
        moves.append([agent.act(s, s.current) for s in states])
    assert moves[0] == moves[1] == moves[2]
    assert moves[3] != moves[0]  # the seed decides where it wanders
    # and a whole match, which reseeds its agents from the match's seed
    players = [agent_of("bot:seven_up:level=1"), agent_of("bot:seven_up:level=3")]
    assert play_match(players, "seven_up", seed=9) == play_match(players, "seven_up", seed=9)


def test_a_batched_level_seeded_twice_plays_the_same_moves():
    vec = VectorEnv("seven_up", 64)
    vec.reset(seed=3)
    rows, obs, mask = np.arange(64), vec.observe(vec.seat_to_move), vec.legal_mask()
    player = NetworkPlayer(agent_of("bot:seven_up:level=2"), seed=5)
    runs = []
    for seed in (5, 5, 6):
        player.seed(seed)
        runs.append([player.actions(vec, rows, obs, mask).tolist() for _ in range(3)])
    assert runs[0] == runs[1] and runs[2] != runs[0]
    again = NetworkPlayer(make_agent("bot:seven_up:level=2"), seed=5)  # another agent object
    assert [again.actions(vec, rows, obs, mask).tolist() for _ in range(3)] == runs[0]


# ---------------------------------------------------------------------- benchmarks/ladder.py
def test_the_ladders_ratings_add_the_elo_of_each_step():
    assert ladder.elo(0.5) == 0 and ladder.elo(0.75) == pytest.approx(400 * math.log10(3))
    assert ladder.elo(1.0) is None and ladder.elo(0.0) is None
    assert ladder.ratings([0.75, 0.5, 0.25, 0.75]) == pytest.approx(
        [0, 400 * math.log10(3), 400 * math.log10(3), 0, 400 * math.log10(3)])
    rated = ladder.ratings([0.75, 1.0, 0.6])
    assert rated[:2] == pytest.approx([0, 400 * math.log10(3)]) and rated[2:] == [None, None]


def test_the_ladder_reports_each_level_against_the_one_below(tmp_path, capsys):
    argv = ["--bots", "seven_up", "--matches", "2", "--seed", "2", "--workers", "1", "--no-progress"]
    assert ladder.main([*argv, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    (board,) = out
    assert board["bot"] == "seven_up" and [r["level"] for r in board["levels"]] == list(range(2, TOP + 1))
    # the figures are those of the level's pairing played alone
    want = evaluate_pairings([("bot:seven_up:level=3", "bot:seven_up:level=2")], preset="seven_up",
                             options={"players": 2}, matches=2, seed=2, workers=1, progress=False)["results"][0]
    row = board["levels"][1]
    assert (row["wins"], row["matches"], row["ci95"]) == (want["wins"], want["matches"], want["ci95"])
    assert ladder.main(argv) == 0
    text = capsys.readouterr().out
    assert "| 1 | Beginner |" in text and "| 5 | Expert |" in text
    assert "python benchmarks/ladder.py --bots seven_up --matches 2 --seed 2" in text
    # 2 matches cannot show a level beating the one below (2 wins of 2: Wilson's lower end 0.34): --check fails
    assert ladder.main([*argv, "--check"]) == 1
    assert "does not beat level" in capsys.readouterr().out


@pytest.mark.parametrize("argv,message", [
    (["--bots", "nobot"], "argument --bots: invalid choice"),
    (["--matches", "7"], "argument --matches: must be even"),
    (["--matches", "0"], "argument --matches: must be a whole number of 1 or more"),
    (["--workers", "x"], "argument --workers"),
])
def test_the_ladders_bad_arguments_are_one_line(argv, message, capsys):
    assert ladder.main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_a_level_below_the_top_is_no_target_of_a_best_response():
    """A best response answers a fixed policy: a level plays a share of its moves at random, so it is refused."""
    assert determinism_problem(make_agent("bot:seven_up:level=5", preset="seven_up")) is None
    assert "at random" in determinism_problem(make_agent("bot:seven_up:level=2", preset="seven_up"))
    with pytest.raises(ValueError, match="level"):
        AgentSpec.parse("bot:seven_up:level=\u0663")  # an Arabic-Indic three is not a level
