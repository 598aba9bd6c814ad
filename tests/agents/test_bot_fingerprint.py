"""Every shipped bot plays the same greedy moves on any CPU, in any batch (docs/protocol.md, "Greedy play").

The averaged policy gives cards that the suit relabellings exchange exactly equal probabilities,
so a plain argmax would fall to float rounding, which changes with the CPU's kernels (AVX2 or
AVX-512), with the batch a row sits in and with the number of views. ``greedy_actions`` ties
legal actions within ``TIE_TOLERANCE`` of the best and plays the lowest id among them. This test
holds each bot to a fingerprint of its moves, recorded once, on the fixed positions of
``data/frozen_references.json`` (the heuristic's matches, with random moves mixed in) and on
positions of random play where the bot's two best moves tie (few positions are so symmetric;
those are found once, when the fingerprint is written, and stored as the actions that reach them):

- one position at a time (``NeuralAgent``), all positions in one batch (``NetworkPlayer``), the
  batch shuffled, split into uneven pieces, and the 24-view static average (the ONNX graph's) all
  give the recorded moves;
- the tied positions are real ties (two legal moves within the tolerance), so the rule is used.

The bots are networks of observation encoding 1 (951 columns, 57 actions) fed today's observations
and masks (997 and 63 columns): they read encoding 1's prefix and play exactly as they did.

Regenerate the fingerprint only when a bot is retrained and shipped, never to absorb a change of
moves on a machine: ``python tests/agents/test_bot_fingerprint.py --write``.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from allfours.agents.network import MASK_VALUE, TIE_TOLERANCE, greedy_actions
from allfours.agents.registry import make_agent
from allfours_env import OBS_SIZE, GameState, encode
from allfours_env.cards import ALL_FOURS_ACTIONS, NUM_ACTIONS
from allfours_env.observation import V1_SIZE

HERE = Path(__file__).resolve().parent
POSITIONS = HERE / "data" / "frozen_references.json"
DATA = HERE / "data" / "bot_fingerprint.json"
# bot -> the case of frozen_references.json it plays (its preset and player count)
BOTS = {"yorkshire": "yorkshire", "seven_up": "seven_up", "traditional": "traditional",
        "traditional_2p": "traditional_2p"}
CASES = {"yorkshire": ("yorkshire", {}), "seven_up": ("seven_up", {}), "traditional": ("traditional", {}),
         "traditional_2p": ("traditional", {"players": 2})}
REGENERATE = "python tests/agents/test_bot_fingerprint.py --write"
TIED = 8  # tied positions a bot's fingerprint holds


def positions(case: str, tied: list[dict] = ()) -> list[GameState]:
    """Every position with a choice in the case's recorded matches, in order, then the ``tied`` ones."""
    preset, options = CASES[case]
    out = []
    for match in json.loads(POSITIONS.read_text())["cases"][case]["matches"]:
        state = GameState.new(preset, seed=match["seed"], **options)
        for action in match["actions"]:
            if len(state.legal_actions()) > 1:
                out.append(state.clone())
            state.apply(action)
    for t in tied:
        state = GameState.new(preset, seed=t["seed"], **options)
        for action in t["actions"]:
            state.apply(action)
        out.append(state)
    return out


def find_ties(agent, case: str, count: int = TIED) -> list[dict]:
    """The first ``count`` seeds' first positions of random play (first hand) where the bot's two best moves tie."""
    preset, options = CASES[case]
    found = []
    for seed in range(100_000):
        rng, state, actions = random.Random(seed), GameState.new(preset, seed=seed, **options), []
        while not state.done and state.hand_no == 0:
            legal = state.legal_actions()
            if len(legal) > 1:
                obs, mask = _batch([state])
                with torch.inference_mode():
                    if ties(agent.net.averaged(obs, mask), mask):
                        found.append({"seed": seed, "actions": actions})
                        break
            actions.append(rng.choice(legal))
            state.apply(actions[-1])
        if len(found) == count:
            return found
    raise RuntimeError(f"fewer than {count} tied positions for {agent.name}")


def _batch(states: list[GameState]) -> tuple[torch.Tensor, torch.Tensor]:
    obs = np.stack([encode(s, s.current) for s in states])
    mask = np.zeros((len(states), NUM_ACTIONS), bool)
    for i, s in enumerate(states):
        mask[i, s.legal_actions()] = True
    return torch.from_numpy(obs), torch.from_numpy(mask)


