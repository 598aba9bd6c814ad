"""ONNX export of a trained policy, with a model card, so a frontend in any language can run the bot.

    allfours export bot:yorkshire -o yorkshire.onnx          # a shipped bot
    allfours export runs/yorkshire-.../best.pt -o bot.onnx   # any training checkpoint

Writes ``bot.onnx`` and its model card ``bot.card.json`` (also embedded in the ONNX file's
metadata under ``allfours_model_card``, without the test vectors).

The ONNX graph (opset 17, batch axis dynamic), the same contract for every network:

    inputs   observation   float32 [batch, OBS_SIZE (997)]    allfours_env.observation.encode(state, seat)
             action_mask   float32 [batch, NUM_ACTIONS (63)]  1.0 for a legal action, 0.0 otherwise
    outputs  probabilities float32 [batch, 63]  softmax over the legal actions (0 elsewhere)
             logits        float32 [batch, 63]  illegal actions at -1e9
             action        int64   [batch]      the greedy move: the lowest legal action id whose
                                                logit is within TIE_TOLERANCE (1e-4) of the best

A network of observation encoding 2 (the auction bots: bot:pitch, bot:pitch_3p, bot:pitch_4p, bot:pitch_partners,
bot:setback) reads the whole contract. A network of encoding 1 (951 columns, 57 actions: the All Fours bots) is
exported inside that contract: the graph gives it the first 951 columns of the observation (encoding 1's, exactly)
and the first 57 of the mask, and puts -1e9 (probability 0) on actions 57..62 (the auction's, which
it cannot choose: it plays All Fours' presets). The card says which (``network``).

Every row needs at least one legal action. The card holds what a frontend needs to use it:
the observation encoding version and layout (``views``: name -> [start, shape]), the action ids
(index -> card code or decision word), the preset and rules the policy was trained on, and
golden test vectors: for states reached in play, the seat's view (the request format of the
bot server), the observation, the mask, the expected probabilities and the greedy action. A
frontend checks its own encoder against ``observation`` and its ONNX runtime against
``probabilities`` and ``action``.

Only a policy network can be exported (``allfours.agents.players.neural.NeuralAgent``): the scripted and search
bots are code, served by ``allfours serve`` / ``allfours bot`` instead.
"""

from __future__ import annotations

import json
import random
import warnings
from pathlib import Path

import numpy as np
import torch
from torch import nn

from allfours_env import OBS_SIZE, GameState, encode, seat_view
from allfours_env.cards import NUM_ACTIONS
from allfours_env.engine import PLAY

from ..network.model import TIE_TOLERANCE, greedy_actions
from ..network.model_card import model_card, rules_of, symmetrized
from ..players.neural import load_network
from ..registry import make_agent
from ..spec import AgentSpec

OPSET = 17
INPUTS = ("observation", "action_mask")
OUTPUTS = ("probabilities", "logits", "action")


class OnnxPolicy(nn.Module):
    """The exported graph: (observation, float mask) -> (probabilities, masked logits, greedy action).

    With ``symmetrize`` (as the agent plays by default) the graph holds the averaging over suit
    relabellings (``PolicyNet.averaged``) and its logits are those averaged log-probabilities."""

    def __init__(self, net: nn.Module, symmetrize: bool = False):
        super().__init__()
        self.net = net
        self.symmetrize = symmetrize

    def forward(self, observation: torch.Tensor, action_mask: torch.Tensor):
        legal = action_mask > 0.5
        if self.symmetrize:
            logits = self.net.averaged(observation, legal, static=True)
        else:
            logits, _ = self.net(observation, legal, value=False)
        return torch.softmax(logits, dim=-1), logits, greedy_actions(logits, legal)


def load_policy(spec: str | AgentSpec, preset: str | None = None):
    """A neural agent from a spec: ``bot:<name>`` (``:sym=0`` for the raw network), a checkpoint path, or
    anything ``allfours.agents.registry`` knows that has a policy network. A bot or checkpoint is the one named,
    in its own game (its checkpoint's preset and players), whatever ``preset``: the caller compares them."""
    spec = AgentSpec.parse(spec)
    if spec.is_network:  # its game is the checkpoint's, not a default one
        agent = load_network(spec)
        agent.seed(0)
    else:
        agent = make_agent(spec, preset=preset or "yorkshire", seed=0, players=None)
    if not isinstance(getattr(agent, "net", None), nn.Module):
        raise ValueError(f"{spec.label!r} is not a policy network (it is {type(agent).__name__}): only trained neural "
                         "bots can be exported; serve the others with `allfours serve` or `allfours bot`")
    return agent


