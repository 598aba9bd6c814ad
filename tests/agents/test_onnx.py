"""ONNX export: onnxruntime against PyTorch on the model card's golden vectors. One contract for every
network (observation [batch, 997], mask and outputs [batch, 63]): today's, and one of encoding 1 (951
columns, 57 actions, as the shipped bots) inside it."""

from __future__ import annotations

import json

import numpy as np
import pytest

ort = pytest.importorskip("onnxruntime")
onnx = pytest.importorskip("onnx")
torch = pytest.importorskip("torch")

from allfours.cli import main as cli  # noqa: E402
from allfours_env import OBS_SIZE, encode, make_rules  # noqa: E402
from allfours_env.cards import ALL_FOURS_ACTIONS, NUM_ACTIONS  # noqa: E402
from allfours_env.observation import V1_SIZE  # noqa: E402
from allfours_env.replay import state_from_request  # noqa: E402


def _export(d, obs_size: int, num_actions: int, canonical: bool = False):
    from allfours.agents.network import PolicyNet
    from allfours.agents.network.checkpoint import atomic_save, metadata
    torch.manual_seed(1)
    net = PolicyNet(obs_size, num_actions, (64, 32), canonical=canonical)
    ck = d / "trad.pt"
    atomic_save({**metadata(net.arch()), "arch": net.arch(), "model": net.state_dict(), "preset": "traditional",
                 "rules": make_rules("traditional", players=2).to_dict(), "progress": {"steps": 123}}, ck)
    out = d / "bot.onnx"
    assert cli(["export", str(ck), "-o", str(out), "--vectors", "12", "--seed", "3"]) == 0
    card = json.loads((d / "bot.card.json").read_text())
    return ck, out, card


@pytest.fixture(scope="module", params=["new", "old"])
def exported(request, tmp_path_factory):
    """A network of today's encoding, and one of encoding 1 (suit-canonical, as the shipped bots)."""
    d = tmp_path_factory.mktemp("onnx")
    if request.param == "new":
        return _export(d, OBS_SIZE, NUM_ACTIONS)
    return _export(d, V1_SIZE, ALL_FOURS_ACTIONS, canonical=True)


def test_card_describes_the_policy(exported):
    ck, out, card = exported
    assert card["format"] == "allfours-onnx-policy" and card["encoding_version"] == 2
    assert card["obs_size"] == OBS_SIZE == 997 and card["num_actions"] == NUM_ACTIONS == 63
    assert card["inputs"]["observation"]["shape"] == ["batch", 997]
    assert card["inputs"]["action_mask"]["shape"] == card["outputs"]["logits"]["shape"] == ["batch", 63]
    assert card["action_ids"][:2] == ["2C", "3C"] and card["action_ids"][51:] == [
        "AS", "STAND", "BEG", "GIVE_ONE", "RUN_PACK", "THROW_IN", "PASS", "BID_1", "BID_2", "BID_3", "BID_4", "SMUDGE"]
    network = card["network"]
    if card["architecture"]["obs_size"] == V1_SIZE:  # the network inside the contract says what it reads
        assert (network["encoding_version"], network["obs_size"], network["num_actions"]) == (1, 951, 57)
        assert "first 951 columns" in network["reads"] and "57..62 get probability 0" in network["reads"]
    else:
        assert (network["encoding_version"], network["obs_size"], network["num_actions"]) == (2, 997, 63)
    assert card["preset"] == "traditional" and card["rules"]["players"] == 2
    assert card["training"]["steps"] == 123 and card["views"]["hand"] == [0, [52]]
    assert card["symmetrized"] is True  # the graph averages over the suit relabellings, as the agent plays
    assert len(card["golden"]) == 12
    phases = {g["view"]["phase"] for g in card["golden"]}
    assert "play" in phases and phases & {"stand_or_beg", "give_or_run"}
    embedded = {p.key: p.value for p in onnx.load(str(out)).metadata_props}
    assert json.loads(embedded["allfours_model_card"])["action_ids"] == card["action_ids"]


def test_onnxruntime_matches_pytorch_on_golden_vectors(exported):
    from allfours.agents.players.neural import load_agent
    ck, out, card = exported
    sess = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"])
    assert [i.name for i in sess.get_inputs()] == ["observation", "action_mask"]
    obs = np.array([g["observation"] for g in card["golden"]], np.float32)
    mask = np.array([g["action_mask"] for g in card["golden"]], np.float32)
    want = np.array([g["probabilities"] for g in card["golden"]], np.float32)
    assert [o.name for o in sess.get_outputs()] == ["probabilities", "logits", "action"]
    assert obs.shape[1] == 997 and mask.shape[1] == 63
    assert [i.shape[1] for i in sess.get_inputs()] == [997, 63]
    probs, logits, action = sess.run(None, {"observation": obs, "action_mask": mask})
    assert probs.shape == logits.shape == (len(obs), 63)
    assert np.abs(probs - want).max() < 1e-5
    assert action.tolist() == [g["action"] for g in card["golden"]]
    assert np.all(probs[mask == 0] == 0) and np.allclose(probs.sum(1), 1, atol=1e-5)
    # batch of one works too (dynamic batch axis)
    one = sess.run(["probabilities"], {"observation": obs[:1], "action_mask": mask[:1]})[0]
    assert np.abs(one - want[:1]).max() < 1e-5
    # and PyTorch itself, from the checkpoint, through the agent, on the states the views describe
    agent = load_agent(ck)
    for g, p in zip(card["golden"], probs):
        state, seat = state_from_request(g["view"])
        assert np.array_equal(encode(state, seat), np.array(g["observation"], np.float32))  # the encoder check
        for a, q in agent.policy(state, seat).items():
            assert abs(q - p[a]) < 1e-5
        assert agent.act(state, seat) == g["action"]  # the graph's greedy move is the agent's, tie rule and all