def _agent(bot: str):
    preset, options = CASES[BOTS[bot]]
    return make_agent(f"bot:{bot}", preset=preset, players=options.get("players"))


def ties(logits: torch.Tensor, mask: torch.Tensor) -> int:
    """Rows whose two best legal actions are within the tolerance of each other."""
    top = logits.masked_fill(~mask, MASK_VALUE).topk(2, dim=1).values
    return int(((top[:, 0] - top[:, 1]) <= TIE_TOLERANCE).sum())


def fingerprint() -> dict:
    out = {}
    for bot, case in BOTS.items():
        agent = _agent(bot)
        tied = find_ties(agent, case)
        states = positions(case, tied)
        obs, mask = _batch(states)
        with torch.inference_mode():
            logits = agent.net.averaged(obs, mask)
        out[bot] = {"case": case, "ties": ties(logits, mask), "tied": tied,
                    "moves": [agent.act(s, s.current) for s in states]}
    return out


@pytest.fixture(scope="module")
def recorded() -> dict:
    return json.loads(DATA.read_text())


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.slow
def test_bot_moves_are_its_fingerprint_in_every_batch(bot, recorded):
    from allfours.agents.players.batched import NetworkPlayer
    agent, states = _agent(bot), positions(BOTS[bot], recorded[bot]["tied"])
    want = recorded[bot]["moves"]
    assert len(states) == len(want) > 100, f"the positions changed: regenerate ({REGENERATE})"
    alone = [agent.act(s, s.current) for s in states]
    changed = [i for i, (a, b) in enumerate(zip(alone, want)) if a != b]
    assert not changed, (f"bot:{bot} plays differently at {len(changed)} of {len(want)} fingerprinted positions "
                         f"(first: {changed[:5]}); if it was retrained and shipped, regenerate: {REGENERATE}")
    obs, mask = _batch(states)
    player = NetworkPlayer(agent)
    rows = np.arange(len(states))
    assert player.actions(None, rows, obs.numpy(), mask.numpy()).tolist() == want
    perm = np.random.default_rng(7).permutation(len(states))
    shuffled = player.actions(None, rows, obs.numpy()[perm], mask.numpy()[perm])
    assert shuffled.tolist() == [want[i] for i in perm]
    cuts = [0, 1, 8, 9, 40, 107, len(states)]
    pieces = [player.actions(None, rows[a:b], obs.numpy()[a:b], mask.numpy()[a:b]) for a, b in zip(cuts, cuts[1:])]
    assert np.concatenate(pieces).tolist() == want
    with torch.inference_mode():
        static = agent.net.averaged(obs, mask, static=True)  # 24 views a row, as the ONNX graph
        eager = agent.net.averaged(obs, mask)
    assert greedy_actions(static, mask).tolist() == want
    assert ties(eager, mask) == recorded[bot]["ties"]


@pytest.mark.parametrize("bot", BOTS)
def test_a_bot_reads_the_encoding_1_prefix_of_todays_observation(bot, recorded):
    """A shipped bot is still the network it was trained as (951 columns in, 57 actions out); on today's
    observation and mask it gives what it gives on their encoding-1 prefix, its outputs padded to every
    action id with the masked value (probability 0 for ids 57..62)."""
    agent = _agent(bot)
    net = agent.net
    assert (net.obs_size, net.num_actions, net.encoding_version) == (V1_SIZE, ALL_FOURS_ACTIONS, 1)
    states = positions(BOTS[bot], recorded[bot]["tied"])[::7]
    obs, mask = _batch(states)
    assert obs.shape[1] == OBS_SIZE > V1_SIZE and mask.shape[1] == NUM_ACTIONS > ALL_FOURS_ACTIONS
    assert not obs[:, V1_SIZE:].any() and not mask[:, ALL_FOURS_ACTIONS:].any()  # All Fours: the new columns are 0
    old_obs, old_mask = obs[:, :V1_SIZE].contiguous(), mask[:, :ALL_FOURS_ACTIONS].contiguous()
    with torch.inference_mode():
        for run in (lambda o, m: net(o, m)[0], lambda o, m: net(o, m)[1], net.averaged,
                    lambda o, m: net.averaged(o, m, static=True)):
            new, old = run(obs, mask), run(old_obs, old_mask)
            head = new[:, :ALL_FOURS_ACTIONS] if new.dim() == 2 else new
            assert head.shape == old.shape and torch.allclose(head, old, atol=1e-5, rtol=0)
            if new.dim() == 2:  # logits or log-probabilities: today's width, the new ids masked
                assert new.shape == (len(states), NUM_ACTIONS)
                assert (new[:, ALL_FOURS_ACTIONS:] == MASK_VALUE).all()
                probs = torch.softmax(new, 1)
                assert (probs[:, ALL_FOURS_ACTIONS:] == 0).all() and (probs[~mask] == 0).all()
                assert greedy_actions(new, mask).tolist() == greedy_actions(old, old_mask).tolist()
        actions, logp, _ = net.act(obs, mask, greedy=True)
        assert actions.tolist() == greedy_actions(net(obs, mask)[0], mask).tolist()
        assert (actions < ALL_FOURS_ACTIONS).all() and torch.isfinite(logp).all()