def golden_states(rules, n: int, seed: int = 0) -> list[tuple[GameState, int]]:
    """``n`` (state, seat to move) pairs from random play of ``rules`` (its preset and players), spread over the
    phases and the hand: a quarter of them decisions before play (turn-up or auction) where the game has any."""
    rng = random.Random(seed)
    decisions, plays = [], []
    g = 0
    while (len(decisions) < n or len(plays) < 4 * n) and g < 200:
        s = GameState.new(rules, seed=seed * 1000 + g)
        g += 1
        while not s.done and s.hand_no < 2:
            (plays if s.phase == PLAY else decisions).append((s.clone(), s.current))
            s.apply(rng.choice(s.legal_actions()))
    n_dec = min(len(decisions), n // 4 if rules.turnup or rules.auction else 0)  # the auction's calls too
    out = rng.sample(decisions, n_dec) + rng.sample(plays, min(len(plays), n - n_dec))
    return out


def golden_vectors(agent, rules, n: int = 16, seed: int = 0) -> list[dict]:
    """Test vectors: the seat's view, observation, mask, the policy's probabilities (from PyTorch) and
    the greedy action."""
    out = []
    net = agent.net.eval()
    wrapper = OnnxPolicy(net, symmetrized(agent)).eval()
    for state, seat in golden_states(rules, n, seed):
        obs = encode(state, seat)
        mask = np.zeros(NUM_ACTIONS, np.float32)
        mask[state.legal_actions()] = 1.0
        with torch.inference_mode():
            probs, _, action = wrapper(torch.from_numpy(obs)[None], torch.from_numpy(mask)[None])
        view = seat_view(state, seat)
        out.append({"view": view, "observation": [float(x) for x in obs], "action_mask": [int(x) for x in mask],
                    "probabilities": [float(x) for x in probs[0]], "action": int(action[0])})
    return out


def export(agent, path: str | Path, *, preset: str | None = None, vectors: int = 16, seed: int = 0,
           dynamo: bool = False) -> dict:
    """Write ``path`` (ONNX) and ``<stem>.card.json``; returns the card (with its golden vectors)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    card = model_card(agent, preset)
    rules = rules_of(agent, preset)
    wrapper = OnnxPolicy(agent.net.eval(), symmetrized(agent)).eval()
    example = (torch.zeros(2, OBS_SIZE), torch.ones(2, NUM_ACTIONS))  # traced: no check of the values
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            batch = torch.export.Dim("batch", min=1, max=1 << 16)
            torch.onnx.export(wrapper, example, str(path), input_names=list(INPUTS), output_names=list(OUTPUTS),
                              dynamo=True, external_data=False, opset_version=18,
                              dynamic_shapes={"observation": {0: batch}, "action_mask": {0: batch}})
        else:
            torch.onnx.export(wrapper, example, str(path), input_names=list(INPUTS), output_names=list(OUTPUTS),
                              dynamo=False, opset_version=OPSET,
                              dynamic_axes={k: {0: "batch"} for k in INPUTS + OUTPUTS})
    _embed_card(path, card)
    card = {**card, "onnx_file": path.name, "opset": 18 if dynamo else OPSET, "tie_tolerance": TIE_TOLERANCE,
            "golden": golden_vectors(agent, rules, vectors, seed)}
    card_path = path.with_name(path.stem + ".card.json")
    card_path.write_text(_card_json(card))
    return card


def _card_json(card: dict) -> str:
    """Readable JSON: the card indented, each golden vector on one line."""
    head = json.dumps({k: v for k, v in card.items() if k != "golden"}, indent=1)
    golden = ",\n  ".join(json.dumps(g, separators=(",", ":")) for g in card.get("golden", []))
    return head[:-2] + f',\n "golden": [\n  {golden}\n ]\n}}\n'


def _embed_card(path: Path, card: dict) -> None:
    try:
        import onnx
    except ImportError:  # the card file is written anyway
        return
    model = onnx.load(str(path))
    entry = model.metadata_props.add()
    entry.key, entry.value = "allfours_model_card", json.dumps(card)
    model.producer_name = "allfours"
    onnx.save(model, str(path))


def check(onnx_path: str | Path, card: dict | None = None, atol: float = 1e-5) -> float:
    """Run the ONNX file on its card's golden vectors with onnxruntime; the largest difference of the
    probabilities (raises if > atol, or if a greedy action differs)."""
    import onnxruntime as ort
    onnx_path = Path(onnx_path)
    if card is None:
        card = json.loads(onnx_path.with_name(onnx_path.stem + ".card.json").read_text())
    sess = ort.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    obs = np.array([g["observation"] for g in card["golden"]], np.float32)
    mask = np.array([g["action_mask"] for g in card["golden"]], np.float32)
    want = np.array([g["probabilities"] for g in card["golden"]], np.float32)
    got, action = sess.run(["probabilities", "action"], {"observation": obs, "action_mask": mask})
    diff = float(np.abs(got - want).max()) if len(want) else 0.0
    if diff > atol:
        raise ValueError(f"{onnx_path}: onnxruntime differs from PyTorch by {diff:.3g} on the golden vectors")
    wrong = [i for i, g in enumerate(card["golden"]) if int(action[i]) != g["action"]]
    if wrong:
        raise ValueError(f"{onnx_path}: onnxruntime's greedy action differs from PyTorch's on golden vectors {wrong}")
    return diff
