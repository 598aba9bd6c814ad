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

The All Fours bots are networks of observation encoding 1 (951 columns, 57 actions) fed today's
observations and masks (997 and 63 columns): they read encoding 1's prefix and play exactly as they
did. The auction bots (pitch, pitch_3p, pitch_4p, pitch_partners, setback) are of encoding 2: they are fed the
997 columns and 63 actions natively.

Record a bot's fingerprint only when it is retrained and shipped (or first added to ``BOTS``), never
to absorb a change of moves on a machine, and that bot's alone (the others' lines stay as they are):

    python tests/agents/test_bot_fingerprint.py --write --bots pitch_4p      (one or more, comma-separated)
    python tests/agents/test_bot_fingerprint.py --write --add                (every bot of BOTS not recorded)

``--write`` alone records every bot again.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

import numpy as np
import pytest
import torch

from allfours.agents.network import MASK_VALUE, TIE_TOLERANCE, greedy_actions
from allfours.agents.registry import make_agent
from allfours_env import OBS_SIZE, GameState, encode
from allfours_env.cards import ALL_FOURS_ACTIONS, NUM_ACTIONS
from allfours_env.observation import ENCODING_VERSION, V1_SIZE
from allfours_env.rules import ALL_PRESETS

HERE = Path(__file__).resolve().parent
POSITIONS = HERE / "data" / "frozen_references.json"
DATA = HERE / "data" / "bot_fingerprint.json"
# bot -> the case of frozen_references.json it plays (its preset and player count). A new bot is one line here,
# then: python tests/agents/test_bot_fingerprint.py --write --bots <bot>
BOTS = {"yorkshire": "yorkshire", "seven_up": "seven_up", "traditional": "traditional",
        "traditional_2p": "traditional_2p",
        "pitch": "pitch",
        "pitch_3p": "pitch_3p", "pitch_4p": "pitch_4p", "pitch_partners": "pitch_partners",
        "setback": "setback"}
# the cases of frozen_references.json (as test_frozen_references.CASES): name -> (preset, options)
CASES = {"yorkshire": ("yorkshire", {}), "seven_up": ("seven_up", {}), "traditional": ("traditional", {}),
         "traditional_2p": ("traditional", {"players": 2}), "traditional_3p": ("traditional", {"players": 3}),
         "pitch": ("pitch", {"players": 2}), "pitch_3p": ("pitch", {"players": 3}), "pitch_4p": ("pitch", {}),
         "pitch_partners": ("pitch", {"partnerships": True}), "setback": ("setback", {})}
AUCTION = [bot for bot in BOTS if ALL_PRESETS[CASES[BOTS[bot]][0]].auction]  # encoding 2: bids in their head
REGENERATE = "python tests/agents/test_bot_fingerprint.py --write --bots {bot}"
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


def fingerprint(bots: list[str] | None = None) -> dict:
    """The fingerprint of ``bots`` (every one of ``BOTS`` unless given)."""
    out = {}
    for bot in BOTS if bots is None else bots:
        case, agent = BOTS[bot], _agent(bot)
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
    data = json.loads(DATA.read_text())
    missing = [bot for bot in BOTS if bot not in data]
    assert not missing, f"{DATA.name} has no fingerprint of {missing}: " + REGENERATE.format(bot=",".join(missing))
    return data


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.slow
def test_bot_moves_are_its_fingerprint_in_every_batch(bot, recorded):
    from allfours.agents.players.batched import NetworkPlayer
    agent, states = _agent(bot), positions(BOTS[bot], recorded[bot]["tied"])
    want = recorded[bot]["moves"]
    assert len(states) == len(want) > 100, f"the positions changed: regenerate ({REGENERATE.format(bot=bot)})"
    alone = [agent.act(s, s.current) for s in states]
    changed = [i for i, (a, b) in enumerate(zip(alone, want)) if a != b]
    assert not changed, (f"bot:{bot} plays differently at {len(changed)} of {len(want)} fingerprinted positions "
                         f"(first: {changed[:5]}); if it was retrained and shipped, record it: "
                         + REGENERATE.format(bot=bot))
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


@pytest.mark.parametrize("bot", [bot for bot in BOTS if bot not in AUCTION])
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


