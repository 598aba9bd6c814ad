"""The Gymnasium ids (agents/adapters/gym_env.py, agents/adapters/gym_vector.py, allfours/gym_registration.py): the
single env passes Gymnasium's checker on every id and player count (the auction's Pitch-v0 and Setback-v0
too), replays on a seed and scores as env() does; a match is cut at ``max_moves`` (truncated); ``make_vec``'s
games on the batched engine equal the single env's on the same seeds (deterministic opponents, cuts included)
or have the same statistics (random ones); bad arguments are one ValueError each; the sb3 agent and example
work, and (slow) MaskablePPO learns to beat random play."""

from __future__ import annotations

import importlib.util
import warnings
from pathlib import Path

import gymnasium
import numpy as np
import pytest
import torch
from gymnasium.utils.env_checker import check_env

import allfours  # noqa: F401 (registers the ids)
from allfours.agents.adapters.gym_env import AllFoursGymEnv
from allfours.agents.adapters.gym_vector import AllFoursVectorEnv
from allfours.agents.base import Agent
from allfours.agents.network import PolicyNet
from allfours.agents.players.neural import NeuralAgent
from allfours_env import NUM_ACTIONS, OBS_SIZE, GameState, encode
from allfours_env.observation import OBS_LOW
from allfours_env.render import RGB_SIZE, render_rgb, render_text
from allfours_env.rules import AUCTION_MAX_MOVES

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "sb3_maskable_ppo.py"
AUCTION_IDS = [("allfours:allfours/Pitch-v0", {"players": 2}), ("allfours:allfours/Pitch-v0", {"players": 3}),
               ("allfours:allfours/Pitch-v0", {}), ("allfours:allfours/Setback-v0", {})]
IDS = [("allfours:allfours/SevenUp-v0", {}), ("allfours:allfours/Yorkshire-v0", {}),
       ("allfours:allfours/Traditional-v0", {"players": 2}), ("allfours:allfours/Traditional-v0", {"players": 3}),
       ("allfours:allfours/Traditional-v0", {"players": 4}), *AUCTION_IDS]
SPACE = gymnasium.spaces.Box(OBS_LOW, 1.0, (OBS_SIZE,), np.float32)


def pick(obs: np.ndarray, mask: np.ndarray) -> int:
    """A deterministic learner that depends on what it sees: a legal action chosen by the observation."""
    legal = np.flatnonzero(mask)
    return int(legal[int(obs.sum() * 1000) % len(legal)])


