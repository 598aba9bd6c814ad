"""RLlib adaptor (allfours.agents.adapters.rllib_env) and the PPO example (examples/rllib_ppo.py): every preset, the
auction's pitch and setback too, and matches cut at ``max_moves`` (truncated). Needs Ray: pip install '.[ray]'."""

import importlib.util
import math
import random
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray", reason="Ray not installed: pip install '.[ray]'")
pytest.importorskip("ray.rllib", reason="Ray RLlib not installed: pip install '.[ray]'")

import torch  # noqa: E402
from ray.rllib.core.rl_module.rl_module import RLModuleSpec  # noqa: E402
from ray.rllib.env.multi_agent_episode import MultiAgentEpisode  # noqa: E402
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule  # noqa: E402
from ray.rllib.utils.metrics.metrics_logger import MetricsLogger  # noqa: E402

from allfours.agents.adapters.rllib_env import (  # noqa: E402
    ILLEGAL_INFO,
    ILLEGAL_METRIC,
    AllFoursCallback,
    AllFoursRLlibEnv,
    RLModuleAgent,
    evaluate_vs,
    policy_mapping_fn,
    rllib_agent,
    rllib_spaces,
)
from allfours.agents.base import AgentError  # noqa: E402
from allfours.agents.evaluation import evaluate_agent  # noqa: E402
from allfours.agents.players.heuristic import HeuristicAgent  # noqa: E402
from allfours_env import GameState, env  # noqa: E402
from allfours_env.engine import IllegalActionError  # noqa: E402
from allfours_env.observation import OBS_LOW  # noqa: E402
from allfours_env.rules import AUCTION_MAX_MOVES  # noqa: E402

pytestmark = pytest.mark.ray  # RLlib: Ray's import, and a local Ray for the PPO example

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "rllib_ppo.py"