@pytest.mark.parametrize("bot", AUCTION)
def test_an_auction_bot_reads_todays_observation_natively(bot, recorded):
    """An auction bot is a network of encoding 2 (997 columns in, 63 actions out): nothing is cut or padded, its
    fingerprint holds bids and pitches it chose, and encoding 1's prefix alone is refused."""
    agent = _agent(bot)
    net = agent.net
    assert (net.obs_size, net.num_actions, net.encoding_version) == (OBS_SIZE, NUM_ACTIONS, ENCODING_VERSION) != (
        V1_SIZE, ALL_FOURS_ACTIONS, 1)
    assert any(move >= ALL_FOURS_ACTIONS for move in recorded[bot]["moves"])  # a call of the auction
    states = positions(BOTS[bot], recorded[bot]["tied"])[::7]
    obs, mask = _batch(states)
    assert mask[:, ALL_FOURS_ACTIONS:].any()
    with torch.inference_mode():
        logits = net(obs, mask)[0]
        assert logits.shape == (len(states), NUM_ACTIONS)
        assert (torch.softmax(logits, 1)[~mask] == 0).all()
        assert greedy_actions(net.averaged(obs, mask), mask).tolist() == [agent.act(s, s.current) for s in states]
        with pytest.raises(ValueError, match=f"observations of {V1_SIZE} columns for a network that reads {OBS_SIZE}"):
            net(obs[:, :V1_SIZE].contiguous(), mask)


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
    assert all(recorded[bot]["case"] == case for bot, case in BOTS.items())


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


def _text(data: dict) -> str:
    lines = ["{"] + [f'  "{bot}": {json.dumps(v)},' for bot, v in data.items()]
    lines[-1] = lines[-1].rstrip(",")
    return "\n".join(lines + ["}"]) + "\n"


def write(bots: list[str] | None = None, add: bool = False, path: Path = DATA) -> list[str]:
    """Record the fingerprint of every bot, or of ``bots`` only, or with ``add`` of the bots ``path`` lacks, the
    other bots' lines kept exactly. The bots recorded."""
    unknown = [bot for bot in bots or () if bot not in BOTS]
    if unknown:
        raise ValueError(f"unknown bot {unknown[0]!r}: choose among {', '.join(BOTS)} (BOTS)")
    if bots is None and not add:
        data, bots = {}, list(BOTS)
    else:
        data = json.loads(path.read_text())
        if _text(data) != path.read_text():
            raise ValueError(f"{path.name} is not in this writer's format: record every bot again (--write)")
        bots = [bot for bot in BOTS if bot not in data] if bots is None else bots
    kept = {bot: v for bot, v in data.items() if bot not in bots}
    data.update(fingerprint(bots))
    text = _text(data)
    assert all(f'\n  "{bot}": {json.dumps(v)}' in text for bot, v in kept.items())  # the others' lines, unchanged
    path.write_text(text)
    return bots


def test_recording_one_bot_keeps_the_others_lines(tmp_path, monkeypatch):
    """``--write --bots B`` rewrites B's line alone, in its place; ``--add`` records only the bots the file lacks."""
    monkeypatch.setitem(globals(), "fingerprint", lambda bots: {b: {"case": BOTS[b], "again": True} for b in bots})
    text = DATA.read_text()
    path = tmp_path / DATA.name
    path.write_text(text)
    bot = list(BOTS)[1]
    assert write([bot], path=path) == [bot]
    again = f'  "{bot}": {{"case": "{BOTS[bot]}", "again": true}},'
    assert path.read_text().splitlines() == [again if line.startswith(f'  "{bot}": ') else line
                                             for line in text.splitlines()]
    data = json.loads(text)
    last = data.pop(list(data)[-1])["case"]
    path.write_text(_text(data))
    assert write(add=True, path=path) == [last] and write(add=True, path=path) == []
    assert path.read_text() == text.rsplit("\n  ", 1)[0] + f'\n  "{last}": {{"case": "{last}", "again": true}}\n}}\n'
    with pytest.raises(ValueError, match="unknown bot 'nope'"):
        write(["nope"], path=path)
    path.write_text(text.replace(": ", ":"))
    with pytest.raises(ValueError, match="not in this writer's format"):
        write([bot], path=path)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=f"Record bots' fingerprints in {DATA.name} (see the module doc).")
    parser.add_argument("--write", action="store_true", required=True, help="record (every bot unless narrowed)")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--bots", type=lambda text: [bot for bot in text.split(",") if bot],
                       help="only these bots, comma-separated (a retrained or new one)")
    which.add_argument("--add", action="store_true", help="only the bots of BOTS the file lacks")
    args = parser.parse_args()
    try:
        written = write(bots=args.bots, add=args.add)
    except ValueError as e:
        parser.error(str(e))
    data = json.loads(DATA.read_text())
    print(f"wrote {DATA}: " + (", ".join(f"{b} {len(data[b]['moves'])} moves, {data[b]['ties']} ties"
                                         for b in written) or "no bot to record"))