def test_export_refuses_what_is_not_a_network(tmp_path, capsys):
    assert cli(["export", "heuristic", "-o", str(tmp_path / "h.onnx")]) == 2
    assert "only trained neural bots can be exported" in capsys.readouterr().err
    assert cli(["export", str(tmp_path / "missing.pt"), "-o", str(tmp_path / "m.onnx")]) == 2


def test_golden_probabilities_are_the_agents_averaged_policy(exported):
    """The exported policy is what ``allfours eval`` plays: the averaged one, not the raw network."""
    from allfours.agents.players.neural import load_agent
    ck, _out, card = exported
    avg, raw = load_agent(ck), load_agent(ck, symmetrize=False)
    differs = 0
    for g in card["golden"]:
        obs = torch.tensor([g["observation"]], dtype=torch.float32)
        mask = torch.tensor([g["action_mask"]], dtype=torch.bool)
        with torch.inference_mode():
            want = torch.softmax(avg.net.averaged(obs, mask), -1)[0]
            plain = torch.softmax(raw.net(obs, mask, value=False)[0], -1)[0]
        assert np.allclose(g["probabilities"], want.numpy(), atol=1e-6)
        differs += not np.allclose(g["probabilities"], plain.numpy(), atol=1e-4)
    assert differs > 0


def first_hands(preset: str, players: int, games: int, seed: int):
    """(states, observations, masks) of every position with a choice in the first hand of ``games`` deals of
    ``preset``, played at random (``seed``)."""
    from allfours_env import GameState
    rng = np.random.default_rng(seed)
    states = []
    for deal in range(games):
        s = GameState.new(preset, seed=deal, players=players)
        while not s.done and s.hand_no == 0:
            if len(s.legal_actions()) > 1:
                states.append(s.clone())
            s.apply(int(rng.choice(s.legal_actions())))
    obs = np.stack([encode(s, s.current) for s in states])
    mask = np.zeros((len(states), NUM_ACTIONS), np.float32)
    for i, s in enumerate(states):
        mask[i, s.legal_actions()] = 1
    return states, obs, mask


def test_an_encoding_1_network_plays_the_same_moves_exported(tmp_path):
    """A network of encoding 1 exported, on today's observations and masks, gives the torch network's
    moves and probabilities on their encoding-1 prefix, and probability 0 to actions 57..62."""
    from allfours.agents.players.neural import load_agent
    ck, out, _card = _export(tmp_path, V1_SIZE, ALL_FOURS_ACTIONS, canonical=True)
    agent = load_agent(ck)
    net = agent.net
    assert (net.obs_size, net.num_actions) == (V1_SIZE, ALL_FOURS_ACTIONS)
    states, obs, mask = first_hands("traditional", 2, games=6, seed=5)
    sess = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"])
    probs, logits, action = sess.run(None, {"observation": obs, "action_mask": mask})
    with torch.inference_mode():
        old_obs, old_mask = torch.from_numpy(obs[:, :V1_SIZE].copy()), torch.from_numpy(mask[:, :57] > 0.5)
        want = torch.softmax(net.averaged(old_obs, old_mask), -1).numpy()  # the network on encoding 1's columns
    assert np.abs(probs[:, :57] - want).max() < 1e-5
    assert (probs[:, 57:] == 0).all() and (logits[:, 57:] == -1e9).all()
    assert action.tolist() == [agent.act(s, s.current) for s in states]


@pytest.mark.slow  # a shipped bot exported, and its 24-view averaged moves on a hand of positions
@pytest.mark.parametrize("bot,preset,players", [("pitch_4p", "pitch", 4), ("pitch_partners", "pitch", 4),
                                                ("setback", "setback", 4)])
def test_an_auction_bot_exports_in_its_own_game_and_plays_its_moves(bot, preset, players, tmp_path):
    """An auction bot (encoding 2) exports from its own checkpoint's game, not yorkshire: the card names its
    preset, players and the auction's calls, its golden vectors come from that game (bids among them), and the
    graph's greedy move is the bot's on positions of that game, auction calls included."""
    from allfours.agents.players.neural import load_bot
    from allfours_env.cards import action_name
    out = tmp_path / f"{bot}.onnx"
    assert cli(["export", f"bot:{bot}", "--preset", preset, "-o", str(out), "--vectors", "8", "--seed", "1"]) == 0
    card = json.loads((tmp_path / f"{bot}.card.json").read_text())
    assert card["preset"] == preset and card["rules"]["players"] == players and card["rules"]["min_bid"] == 2
    assert card["rules"]["partnerships"] is (bot != "pitch_4p")  # the auction's options, as trained
    assert card["network"]["encoding_version"] == 2 and card["network"]["num_actions"] == NUM_ACTIONS
    assert card["action_ids"][57:] == ["PASS", "BID_1", "BID_2", "BID_3", "BID_4", "SMUDGE"]
    views = [g["view"] for g in card["golden"]]
    assert {v["preset"] for v in views} == {preset} and {v["players"] for v in views} == {players}
    assert {"bid", "play"} <= {v["phase"] for v in views}
    agent = load_bot(bot)
    states, obs, mask = first_hands(preset, players, games=4, seed=7)
    sess = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"])
    action = sess.run(["action"], {"observation": obs, "action_mask": mask})[0]
    want = [agent.act(s, s.current) for s in states]
    assert action.tolist() == want
    calls = [action_name(a) for a in want if a >= ALL_FOURS_ACTIONS]
    assert "PASS" in calls and any(c.startswith("BID_") for c in calls)  # the auction's calls, chosen by the graph