def test_an_old_network_refuses_what_it_cannot_read():
    """Only encoding 1's prefix is read: another width, or a legal action its head lacks (a bid), is one clear error."""
    net = _agent("seven_up").net
    state = GameState.new("seven_up", seed=0)
    obs, mask = _batch([state])
    with pytest.raises(ValueError, match=f"observations of 960 columns for a network that reads {V1_SIZE}"):
        net(torch.zeros(1, 960), mask)
    with pytest.raises(ValueError, match="an action mask of 60 columns for a network of 57 actions"):
        net(obs, torch.ones(1, 60, dtype=torch.bool))
    bid = mask.clone()
    bid[0, 58] = True
    for run in (lambda: net(obs, bid), lambda: net.averaged(obs, bid)):
        with pytest.raises(ValueError, match=r"^a network of All Fours' 57 actions \(encoding version 1\) cannot "
                                             r"choose BID_1, legal here: it plays the All Fours presets only$"):
            run()


def test_the_fingerprints_hold_real_ties(recorded):
    """Without ties in the positions the test above could not catch an argmax that rounding decides."""
    assert all(recorded[bot]["ties"] >= TIED for bot in BOTS), {b: recorded[b]["ties"] for b in BOTS}


def test_greedy_actions_tie_rule():
    mask = torch.tensor([[True, True, True, False], [False, True, True, True], [True, True, False, True]])
    logits = torch.tensor([[-1.0, -0.5, -0.5 + TIE_TOLERANCE / 2, 9.0],  # illegal 9.0 never wins; near-tie
                           [0.0, -2.0, -1.0, -1.0 - TIE_TOLERANCE / 10],   # id 0 illegal; ties 2 and 3 -> 2
                           [-3.0, -3.0 + 2 * TIE_TOLERANCE, 0.0, -3.0]])   # beyond the tolerance: the best
    assert greedy_actions(logits, mask).tolist() == [1, 2, 1]
    # a constant shift of a row (logits or log-probabilities) changes nothing
    assert greedy_actions(torch.log_softmax(logits.masked_fill(~mask, MASK_VALUE), 1), mask).tolist() == [1, 2, 1]


def test_search_best_action_ties_within_its_tolerance():
    from allfours.agents.players.search import VALUE_TOLERANCE, best_action
    assert best_action({30: 0.5, 17: 0.5 - VALUE_TOLERANCE / 4, 40: 0.1}) == 17
    assert best_action({30: 0.5, 17: 0.5 - 4 * VALUE_TOLERANCE}) == 30


def write() -> None:
    data = fingerprint()
    lines = ["{"] + [f'  "{bot}": {json.dumps(v)},' for bot, v in data.items()]
    lines[-1] = lines[-1].rstrip(",")
    DATA.write_text("\n".join(lines + ["}"]) + "\n")


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit(f"usage: python {sys.argv[0]} --write   (rewrites {DATA.name}; see the module doc first)")
    write()
    print(f"wrote {DATA}: " + ", ".join(f"{b} {len(v['moves'])} moves, {v['ties']} ties" for b, v in
                                        json.loads(DATA.read_text()).items()))