@pytest.mark.parametrize("env_id,kwargs", IDS)
def test_check_env_passes(env_id, kwargs):
    e = gymnasium.make(env_id, opponent="random", **kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the checker's warnings count as failures
        check_env(e.unwrapped)
    assert e.observation_space == SPACE and e.observation_space.low.min() == -1.0  # (the scores: set back)
    assert e.action_space == gymnasium.spaces.Discrete(63) and NUM_ACTIONS == 63


@pytest.mark.parametrize("env_id,kwargs", IDS)
def test_the_mask_is_the_learners_legal_actions(env_id, kwargs):
    e = gymnasium.make(env_id, opponent="heuristic", seat="random", **kwargs).unwrapped
    obs, info = e.reset(seed=3)
    seats, ended, bids = set(), 0, 0
    for _ in range(400):
        state = e.state
        assert state.current == e.seat == info["seat"] and not state.done
        seats.add(e.seat)
        assert np.array_equal(obs, encode(state, e.seat)) and SPACE.contains(obs)
        assert np.flatnonzero(info["action_mask"]).tolist() == state.legal_actions()
        assert info["action_mask"].dtype == np.int8 and np.array_equal(e.action_masks(), info["action_mask"] == 1)
        bids += bool(info["action_mask"][57:].any())
        obs, reward, terminated, truncated, info = e.step(pick(obs, info["action_mask"]))
        assert not truncated
        if terminated:
            assert not info["action_mask"].any() and info["winner"] >= 0 and SPACE.contains(obs)
            ended += 1
            obs, info = e.reset()
    assert len(seats) > 1  # "random" draws the seat per match
    assert ended >= 3  # whole matches, the opponents' moves in between
    assert (bids > 0) == e.rules.auction  # the auction presets' learner bids (ids 57..62), the others' never


@pytest.mark.parametrize("seat", [0, "random"])
def test_reset_with_a_seed_replays_the_episodes(seat):
    def episodes(e, seed):
        obs, info = e.reset(seed=seed)
        out, n = [], 0
        while n < 3:
            a = pick(obs, info["action_mask"])
            obs, r, term, _, info = e.step(a)
            out.append((a, r, term, info["seat"]))
            if term:
                n += 1
                obs, info = e.reset()
        return out

    e = gymnasium.make("allfours/Traditional-v0", players=3, opponent="random", seat=seat).unwrapped
    first = episodes(e, 11)
    assert episodes(e, 12) != first
    assert episodes(e, 11) == first
    other = gymnasium.make("allfours/Traditional-v0", players=3, opponent="random", seat=seat).unwrapped
    assert episodes(other, 11) == first


def play_episode(e, seed: int) -> tuple[list[float], dict]:
    """One episode of ``e`` from ``reset(seed)``, the learner picking by ``pick``: its rewards and the last info
    (a truncation fails the test: these episodes end by the rules)."""
    obs, info = e.reset(seed=seed)
    rewards = []
    while True:
        obs, r, term, trunc, info = e.step(pick(obs, info["action_mask"]))
        rewards.append(r)
        assert not trunc
        if term:
            return rewards, info


def test_rewards_are_the_seats_rewards():
    # match reward: +1 to the winner's side, -1 else, on the last step only
    e = gymnasium.make("allfours/SevenUp-v0", opponent="heuristic").unwrapped
    obs, info = e.reset(seed=5)
    rewards = []
    for _ in range(5000):
        obs, r, term, _, info = e.step(pick(obs, info["action_mask"]))
        rewards.append(r)
        if term:
            assert r == (1.0 if info["winner"] == e.rules.side(e.seat) else -1.0)
            assert set(rewards[:-1]) <= {0.0}
            break
    # points reward: the episode's rewards add up to the learner's score minus the other side's
    e = gymnasium.make("allfours/SevenUp-v0", opponent="heuristic", reward="points", seat=1).unwrapped
    for seed in range(4):
        rewards, info = play_episode(e, seed)
        assert sum(rewards) == info["scores"][1] - info["scores"][0]


@pytest.mark.parametrize("env_id,kwargs", AUCTION_IDS)
def test_the_auction_presets_rewards_are_the_match_rewards(env_id, kwargs):
    # docs/rules.md section 8: "The rewards of a match: +1 to each player of the winning side; the losing sides
    # share -1 (-1 each with two sides, -1/2 with three, -1/3 with four)."
    e = gymnasium.make(env_id, opponent="heuristic", seat="random", **kwargs).unwrapped
    lose = -1.0 / (e.rules.sides - 1)
    results = set()
    for seed in range(4):
        rewards, info = play_episode(e, seed)
        assert info["scores"][info["winner"]] >= e.rules.target  # the winner went out
        assert rewards[-1] == (1.0 if info["winner"] == e.rules.side(e.seat) else lose)
        assert set(rewards[:-1]) <= {0.0}
        results.add(rewards[-1])
    assert lose in results


def test_the_auction_presets_points_rewards_add_up_to_the_score_margin():
    # docs/rules.md section 6: "`reward="points"`: at each hand's end, each agent gets its side's points minus the
    # mean of the" other sides'; section 8: a hand result's "`points` hold the set-back as a negative number", so
    # an episode's rewards add up to the learner's score minus the mean of the others' (from 0 each)
    for kwargs in ({"players": 3}, {"players": 2}):
        e = gymnasium.make("allfours/Pitch-v0", opponent="heuristic", reward="points", seat=1, **kwargs).unwrapped
        negative = False
        for seed in range(3):
            rewards, info = play_episode(e, seed)
            scores = info["scores"]
            others = [x for side, x in enumerate(scores) if side != 1]
            assert sum(rewards) == pytest.approx(scores[1] - sum(others) / len(others))
            negative |= any(p < 0 for h in e.state.hand_results for p in h["points"])
        assert negative  # a set-back was among them


def test_an_illegal_action_loses_the_episode():
    e = gymnasium.make("allfours/SevenUp-v0").unwrapped
    obs, info = e.reset(seed=0)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    obs, r, term, _, info = e.step(illegal)
    assert (r, term, info["illegal_action"]) == (-1.0, True, True)
    with pytest.raises(RuntimeError, match="reset"):
        e.step(0)


class Counting(Agent):
    """The heuristic's moves, counted: the moves the other seats made."""

    def __init__(self):
        super().__init__()
        from allfours.agents.players.heuristic import HeuristicAgent
        self.inner, self.moves = HeuristicAgent(), 0

    def act(self, state, seat):
        self.moves += 1
        return self.inner.act(state, seat)


@pytest.mark.parametrize("env_id,kwargs", [*AUCTION_IDS, ("allfours/SevenUp-v0", {}),
                                           ("allfours/Traditional-v0", {"players": 3})])
def test_a_match_is_cut_at_max_moves(env_id, kwargs):
    # as env()'s max_moves: a match is cut after that many moves, every seat's; the episode is truncated, not
    # terminated, with nothing for the undecided match; the next reset() plays the seed's next match
    auction = "Pitch" in env_id or "Setback" in env_id
    assert gymnasium.make(env_id, **kwargs).unwrapped.max_moves == (AUCTION_MAX_MOVES if auction else None)
    counter = Counting()
    e = gymnasium.make(env_id, opponent=counter, seat="random", max_moves=40, **kwargs).unwrapped
    cut = ended = 0
    for episode in range(12):
        counter.moves, steps, rewards = 0, 0, []
        obs, info = e.reset(seed=5) if episode == 0 else e.reset()
        assert e.match == episode  # (no match here is cut or won before the learner's first move)
        while True:
            obs, r, term, trunc, info = e.step(pick(obs, info["action_mask"]))
            steps += 1
            rewards.append(r)
            assert SPACE.contains(obs) and not (term and trunc)
            if term or trunc:
                break
        assert steps + counter.moves == e.moves <= 40
        if trunc:
            cut += 1
            assert e.moves == 40 and not e.state.done and info["winner"] == -1 and rewards == [0.0] * steps
            assert info["scores"] == list(e.state.scores) and max(info["scores"]) < e.rules.target
            assert not info["action_mask"].any() and not e.action_masks().any()
            with pytest.raises(RuntimeError, match=r"call reset\(\) before step\(\)"):
                e.step(0)
        else:
            ended += 1
            assert e.state.done and info["winner"] >= 0
    assert cut >= 6  # most matches last more than 40 moves


def test_a_cut_step_still_pays_the_hand_it_ended():
    # Two-player Pitch: a hand is two calls and twelve cards, so a cut at 14 moves falls on the first hand's last
    # card: that step pays the hand (reward="points"), as env()'s step does, and only the match goes unpaid
    e = gymnasium.make("allfours/Pitch-v0", players=2, opponent="heuristic", reward="points", max_moves=14).unwrapped
    paid = 0
    for seed in range(4):
        obs, info = e.reset(seed=seed)
        total = 0.0
        while True:
            obs, r, term, trunc, info = e.step(pick(obs, info["action_mask"]))
            total += r
            if term or trunc:
                break
        assert trunc and not term and e.state.hand_no == 1 and e.moves == 14
        points = e.state.hand_results[0]["points"]
        assert r == total == points[e.seat] - points[1 - e.seat] == info["scores"][e.seat] - info["scores"][1 - e.seat]
        paid += r != 0
    assert paid


@pytest.mark.parametrize("max_moves", [0, -3, 1.5, "40", True, [40]])
def test_a_bad_max_moves_is_one_value_error(max_moves):
    want = r"^max_moves must be None or an int of at least 1, got "
    for make in (lambda: gymnasium.make("allfours/Pitch-v0", max_moves=max_moves),
                 lambda: gymnasium.make("allfours/SevenUp-v0", max_moves=max_moves),
                 lambda: gymnasium.make_vec("allfours/Setback-v0", num_envs=2, vectorization_mode="vector_entry_point",
                                            opponent="random", max_moves=max_moves)):
        with pytest.raises(ValueError, match=want) as err:
            make()
        assert "\n" not in str(err.value)


def test_the_auction_ids_are_registered_and_play_with_the_default_heuristic():
    for env_id, preset, players in (("allfours:allfours/Pitch-v0", "pitch", 4), ("allfours/Setback-v0", "setback", 4)):
        spec = gymnasium.spec(env_id.removeprefix("allfours:"))
        assert spec.kwargs == {"preset": preset} and spec.entry_point.endswith("gym_env:AllFoursGymEnv")
        assert spec.vector_entry_point.endswith("gym_vector:AllFoursVectorEnv")
        e = gymnasium.make(env_id)  # the checker's wrappers on; opponent "heuristic"
        assert e.unwrapped.opponent.name == "heuristic" and e.unwrapped.rules.players == players
        obs, info = e.reset(seed=0)
        assert (info["action_mask"][57:] == 1).any()  # the learner (seat 0) is in the auction
        while True:
            obs, r, term, trunc, info = e.step(pick(obs, info["action_mask"]))
            if term or trunc:
                break
        assert term and info["winner"] >= 0
    # four players each for themselves (Pitch's default) have no partner; in partnerships they have
    with pytest.raises(ValueError, match="^partner applies to a four-player partnership game; pitch here has 4 "
                                         "players each for themselves$"):
        gymnasium.make("allfours/Pitch-v0", partner="random")
    e = gymnasium.make("allfours/Pitch-v0", partnerships=True, partner=Recorder(), opponent="heuristic", seat=1)
    obs, info = e.reset(seed=0)
    for _ in range(30):
        obs, r, term, trunc, info = e.step(pick(obs, info["action_mask"]))
        if term or trunc:
            obs, info = e.reset()
    assert e.unwrapped.partner.seats == {3}
    # make_vec: one single env per game, or the batched engine with the heuristic's batched twin (the default)
    for mode in ("sync", "vector_entry_point"):
        envs = gymnasium.make_vec("allfours:allfours/Pitch-v0", num_envs=2, vectorization_mode=mode, players=3)
        obs, info = envs.reset(seed=0)
        assert obs.shape == (2, OBS_SIZE) and info["action_mask"].shape == (2, 63)


BAD_SEEDS = ["a", 1.5, -1, 2**64, 2**70, True]


@pytest.mark.parametrize("seed", BAD_SEEDS)
def test_a_bad_seed_is_one_value_error_naming_it(seed):
    # Gymnasium's own check would be a gymnasium.error.Error, and 2**70 passed it to overflow later
    e = gymnasium.make("allfours/SevenUp-v0").unwrapped
    with pytest.raises(ValueError, match=r"^seed must be an int from 0 to 2\*\*64 - 1, or None; got "):
        e.reset(seed=seed)
    envs = gymnasium.make_vec("allfours/SevenUp-v0", num_envs=2, vectorization_mode="vector_entry_point")
    with pytest.raises(ValueError, match=r"^seed must be an int from 0 to 2\*\*64 - 1, or None; got "):
        envs.reset(seed=seed)
    if seed is not True:  # a list's entries are seeds too (numpy's ints among them)
        with pytest.raises(ValueError, match=r"^seed\[1\] must be an int from 0 to 2\*\*64 - 1; got "):
            envs.reset(seed=[np.uint64(3), seed])


def test_the_largest_seeds_are_taken():
    e = gymnasium.make("allfours/SevenUp-v0").unwrapped
    top, _ = e.reset(seed=2**64 - 1)
    assert np.array_equal(e.reset(seed=np.uint64(2**64 - 1))[0], top)
    envs = gymnasium.make_vec("allfours/SevenUp-v0", num_envs=2, vectorization_mode="vector_entry_point")
    obs, _ = envs.reset(seed=2**64 - 2)  # games 2**64 - 2 and 2**64 - 1
    assert np.array_equal(obs[1], top)
    with pytest.raises(ValueError, match=r"past 2\*\*64 - 1 for 2 games: use a seed up to 2\*\*64 - 2"):
        envs.reset(seed=2**64 - 1)


def test_a_method_before_reset_is_one_runtime_error():
    e = gymnasium.make("allfours/SevenUp-v0", render_mode="ansi").unwrapped
    for call, args in (("action_masks", ()), ("render", ()), ("step", (0,))):
        with pytest.raises(RuntimeError, match=rf"^call reset\(\) before {call}\(\)"):
            getattr(e, call)(*args)
    envs = gymnasium.make_vec("allfours/SevenUp-v0", num_envs=2, vectorization_mode="vector_entry_point")
    with pytest.raises(RuntimeError, match=r"^call reset\(\) before action_masks\(\)"):
        envs.unwrapped.action_masks()
    with pytest.raises(RuntimeError, match=r"^call reset\(\) before step\(\)"):
        envs.step(np.zeros(2, np.int64))


def test_render_modes():
    e = gymnasium.make("allfours/SevenUp-v0", render_mode="rgb_array")
    assert e.metadata["render_modes"] == ["ansi", "human", "rgb_array"]
    obs, info = e.reset(seed=1)
    first = e.render()
    assert first.dtype == np.uint8 and first.shape == (*RGB_SIZE, 3)
    assert np.array_equal(first, render_rgb(e.unwrapped.state, e.unwrapped.seat))  # the learner's table
    e.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert e.render().shape == first.shape and not np.array_equal(e.render(), first)
    text = gymnasium.make("allfours/SevenUp-v0", render_mode="ansi")
    text.reset(seed=1)
    assert text.render() == render_text(text.unwrapped.state, text.unwrapped.seat)
    with pytest.raises(ValueError, match="render_mode must be one of"):
        gymnasium.make("allfours/SevenUp-v0", render_mode="video")
    with pytest.raises(ValueError, match="render_mode is not supported by the batched env.*'sync'"):
        gymnasium.make_vec("allfours/SevenUp-v0", num_envs=2, vectorization_mode="vector_entry_point",
                           render_mode="rgb_array")


def test_human_render_prints_the_table_at_each_reset_and_step(capsys):
    e = gymnasium.make("allfours/SevenUp-v0", render_mode="human").unwrapped
    obs, info = e.reset(seed=2)
    assert capsys.readouterr().out == render_text(e.state, e.seat) + "\n"
    e.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert capsys.readouterr().out == render_text(e.state, e.seat) + "\n"
    assert e.render() is None


class Recorder(Agent):
    """Plays the lowest legal action and notes the seats it is asked for."""

    def __init__(self):
        super().__init__()
        self.seats = set()

    def act(self, state, seat):
        self.seats.add(seat)
        return state.legal_actions()[0]


def test_partner_and_opponents_take_their_seats():
    partner, opponent = Recorder(), Recorder()
    e = AllFoursGymEnv("yorkshire", opponent=opponent, partner=partner, seat=1)
    obs, info = e.reset(seed=0)
    for _ in range(200):
        obs, r, term, _, info = e.step(pick(obs, info["action_mask"]))
        if term:
            obs, info = e.reset()
    assert partner.seats == {3} and opponent.seats == {0, 2}


@pytest.mark.parametrize("kwargs,match", [
    ({"opponent": "nobody"}, "opponent 'nobody'.*unknown agent"),
    ({"opponent": "search:worlds=x"}, "opponent 'search:worlds=x'"),
    ({"seat": 2}, "seat must be an int from 0 to 1"),
    ({"seat": "left"}, "seat must be"),
    ({"colour": "red"}, r"unknown option\(s\) \['colour'\]"),
    ({"target": 0}, "target"),
    ({"partner": "random"}, "partner applies to a four-player"),
    ({"players": 5}, "players"),
])
def test_bad_arguments_are_one_value_error(kwargs, match):
    with pytest.raises(ValueError, match=match):
        gymnasium.make("allfours/SevenUp-v0", **kwargs)
    with pytest.raises(ValueError, match=match):
        gymnasium.make_vec("allfours/SevenUp-v0", num_envs=2, vectorization_mode="vector_entry_point", **kwargs)


def test_make_vec_refuses_an_opponent_without_a_batched_form():
    with pytest.raises(ValueError, match="opponent 'search' has no batched form.*vectorization_mode='sync'"):
        gymnasium.make_vec("allfours/SevenUp-v0", num_envs=2, vectorization_mode="vector_entry_point",
                           opponent="search")
    envs = gymnasium.make_vec("allfours/SevenUp-v0", num_envs=2, vectorization_mode="sync",
                              opponent="search:worlds=2")  # the documented way: one single env per game
    obs, info = envs.reset(seed=0)
    assert obs.shape == (2, OBS_SIZE) and info["action_mask"].shape == (2, 63)


def net_agent(seed: int = 0) -> NeuralAgent:
    """A deterministic opponent with a batched form in every preset, the auction's too: a greedy untrained network
    (its policy head scaled up, so that no two legal actions are near a tie)."""
    torch.manual_seed(seed)
    net = PolicyNet(OBS_SIZE, NUM_ACTIONS, hidden=(32,))
    with torch.no_grad():
        net.pi.weight.mul_(300.0)
    return NeuralAgent(net, symmetrize=False)


NET = net_agent()


def play_vector(env_id, kwargs, n, steps, seed):
    envs = gymnasium.make_vec(env_id, num_envs=n, vectorization_mode="vector_entry_point", **kwargs)
    assert isinstance(envs.unwrapped, AllFoursVectorEnv) and isinstance(envs, gymnasium.vector.VectorEnv)
    assert envs.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP
    obs, info = envs.reset(seed=seed)
    rec = [[] for _ in range(n)]
    for _ in range(steps):
        assert obs.shape == (n, OBS_SIZE) and info["action_mask"].shape == (n, 63)
        assert all(SPACE.contains(o) for o in obs) and info["action_mask"].any(1).all()
        acts = np.array([pick(obs[i], info["action_mask"][i]) for i in range(n)])
        for i in range(n):
            rec[i].append((obs[i].tobytes(), info["action_mask"][i].tobytes(), int(info["seat"][i])))
        obs, rewards, terminated, truncated, info = envs.step(acts)
        assert not (terminated & truncated).any()
        if "max_moves" not in kwargs and "Pitch" not in env_id and "Setback" not in env_id:
            assert not truncated.any()
        if terminated.any() or truncated.any():
            assert np.array_equal(info["_final_info"], terminated | truncated)
            if kwargs.get("episode") != "hand":  # (a one-hand episode has no match winner)
                assert (info["final_info"]["winner"][terminated] >= 0).all()
            assert (info["final_info"]["winner"][truncated] == -1).all()  # a cut match is undecided
            assert (np.abs(info["final_info"]["scores"][terminated]).sum(1) > 0).all()
        for i in range(n):
            rec[i].append((float(rewards[i]), bool(terminated[i]), bool(truncated[i])))
    return rec


def play_single(env_id, kwargs, seed, steps):
    e = gymnasium.make(env_id, **kwargs).unwrapped
    obs, info = e.reset(seed=seed)
    rec = []
    for _ in range(steps):
        rec.append((obs.tobytes(), info["action_mask"].tobytes(), info["seat"]))
        obs, r, term, trunc, info = e.step(pick(obs, info["action_mask"]))
        rec.append((float(np.float32(r)), bool(term), bool(trunc)))  # (the vector env's rewards are float32)
        if term or trunc:
            obs, info = e.reset()
    return rec


@pytest.mark.parametrize("env_id,kwargs", [
    ("allfours/SevenUp-v0", {"seat": "random"}),
    ("allfours/Yorkshire-v0", {"seat": 1}),
    ("allfours/Traditional-v0", {"players": 3, "seat": "random", "reward": "points"}),
    ("allfours/Traditional-v0", {"players": 4, "seat": 2, "episode": "hand"}),
    ("allfours/SevenUp-v0", {"seat": "random", "max_moves": 30}),
    # against the network: 4 s to 20 s each
    pytest.param("allfours/Pitch-v0", {"players": 2, "seat": "random", "opponent": NET, "max_moves": 40},
                 marks=pytest.mark.slow),
    pytest.param("allfours/Pitch-v0", {"players": 3, "seat": "random", "opponent": NET, "max_moves": 60},
                 marks=pytest.mark.slow),
    pytest.param("allfours/Pitch-v0", {"seat": "random", "opponent": NET, "max_moves": 300}, marks=pytest.mark.slow),
    pytest.param("allfours/Pitch-v0", {"players": 2, "opponent": NET, "reward": "points", "max_moves": 14},
                 marks=pytest.mark.slow),
    pytest.param("allfours/Setback-v0", {"seat": 1, "opponent": NET, "max_moves": 200}, marks=pytest.mark.slow),
    ("allfours/Pitch-v0", {"players": 2, "seat": "random"}),
    ("allfours/Pitch-v0", {"players": 3, "seat": "random", "reward": "points"}),
    ("allfours/Pitch-v0", {"seat": "random"}),
    ("allfours/Pitch-v0", {"partnerships": True, "seat": 1}),
    ("allfours/Setback-v0", {"seat": "random"}),
], ids=["seven_up", "yorkshire", "traditional3-points", "traditional4-hand", "seven_up-cut", "pitch2-cut", "pitch3-cut",
        "pitch4-cut", "pitch2-points-cut", "setback-cut", "pitch2", "pitch3-points", "pitch4", "pitch4-partners",
        "setback"])
def test_make_vec_plays_the_single_envs_games(env_id, kwargs):
    # The auction presets against a network, which overbids and is set back again and again: their matches are cut,
    # and some end (pitch4, setback); against the default opponent, the heuristic (its batched twin bids as it
    # does), whole matches end, none cut
    n, steps, seed = 4, 160, 40
    rec = play_vector(env_id, kwargs, n, steps, seed)
    ends = []
    for i in range(n):
        single = play_single(env_id, kwargs, seed + i, steps)
        assert rec[i] == single, i
        ends += single[1::2]
        assert sum(term or trunc for r, term, trunc in single[1::2]) >= 1
    assert sum(term or trunc for r, term, trunc in ends) >= 2 * n  # several episodes, autoreset included
    if "max_moves" in kwargs:  # cut matches among them, at the same step as the single env's
        assert any(trunc for r, term, trunc in ends)
        if kwargs["max_moves"] > 100:
            assert any(term for r, term, trunc in ends)
    if "opponent" not in kwargs and "max_moves" not in kwargs:  # the heuristic: whole matches, none cut
        sides = gymnasium.make(env_id, **kwargs).unwrapped.rules.sides
        assert not any(trunc for r, term, trunc in ends)
        if kwargs.get("reward") != "points" and kwargs.get("episode") != "hand":
            results = {r for r, term, trunc in ends if term}
            assert results and results <= {1.0, float(np.float32(-1.0 / (sides - 1)))}, results


@pytest.mark.slow
def test_make_vec_with_a_network_opponent_plays_the_single_envs_games():
    kwargs = {"opponent": "bot:seven_up:sym=0", "seat": "random"}  # (the raw network: a sixth of the time)
    rec = play_vector("allfours/SevenUp-v0", kwargs, 2, 40, 7)
    for i in range(2):
        assert rec[i] == play_single("allfours/SevenUp-v0", kwargs, 7 + i, 40), i


@pytest.mark.slow
@pytest.mark.parametrize("env_id,kwargs", AUCTION_IDS)
def test_make_vec_plays_the_auction_presets_against_random_play(env_id, kwargs):
    # whole matches on the batched engine, the masks legal (an illegal action would raise), the observations in the
    # space (play_vector checks both); the learner's rewards are the match's, as the single env's
    n, steps = 8, 200
    rec = play_vector(env_id, {"opponent": "random", "seat": "random", **kwargs}, n, steps, 9)
    sides = gymnasium.make(env_id, **kwargs).unwrapped.rules.sides
    ends = [x for game in rec for x in game[1::2]]
    assert {r for r, term, trunc in ends if term} <= {1.0, float(np.float32(-1.0 / (sides - 1)))}
    assert {r for r, term, trunc in ends if not term} == {0.0}
    assert sum(term for r, term, trunc in ends) >= n // 2  # (random bidders are set back often: long matches)


@pytest.mark.slow
def test_make_vec_with_random_opponents_has_the_single_envs_statistics():
    kwargs = {"opponent": "random", "seat": "random"}
    n, steps = 256, 60
    rec = play_vector("allfours/SevenUp-v0", kwargs, n, steps, 1000)
    single = [play_single("allfours/SevenUp-v0", kwargs, 5000 + i, steps) for i in range(n)]

    def stats(games):
        wins = [r > 0 for g in games for r, term, _ in g[1::2] if term]
        firsts = [g[1::2].index(next(x for x in g[1::2] if x[1])) + 1 for g in games if any(x[1] for x in g[1::2])]
        return np.mean(wins), len(wins), np.mean(firsts), np.std(firsts)

    (w1, n1, l1, s1), (w2, n2, l2, s2) = stats(rec), stats(single)
    p = (w1 * n1 + w2 * n2) / (n1 + n2)
    assert abs(w1 - w2) < 4 * np.sqrt(p * (1 - p) * (1 / n1 + 1 / n2)), (w1, w2)
    assert abs(l1 - l2) < 4 * np.hypot(s1, s2) / np.sqrt(n), (l1, l2)
    assert min(n1, n2) > 200 and 0.3 < w1 < 0.7


def test_make_vec_reset_seeds_and_masks():
    envs = gymnasium.make_vec("allfours/SevenUp-v0", num_envs=3, vectorization_mode="vector_entry_point")
    a, info_a = envs.reset(seed=[5, 6, 7])
    b, info_b = envs.reset(seed=5)
    assert np.array_equal(a, b) and np.array_equal(info_a["action_mask"], info_b["action_mask"])
    assert np.array_equal(envs.unwrapped.action_masks(), info_a["action_mask"] == 1)
    illegal = np.array([np.flatnonzero(m == 0)[0] for m in info_a["action_mask"]])
    with pytest.raises(ValueError, match="illegal"):
        envs.step(illegal)
    again, _ = envs.reset(seed=5)
    assert np.array_equal(again, a)


# ---------------------------------------------------------------------------- sb3-contrib
def load_example():
    pytest.importorskip("sb3_contrib")
    spec = importlib.util.spec_from_file_location("sb3_maskable_ppo_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_sb3_make_vec_env_with_its_defaults_steps_with_masks_and_renders():
    # make_vec_env asks each env for render_mode="rgb_array" (it used to be a ValueError), wraps it in a
    # Monitor and a DummyVecEnv; MaskablePPO reads the masks through env_method("action_masks")
    pytest.importorskip("sb3_contrib")
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    from stable_baselines3.common.env_util import make_vec_env

    vec = make_vec_env("allfours:allfours/SevenUp-v0", n_envs=2, seed=3)
    assert vec.render_mode == "rgb_array" and is_masking_supported(vec)
    obs = vec.reset()
    twins = [gymnasium.make("allfours/SevenUp-v0").unwrapped for _ in range(2)]
    twin_obs = [t.reset(seed=3 + i)[0] for i, t in enumerate(twins)]
    assert np.array_equal(obs, np.stack(twin_obs))  # game i is the single env reset with seed 3 + i
    frames = vec.get_images()
    assert [f.shape for f in frames] == [(*RGB_SIZE, 3)] * 2 and all(f.dtype == np.uint8 for f in frames)
    tiled = vec.render()
    assert tiled.dtype == np.uint8 and tiled.ndim == 3 and tiled.shape[2] == 3
    ended = 0
    for step in range(60):
        masks = get_action_masks(vec)
        assert masks.shape == (2, 63) and masks.dtype == bool
        for i, t in enumerate(twins):
            assert np.flatnonzero(masks[i]).tolist() == t.state.legal_actions()
        actions = np.array([np.flatnonzero(m)[-1] for m in masks])
        before = frames if step == 0 else vec.get_images() if step < 4 else None  # (a picture costs ~20 ms)
        obs, rewards, dones, infos = vec.step(actions)
        after = vec.get_images() if before is not None else None
        for i, t in enumerate(twins):
            t_obs, t_r, t_done, _, _ = t.step(int(actions[i]))
            assert rewards[i] == t_r and dones[i] == t_done
            if t_done:
                ended += 1
                assert "episode" in infos[i] and abs(infos[i]["episode"]["r"]) == 1.0
                t_obs, _ = t.reset()  # DummyVecEnv resets at once: the next match of the seed
            assert np.array_equal(obs[i], t_obs)
            if before is not None:
                assert not np.array_equal(before[i], after[i])  # the table changed: so did its picture
    assert ended >= 1


@pytest.mark.slow
def test_example_trains_saves_and_the_model_is_an_agent(tmp_path):
    example = load_example()
    out = tmp_path / "model.zip"
    figures = example.main(["--opponent", "random", "--num-envs", "16", "--n-steps", "16", "--batch-size", "64",
                            "--timesteps", "256", "--eval-matches", "16", "--out", str(out)])
    assert out.is_file() and figures["timesteps"] >= 256 and 0.0 <= figures["win_rate"] <= 1.0

    import torch

    from allfours.agents.adapters.sb3_agent import SB3Agent
    from allfours.agents.evaluation import play_match
    from allfours.agents.network import greedy_actions
    from allfours.agents.registry import make_agent
    agent = make_agent(f"sb3:{out}", preset="seven_up")
    assert isinstance(agent, SB3Agent)
    result = play_match([agent, make_agent("random")], preset="seven_up", seed=3)
    assert result["winner"] in (0, 1) and result["decisions"] > 0
    # greedy by the project's tie rule, on the model's own masked distribution: the agent reads only
    # the weights (never the pickled parts), and plays as the whole model SB3 itself loads
    from sb3_contrib import MaskablePPO
    full = MaskablePPO.load(out, device="cpu")
    e = gymnasium.make("allfours/SevenUp-v0", opponent="random").unwrapped
    obs, info = e.reset(seed=0)
    for _ in range(30):
        mask = torch.as_tensor(info["action_mask"] == 1)[None]
        logits = full.policy.get_distribution(torch.as_tensor(obs)[None],
                                              action_masks=mask.numpy()).distribution.logits
        want = int(greedy_actions(logits.detach(), mask)[0])
        assert agent.act(e.state, e.seat) == want
        assert abs(sum(agent.policy(e.state, e.seat).values()) - 1) < 1e-5
        obs, _, term, _, info = e.step(want)
        if term:
            obs, info = e.reset()
    # --keep-weights: a file of policy.pth alone, smaller, and the agent it makes plays the same moves
    small = tmp_path / "small.zip"
    assert example.main(["--keep-weights", str(out), str(small)])["bytes"] < out.stat().st_size
    kept = make_agent(f"sb3:{small}", preset="seven_up")
    s = GameState.new("seven_up", seed=4)
    while not s.done:
        move = agent.act(s, s.current)
        assert kept.act(s, s.current) == move
        s.apply(move)
    with pytest.raises(ValueError, match="not found"):
        make_agent(f"sb3:{tmp_path / 'missing.zip'}")


@pytest.mark.slow
def test_maskable_ppo_learns_to_beat_random_play(tmp_path):
    # 150,000 decisions against random play (about a minute on one core of a 2-core machine): the greedy
    # policy wins over 0.57 of 400 matches against random; untrained it wins 0.51 (the threshold is 2.5
    # standard errors above it).
    example = load_example()
    figures = example.main(["--opponent", "random", "--reward", "points", "--lr", "1e-3", "--num-envs", "128",
                            "--n-steps", "32", "--batch-size", "1024", "--timesteps", "150000", "--minutes", "10",
                            "--eval-matches", "400", "--out", str(tmp_path / "m.zip")])
    assert figures["win_rate_untrained"] < 0.57 < figures["win_rate"], figures