@pytest.fixture(scope="module")
def ray_session(local_ray):
    """The local Ray (conftest.py), torch on one thread while the module's PPO trains."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield local_ray
    torch.set_num_threads(threads)


def load_example():
    spec = importlib.util.spec_from_file_location("rllib_ppo_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


AUCTION_CASES = [("pitch", {"players": 2}), ("pitch", {"players": 3}), ("pitch", {}), ("setback", {})]


@pytest.mark.parametrize("preset,options", [("seven_up", {}), ("traditional", {"players": 3}), *AUCTION_CASES])
def test_wrapper_replays_the_aec_env(preset, options):
    # random play; in the auction presets the heuristic plays every seat but player_0 (random bidders are set back
    # hand after hand, and their matches run long)
    heuristic = HeuristicAgent()
    for seed in (0, 1):
        rl = AllFoursRLlibEnv({"preset": preset, "options": options})
        aec = env(preset, **options)
        aec.reset(seed=seed)
        obs, _ = rl.reset(seed=seed)
        rng = random.Random(seed)
        steps = 0
        while True:
            mover = aec.agent_selection
            assert list(obs) == [mover]  # only the agent to move sees anything
            ref = aec.observe(mover)
            np.testing.assert_array_equal(obs[mover]["observations"], ref["observation"])
            np.testing.assert_array_equal(obs[mover]["action_mask"], ref["action_mask"])
            assert rl.observation_spaces[mover].contains(obs[mover])
            legal = np.flatnonzero(obs[mover]["action_mask"]).tolist()
            assert legal == aec.unwrapped.game.legal_actions()
            game = aec.unwrapped.game
            action = heuristic(game, game.current) if game.rules.auction and mover != "player_0" else rng.choice(legal)
            aec.step(action)
            obs, rewards, terminated, truncated, _ = rl.step({mover: action})
            steps += 1
            assert set(rewards) == set(aec.possible_agents) and not truncated["__all__"]
            if terminated["__all__"]:
                break
            assert all(r == 0.0 for r in rewards.values())  # match reward: nothing before the end
        assert all(aec.terminations.values())
        assert rewards == {a: float(aec.rewards[a]) for a in aec.possible_agents}
        assert sorted(set(rewards.values()))[-1] == 1.0 and math.isclose(sum(rewards.values()), 0.0, abs_tol=1e-9)
        # docs/rules.md section 8: "the losing sides share -1 (-1 each with two sides, -1/2 with three, -1/3 with
        # four)" (and section 6 alike for All Fours' presets)
        assert sorted(set(rewards.values()))[0] == -1.0 / (aec.unwrapped.rules.sides - 1)
        # Every seat gets a last observation; nobody has a legal action any more.
        assert set(obs) == set(aec.possible_agents)
        assert all(o["action_mask"].sum() == 0 for o in obs.values())
        assert rl.illegal_actions == 0 and steps > 10


def test_the_spaces_take_the_auction_and_the_set_back_scores():
    obs_space, act_space = rllib_spaces()
    assert act_space.n == 63 and obs_space["action_mask"].shape == (63,)
    assert np.array_equal(obs_space["observations"].low, OBS_LOW) and OBS_LOW.min() == -1.0
    assert AllFoursRLlibEnv({"preset": "pitch"}).max_moves == AUCTION_MAX_MOVES
    assert AllFoursRLlibEnv({"preset": "seven_up"}).max_moves is None


def play_to_the_end(rl: AllFoursRLlibEnv, seed: int, episode: MultiAgentEpisode | None = None, aec=None):
    """Heuristic play (the lowest legal action where the heuristic has no say) through the RLlib env, and through
    ``aec`` (``env()``, the same deal) beside it -> the last step's (obs, rewards, terminateds, truncateds, infos)
    and the number of steps."""
    heuristic = HeuristicAgent()
    obs, infos = rl.reset(seed=seed)
    if aec is not None:
        aec.reset(seed=seed)
    if episode is not None:
        episode.add_env_reset(observations=obs, infos=infos)
    for step in range(1, 100_000):
        mover = next(iter(obs))
        game = rl.aec.game
        action = heuristic(game, game.current)
        assert obs[mover]["action_mask"][action] == 1.0
        out = rl.step({mover: action})
        if aec is not None:
            aec.step(action)
            assert out[1] == {a: float(aec.rewards[a]) for a in aec.possible_agents}
            assert all(aec.truncations.values()) == out[3]["__all__"]
            assert all(aec.terminations.values()) == out[2]["__all__"]
        obs = out[0]
        if episode is not None:
            episode.add_env_step(obs, {mover: action}, out[1], out[4], terminateds=out[2], truncateds=out[3])
        if out[2]["__all__"] or out[3]["__all__"]:
            return out, step
    raise AssertionError("the match did not end")


@pytest.mark.parametrize("preset,options", [*AUCTION_CASES, ("seven_up", {})])
def test_a_match_is_cut_at_max_moves(preset, options):
    # as env(preset, max_moves=40): at the 40th move every seat is truncated (not terminated), the step's rewards
    # are env()'s (nothing for the undecided match), and every seat gets a last observation with no legal action;
    # RLlib's own episode bookkeeping takes it as a truncated episode
    rl = AllFoursRLlibEnv({"preset": preset, "options": options, "max_moves": 40})
    spaces = rl.observation_spaces
    episode = MultiAgentEpisode(observation_space=spaces, action_space=rl.action_spaces,
                                agent_to_module_mapping_fn=policy_mapping_fn)
    (obs, rewards, terminated, truncated, infos), steps = play_to_the_end(
        rl, 2, episode, env(preset, max_moves=40, **options))
    assert steps == 40 and rl.aec.moves == 40 and not rl.aec.game.done
    assert truncated == {"__all__": True} and terminated == {"__all__": False}
    assert set(rewards.values()) == {0.0}  # match reward: the match was not decided
    assert set(obs) == set(rl.possible_agents) and all(o["action_mask"].sum() == 0 for o in obs.values())
    assert all(spaces[a].contains(o) for a, o in obs.items())
    assert episode.is_done and episode.is_truncated and not episode.is_terminated
    assert set(episode.agent_episodes) == set(rl.possible_agents)
    assert all(e.is_truncated and not e.is_terminated for e in episode.agent_episodes.values())  # to bootstrap
    logger = MetricsLogger()
    AllFoursCallback().on_episode_end(episode=episode, metrics_logger=logger, env_index=0)
    assert logger.peek(ILLEGAL_METRIC) == 0
    # without the cut the same match goes on, and ends
    (_, rewards, terminated, truncated, _), steps = play_to_the_end(AllFoursRLlibEnv({"preset": preset,
                                                                                      "options": options}), 2)
    assert steps > 40 and terminated["__all__"] and not truncated["__all__"] and max(rewards.values()) == 1.0


@pytest.mark.parametrize("config,match", [
    ({"preset": "pitch", "max_moves": 0}, r"^max_moves must be None or an int of at least 1, got 0$"),
    ({"preset": "setback", "max_moves": 2.5}, r"^max_moves must be None or an int of at least 1, got 2.5$"),
    ({"preset": "seven_up", "max_moves": True}, r"^max_moves must be None or an int of at least 1, got True$"),
    ({"preset": "pitch", "options": {"max_moves": 40}}, r"^max_moves is a key of the config, not of its options$"),
])
def test_a_bad_max_moves_is_one_value_error(config, match):
    with pytest.raises(ValueError, match=match):
        AllFoursRLlibEnv(config)


def test_illegal_action_is_counted_and_ends_the_match():
    rl = AllFoursRLlibEnv({"preset": "seven_up"})
    obs, _ = rl.reset(seed=3)
    mover = next(iter(obs))
    # Play legally for a while so both seats have acted, then break the rules.
    for _ in range(6):
        action = int(np.flatnonzero(obs[mover]["action_mask"])[0])
        obs, *_ = rl.step({mover: action})
        mover = next(iter(obs))
    bad = int(np.flatnonzero(obs[mover]["action_mask"] == 0)[0])
    obs, rewards, terminated, _, infos = rl.step({mover: bad})
    assert terminated["__all__"] and rl.illegal_actions == 1
    assert rewards == {a: (-1.0 if a == mover else 0.0) for a in rl.possible_agents}
    assert all(info[ILLEGAL_INFO] == mover for info in infos.values())

    strict = AllFoursRLlibEnv({"preset": "seven_up", "illegal": "raise"})
    obs, _ = strict.reset(seed=3)
    mover = next(iter(obs))
    with pytest.raises(IllegalActionError):
        strict.step({mover: int(np.flatnonzero(obs[mover]["action_mask"] == 0)[0])})


def test_callback_counts_illegal_actions_from_an_rllib_episode():
    """The env's steps go through RLlib's own episode bookkeeping, and the callback sees the illegal action."""

    def episode_with(illegal: bool) -> MultiAgentEpisode:
        rl = AllFoursRLlibEnv({"preset": "seven_up"})
        episode = MultiAgentEpisode(observation_space=rl.observation_spaces, action_space=rl.action_spaces,
                                    agent_to_module_mapping_fn=policy_mapping_fn)
        obs, infos = rl.reset(seed=5)
        episode.add_env_reset(observations=obs, infos=infos)
        for t in range(1000):
            mover = next(iter(obs))
            mask = obs[mover]["action_mask"]
            action = int(np.flatnonzero(mask == 0 if illegal and t == 9 else mask)[0])
            obs, rewards, terminated, truncated, infos = rl.step({mover: action})
            episode.add_env_step(obs, {mover: action}, rewards, infos, terminateds=terminated, truncateds=truncated)
            if terminated["__all__"]:
                return episode
        raise AssertionError("the match did not end")

    callback = AllFoursCallback()
    for illegal in (False, True):
        logger = MetricsLogger()
        episode = episode_with(illegal)
        assert episode.is_done
        callback.on_episode_end(episode=episode, metrics_logger=logger, env_index=0)
        assert logger.peek(ILLEGAL_METRIC) == int(illegal)


def test_example_trains_ppo_without_illegal_actions(ray_session):
    example = load_example()
    lines = []
    out = example.train("seven_up", {}, iterations=3, eval_matches=6, log=lines.append, num_env_runners=0,
                        train_batch_size=256, minibatch_size=128, num_epochs=1, hidden=(64,), seed=0, eval_every=2)
    its = out["iterations"]
    assert [s["iteration"] for s in its] == [1, 2, 3]
    assert 0 < its[0]["env_steps"] < its[1]["env_steps"] < its[2]["env_steps"]
    assert its[-1]["episodes"] > 0
    assert all(s["illegal"] == 0 for s in its)  # None would mean the counter never ran
    assert all(math.isfinite(s["loss"]) for s in its)
    # The callback evaluates every second iteration only.
    assert "winrate_vs_heuristic" not in its[0] and "winrate_vs_heuristic" not in its[2]
    measured = its[1]
    assert 0.0 <= measured["ci_low"] <= measured["winrate_vs_heuristic"] <= measured["ci_high"] <= 1.0
    assert measured["matches"] == 6
    assert 0.0 <= out["final"]["win_rate"] <= 1.0 and out["final"]["matches"] == 6
    assert len(lines) == 4 and "win rate vs heuristic" in lines[1] and lines[-1].startswith("final:")


def test_ppo_trains_on_pitch_with_cut_matches(ray_session):
    # RLlib's own env runner and learner on Auction Pitch, every match cut at 30 moves (truncated episodes,
    # bootstrapped from their last observations)
    example = load_example()
    config = example.build_config("pitch", {"players": 3}, num_env_runners=0, train_batch_size=256,
                                  minibatch_size=128, num_epochs=1, hidden=(32,), seed=0, eval_every=0)
    config.environment(env_config={**config.env_config, "max_moves": 30})
    algo = config.build_algo()
    try:
        s = example.summary(algo.train())
    finally:
        algo.stop()
    assert s["env_steps"] >= 256 and s["episodes"] >= 256 // 30 and s["illegal"] == 0 and math.isfinite(s["loss"])


def build_module(seed: int = 0):
    torch.manual_seed(seed)
    obs_space, act_space = rllib_spaces()
    return RLModuleSpec(module_class=ActionMaskingTorchRLModule, observation_space=obs_space, action_space=act_space,
                        model_config={"fcnet_hiddens": [32], "head_fcnet_hiddens": []}).build()


def test_module_agent_plays_only_legal_actions():
    agent = rllib_agent(build_module())
    # Agent.__call__ raises AgentError on an illegal action; the whole match must go through.
    r = evaluate_agent(agent, "heuristic", preset="seven_up", matches=4, seed=1)
    assert r["matches"] == 4 and 0.0 <= r["win_rate"] <= 1.0
    # the callback's evaluation in the auction presets: the module bids and plays, legal throughout
    for preset, options, matches in (("pitch", {"players": 3}, 3), ("setback", {}, 2)):
        r = evaluate_vs(build_module(), preset, options, matches, seed=1)
        assert r["matches"] == matches and 0.0 <= r["ci_low"] <= r["win_rate"] <= r["ci_high"] <= 1.0

    # On random states: legal, and the best legal action of the module's logits.
    rng = random.Random(0)
    for game in range(3):
        state = GameState.new("traditional", seed=game)
        while not state.done:
            seat = state.current_player
            action = agent(state, seat)
            legal = state.legal_actions()
            assert action in legal
            logits = agent.logits(state, seat)
            assert float(logits[action]) == max(float(logits[a]) for a in legal)
            state.apply(rng.choice(legal))


def test_module_agent_does_not_trust_the_module_mask():
    class Favours(torch.nn.Module):
        """A module that puts its highest logit on an illegal action."""

        def forward_inference(self, batch):
            mask = batch["obs"]["action_mask"]
            logits = 10.0 * (1.0 - mask) + torch.arange(mask.shape[-1], dtype=torch.float32) * 1e-3
            return {"action_dist_inputs": logits}

    agent = RLModuleAgent(Favours())
    state = GameState.new("seven_up", seed=0)
    while not state.done:
        legal = state.legal_actions()
        action = agent(state, state.current_player)
        assert action == max(legal)  # the best legal one, by the tie-breaking ramp
        state.apply(action)
    with pytest.raises(AgentError):
        agent(state, 0)
