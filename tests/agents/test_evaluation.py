"""Duplicate-deal evaluation, the agent registry, the ``allfours eval`` CLI (stopped half way too) and
agent errors."""

from __future__ import annotations

import json
import math
import random
import signal

import numpy as np
import pytest
import torch
from helpers import eval_stopped_half_way

from allfours.agents import evaluation as ev
from allfours.agents.base import Agent, AgentError
from allfours.agents.players import neural
from allfours.agents.players.heuristic import HeuristicAgent
from allfours.agents.players.random_agent import RandomAgent
from allfours.agents.players.search import SearchAgent
from allfours.agents.registry import make_agent
from allfours.agents.spec import AgentSpec
from allfours.cli.eval import main as eval_main
from allfours_env import NUM_ACTIONS, GameState, encode, make_rules


# ---------------------------------------------------------------------------------- registry
def test_specs():
    assert isinstance(make_agent("random"), RandomAgent)
    assert isinstance(make_agent("heuristic"), HeuristicAgent)
    s = make_agent("search:worlds=64,time=0.5")
    assert isinstance(s, SearchAgent) and s.worlds == 64 and s.time == 0.5
    spec = AgentSpec.parse("search:worlds=8, exact=12")
    assert (spec.name, spec.options, str(spec)) == ("search", {"worlds": 8, "exact": 12}, "search:worlds=8,exact=12")


@pytest.mark.parametrize("spec,msg", [("nope", "unknown agent 'nope'.*random.*heuristic.*search"),
                                      ("search:depth=3", "unknown parameter 'depth'.*worlds"),
                                      ("search:worlds=many", "worlds.*int"),
                                      ("search:worlds", "key=value"),
                                      ("search:worlds=0", "positive"),
                                      ("bot:nowhere", "unknown bot 'nowhere'.*seven_up.*traditional_2p"),
                                      ("missing/model.pt", "not found"),
                                      ("", "non-empty")])
def test_bad_specs(spec, msg):
    with pytest.raises(ValueError, match=msg):
        make_agent(spec)


def test_checkpoint_and_bot_specs_go_to_the_network_loaders(tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(neural, "load_agent", lambda path, **kw: calls.append(("agent", path, kw)) or RandomAgent())
    monkeypatch.setattr(neural, "load_bot",
                        lambda name, players=None, **kw: calls.append(("bot", name, players, kw)) or RandomAgent())
    ckpt = tmp_path / "net.pt"
    ckpt.write_bytes(b"x")
    assert isinstance(make_agent(str(ckpt)), RandomAgent)
    assert isinstance(make_agent("bot:traditional", preset="traditional", players=2), RandomAgent)
    make_agent(f"{ckpt}:sym=0")
    make_agent("bot:seven_up:sym=1")
    assert calls == [("agent", str(ckpt), {}), ("bot", "traditional", 2, {"game": "traditional"}),
                     ("agent", str(ckpt), {"symmetrize": False}),
                     ("bot", "seven_up", None, {"game": "yorkshire", "symmetrize": True})]
    for spec, msg in [("bot:seven_up:sym=2", "option sym of 'bot:seven_up' must be 0 or 1, got '2'"),
                      ("bot:seven_up:greedy=0", "a bot or checkpoint takes only sym=0 or sym=1"),
                      (f"{ckpt}:sym", "a bot or checkpoint takes only sym=0 or sym=1")]:
        with pytest.raises(ValueError, match=msg):
            make_agent(spec)


@pytest.mark.slow
def test_shipped_bot_plays_its_network_averaged_over_suit_relabellings():
    """``bot:NAME`` plays the averaged policy (``PolicyNet.averaged``), ``bot:NAME:sym=0`` the raw one."""
    avg, raw = make_agent("bot:seven_up"), make_agent("bot:seven_up:sym=0")
    assert avg.symmetrize and not raw.symmetrize
    rng = random.Random(0)
    differ = 0
    for g in range(30):
        st = GameState.new("seven_up", seed=g)
        for _ in range(rng.randrange(12)):
            st.apply(rng.choice(st.legal_actions()))
        seat, legal = st.current, st.legal_actions()
        obs = torch.from_numpy(encode(st, seat)[None].copy())
        mask = torch.zeros(1, NUM_ACTIONS, dtype=torch.bool)
        mask[0, legal] = True
        with torch.inference_mode():
            want_avg = avg.net.averaged(obs, mask)[0]
            want_raw = avg.net(obs, mask, value=False)[0][0]
        assert avg.act(st, seat) == max(legal, key=lambda a: float(want_avg[a]))
        assert raw.act(st, seat) == max(legal, key=lambda a: float(want_raw[a]))
        pol = avg.policy(st, seat)
        assert sum(pol.values()) == pytest.approx(1.0) and set(pol) == set(legal)
        differ += avg.act(st, seat) != raw.act(st, seat)
    assert differ > 0


# ---------------------------------------------------------------------------------- checkpoints of two encodings
def _saved(path, net, **changes):
    """A checkpoint of ``net`` with the metadata of its encoding (and ``changes`` over it), as a trainer writes one."""
    import torch

    from allfours.agents.network.checkpoint import atomic_save, metadata
    ck = {**metadata(net.arch()), "arch": net.arch(), "model": net.state_dict(), "preset": "seven_up",
          "rules": make_rules("seven_up").to_dict(), "progress": {"steps": 1}}
    ck.update(changes)
    atomic_save(ck, path)
    return torch.load(path, weights_only=True)


def test_a_fresh_network_saves_and_loads_at_encoding_2(tmp_path):
    from allfours.agents.network import PolicyNet
    from allfours_env import OBS_SIZE
    from allfours_env.cards import NUM_ACTIONS as ACTIONS
    torch.manual_seed(0)
    net = PolicyNet(OBS_SIZE, ACTIONS, (16,), canonical=True)
    ck = _saved(tmp_path / "new.pt", net)
    assert (ck["encoding_version"], ck["obs_size"], ck["num_actions"]) == (2, 997, 63) == (2, OBS_SIZE, ACTIONS)
    assert len(ck["action_ids"]) == 63 and ck["action_ids"][57:] == ["PASS", "BID_1", "BID_2", "BID_3", "BID_4",
                                                                     "SMUDGE"]
    agent = neural.load_agent(tmp_path / "new.pt")
    assert agent.net.arch() == net.arch() and agent.net.encoding_version == 2
    st = GameState.new("seven_up", seed=1)
    obs = torch.from_numpy(encode(st, st.current)[None].copy())
    mask = torch.zeros(1, ACTIONS, dtype=torch.bool)
    mask[0, st.legal_actions()] = True
    with torch.inference_mode():
        assert torch.allclose(agent.net(obs, mask)[0], net.eval()(obs, mask)[0], atol=1e-6, rtol=0)  # same weights
    assert agent.act(st, st.current) in st.legal_actions()


def test_an_encoding_1_checkpoint_loads_as_the_network_it_was(tmp_path):
    from allfours.agents.network import PolicyNet
    from allfours.agents.network.checkpoint import load_checkpoint
    from allfours_env.observation import V1_SIZE
    torch.manual_seed(0)
    old = PolicyNet(V1_SIZE, 57, (16,), canonical=True)
    ck = _saved(tmp_path / "old.pt", old)
    assert (ck["encoding_version"], ck["obs_size"], ck["num_actions"], len(ck["action_ids"])) == (1, 951, 57, 57)
    assert load_checkpoint(tmp_path / "old.pt")["arch"]["obs_size"] == V1_SIZE
    agent = neural.load_agent(tmp_path / "old.pt")
    assert (agent.net.obs_size, agent.net.num_actions, agent.net.encoding_version) == (951, 57, 1)
    rng = random.Random(2)
    st = GameState.new("seven_up", seed=2)
    while not st.done and st.hand_no == 0:
        legal = st.legal_actions()
        probs = agent.policy(st, st.current)
        assert set(probs) == set(legal) and sum(probs.values()) == pytest.approx(1.0)
        assert agent.act(st, st.current) in legal
        st.apply(rng.choice(legal))
    # as shipped (train.ship keeps no num_actions): read from the action ids
    del ck["num_actions"]
    torch.save(ck, tmp_path / "shipped.pt")
    assert neural.load_agent(tmp_path / "shipped.pt").net.num_actions == 57


def test_checkpoint_metadata_that_fits_no_encoding_is_refused_in_one_line(tmp_path):
    from allfours.agents.network import PolicyNet
    from allfours.agents.network.checkpoint import CheckpointError, load_checkpoint, metadata
    from allfours_env import OBS_SIZE
    from allfours_env.observation import V1_SIZE
    torch.manual_seed(0)
    old, new = PolicyNet(V1_SIZE, 57, (8,)), PolicyNet(OBS_SIZE, NUM_ACTIONS, (8,))
    new_ids, old_ids = metadata()["action_ids"], metadata(old.arch())["action_ids"]
    cases = [
        (old, {"encoding_version": 3}, r"trained on observation encoding version 3 \(size 951\); this code reads "
                                       r"version 1 \(951 columns, 57 actions\), version 2 \(997 columns, 63 actions\)"),
        (old, {"encoding_version": True}, "trained on observation encoding version True"),
        (old, {"encoding_version": 2}, "says observation encoding version 2 with 951 columns; version 2 has 997"),
        (new, {"encoding_version": 1}, "says observation encoding version 1 with 997 columns; version 1 has 951"),
        (old, {"action_ids": new_ids}, r"uses different action ids than this code \(encoding version 1 has ids 0..56"),
        (new, {"action_ids": old_ids}, r"uses different action ids than this code \(encoding version 2 has ids 0..62"),
        (old, {"num_actions": 63}, "uses different action ids"),
        (new, {"arch": {**new.arch(), "num_actions": 57}},
         "holds a network of 997 observation columns and 57 actions; its encoding version 2 has 997 and 63"),
        (old, {"arch": {**old.arch(), "obs_size": OBS_SIZE}},
         "holds a network of 997 observation columns and 57 actions; its encoding version 1 has 951 and 57"),
    ]
    for i, (net, changes, msg) in enumerate(cases):
        path = tmp_path / f"bad{i}.pt"
        _saved(path, net, **changes)
        with pytest.raises(CheckpointError, match=msg) as e:
            load_checkpoint(path)
        assert "\n" not in str(e.value) and str(e.value).startswith(repr(str(path)))
        with pytest.raises(ValueError, match=msg):
            make_agent(str(path))
    with pytest.raises(CheckpointError, match="a network of 997 observation columns and 57 actions is of no "
                                              "observation encoding version"):
        metadata(PolicyNet(OBS_SIZE, 57, (8,)).arch())


def test_an_encoding_1_checkpoint_upgraded_plays_as_before():
    """``upgraded``: a warm start of today's network from a shipped bot, the new weights 0."""
    from allfours.agents.network import PolicyNet
    from allfours.agents.network.checkpoint import checkpoints_dir, load_checkpoint, upgraded
    from allfours_env import OBS_SIZE
    ck = load_checkpoint(checkpoints_dir() / "seven_up.pt")
    up = upgraded(ck)
    assert (up["encoding_version"], up["obs_size"], up["num_actions"], len(up["action_ids"])) == (2, 997, 63, 63)
    assert up["arch"] == {**ck["arch"], "obs_size": OBS_SIZE, "num_actions": NUM_ACTIONS}
    assert up["upgraded_from"] == {"encoding_version": 1, "obs_size": 951, "num_actions": 57}
    assert ck["arch"]["obs_size"] == 951  # the loaded checkpoint is left as it was
    assert upgraded(up) is up
    old, new = PolicyNet.from_arch(ck["arch"]).eval(), PolicyNet.from_arch(up["arch"]).eval()
    old.load_state_dict(ck["model"])
    new.load_state_dict(up["model"])
    rng = random.Random(4)
    st = GameState.new("seven_up", seed=4)
    rows, masks = [], []
    while not st.done and st.hand_no < 2:
        rows.append(encode(st, st.current))
        masks.append(st.legal_mask())
        st.apply(rng.choice(st.legal_actions()))
    from allfours_env.observation import masks_batch
    obs, mask = torch.from_numpy(np.stack(rows)), torch.from_numpy(masks_batch(masks))
    with torch.inference_mode():
        (a, va), (b, vb) = old(obs, mask), new(obs, mask)
        avg_a, avg_b = old.averaged(obs, mask), new.averaged(obs, mask)
    assert torch.allclose(a, b, atol=1e-4, rtol=0) and torch.allclose(va, vb, atol=1e-4, rtol=0)
    assert torch.allclose(avg_a, avg_b, atol=1e-4, rtol=0)
    assert (new.pi.weight[57:] == 0).all() and (new.trunk[0].weight[:, 951:] == 0).all()


# ---------------------------------------------------------------------------------- agent errors
class Illegal(Agent):
    name = "illegal"

    def act(self, state, seat):
        return 57


def test_illegal_action_is_a_clear_error():
    st = GameState.new("yorkshire", seed=0)
    with pytest.raises(AgentError, match="agent 'illegal' chose illegal action 57 for seat"):
        Illegal()(st, st.current)
    with pytest.raises(AgentError, match="illegal action"):
        ev.play_match([Illegal()] * 4, "yorkshire", seed=0)


def test_agent_in_an_illegal_state_is_a_clear_error():
    st = GameState.new("seven_up", seed=0)
    other = 1 - st.current
    for agent in (RandomAgent(), HeuristicAgent(), SearchAgent(worlds=1)):
        with pytest.raises(AgentError, match="turn"):
            agent(st, other)
    done = GameState.new("seven_up", seed=0, target=1)
    r = RandomAgent(seed=0)
    while not done.done:
        done.apply(r(done, done.current))
    with pytest.raises(AgentError, match="over"):
        HeuristicAgent()(done, 0)


def test_play_match_checks_its_input():
    with pytest.raises(ValueError, match="4 agents"):
        ev.play_match([RandomAgent()] * 2, "yorkshire")
    with pytest.raises(ValueError, match="not an Agent"):
        ev.play_match([RandomAgent(), "x"], "seven_up")


# ---------------------------------------------------------------------------------- duplicate deals
class Recorder(Agent):
    """Plays randomly, remembering the first hand's deal (every seat's dealt cards)."""

    def __init__(self, log, seed=None):
        super().__init__(seed)
        self.log = log

    def act(self, state, seat):
        if state.hand_no == 0 and not self.log.get("deal"):
            self.log["deal"] = (state.dealer, tuple(state.dealt), tuple(state.turnups))
        return self.rng.choice(state.legal_actions())


@pytest.mark.parametrize("preset,options", [("yorkshire", {}), ("seven_up", {}), ("traditional", {"players": 3})])
def test_duplicate_pairing_replays_the_same_deals(preset, options):
    tasks = ev.make_tasks([("random", "heuristic")], preset, 2 * len(ev.seatings(3 if options else 2, True)), seed=5,
                          options=options)
    by_deal = {}
    for t in tasks:
        by_deal.setdefault(t.deal, []).append(t)
    for group in by_deal.values():
        assert len({t.game_seed for t in group}) == 1  # one deal sequence ...
        assert len({t.seats for t in group}) == len(group)  # ... under every seating
        deals = []
        for t in group:
            log = {}
            agents = [Recorder(log, seed=i) for i in range(len(t.seats))]
            ev.play_match(agents, preset, t.game_seed, t.agent_seed, dict(t.options))
            deals.append(log["deal"])
        assert all(d == deals[0] for d in deals)
    seeds = [t.game_seed for t in tasks if t.variant == 0]
    assert len(set(seeds)) == len(seeds)


def test_an_option_at_the_presets_own_value_keeps_the_deals():
    """``--players 4`` on traditional is the preset itself: the same deals as no option at all."""
    def seeds(options):
        return [(t.game_seed, t.agent_seed) for t in ev.make_tasks([("random", "heuristic")], "traditional", 4,
                                                                    seed=5, options=options)]

    assert seeds({"players": 4}) == seeds({}) == seeds({"players": 4, "target": 14})
    assert seeds({"players": 4, "target": 10}) != seeds({})
    assert seeds({"players": 2}) != seeds({})


def test_seatings_swap_sides_or_rotate():
    assert ev.seatings(4, True) == [(0, 1, 0, 1), (1, 0, 1, 0)]
    assert ev.seatings(2, True) == [(0, 1), (1, 0)]
    assert sorted(s.index(0) for s in ev.seatings(3, True)) == [0, 1, 2]


@pytest.mark.slow
def test_same_seed_same_numbers_whatever_the_workers():
    kw = dict(preset="seven_up", matches=4, seed=3, progress=False)
    a = ev.round_robin(["heuristic", "random", "search:worlds=1"], workers=1, **kw)
    b = ev.round_robin(["heuristic", "random", "search:worlds=1"], workers=2, **kw)
    assert a == b
    kw["matches"] = 20
    c = ev.round_robin(["heuristic", "random"], workers=1, **kw)
    assert c == ev.round_robin(["heuristic", "random"], workers=1, **kw)
    assert c["results"] != ev.round_robin(["heuristic", "random"], workers=1, **{**kw, "seed": 4})["results"]


def test_results_shape_and_mirror_rows():
    out = ev.evaluate_pairing("heuristic", "random", preset="yorkshire", matches=6, seed=0, workers=1,
                              progress=False)
    fwd, rev = out["results"]
    for key in ("agent", "opponent", "preset", "matches", "wins", "win_rate", "ci95", "points_per_hand"):
        assert key in fwd
    assert (fwd["agent"], fwd["opponent"], rev["agent"], rev["opponent"]) == ("heuristic", "random", "random",
                                                                              "heuristic")
    assert fwd["matches"] == rev["matches"] == 6 and fwd["wins"] + rev["wins"] == 6
    assert fwd["points_per_hand"] == pytest.approx(rev["opponent_points_per_hand"])
    assert set(out["ratings"]) == {"heuristic", "random"}


def test_three_players_rotate_and_report_both_directions():
    out = ev.evaluate_pairing("heuristic", "random", preset="traditional", options={"players": 3}, matches=3,
                              seed=0, workers=1, progress=False)
    rows = {(r["agent"], r["opponent"]): r for r in out["results"]}
    assert set(rows) == {("heuristic", "random"), ("random", "heuristic")}
    assert all(r["matches"] == 3 for r in rows.values())


def test_matches_must_fill_whole_duplicate_groups():
    with pytest.raises(ValueError, match="multiple of 2"):
        ev.make_tasks([("random", "heuristic")], "yorkshire", 5, 0)
    with pytest.raises(ValueError, match="multiple of 3"):
        ev.make_tasks([("random", "heuristic")], "traditional", 4, 0, {"players": 3})


# ---------------------------------------------------------------------------------- statistics
def test_wilson_interval():
    lo, hi = ev.wilson(80, 100)
    z = 1.959963984540054
    p, n = 0.8, 100
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    assert lo == pytest.approx(centre - half, abs=1e-9) and hi == pytest.approx(centre + half, abs=1e-9)
    assert ev.wilson(0, 0) == (0.0, 1.0)


def test_t_interval():
    assert ev.t_interval([1.0]) is None
    lo, hi = ev.t_interval([1.0, 2.0, 3.0, 4.0])
    assert lo < 2.5 < hi and hi - 2.5 == pytest.approx(2.5 - lo)


def test_ratio_interval_is_about_the_reported_points_per_hand():
    """points_per_hand is total points over total hands; its interval must be about that number
    (it once was a t interval over per-deal means, which could miss the ratio entirely), never below
    0 (a linear interval over 2 deals once read -1.630 - 5.630), and none over too few deals."""
    assert ev.ratio_interval([3.0, 1.0] * 4, [2.0] * 8) is None  # 8 deals: fewer than MIN_UNITS
    assert ev.ratio_interval([0.0] * 12, [3.0] * 12) == (0.0, 0.0)
    # Equal hands per deal, many deals: close to the t interval of the per-deal ratios.
    per_deal = [2.0, 3.0, 4.5, 2.5] * 25
    lo, hi = ev.ratio_interval([2 * x for x in per_deal], [2.0] * len(per_deal))
    tlo, thi = ev.t_interval(per_deal)
    assert (lo, hi) == (pytest.approx(tlo, abs=0.01), pytest.approx(thi, abs=0.01))
    # Few points in most deals, many in one: a linear interval would reach below 0; this one is
    # geometric about the ratio and stays above 0.
    pts, hands = [0.0] * 9 + [30.0], [3.0] * 10
    r = sum(pts) / sum(hands)
    lo, hi = ev.ratio_interval(pts, hands)
    assert 0 < lo < r < hi and lo * hi == pytest.approx(r * r)
    # Long deals with few points, short ones with many: the mean of the per-deal ratios (2.7) is
    # far from the ratio and outside its interval; the interval is about the ratio.
    pts, hands = [10.0, 10.0, 12.0, 4.0, 4.0, 5.0] * 2, [10.0, 10.0, 11.0, 1.0, 1.0, 1.0] * 2
    lo, hi = ev.ratio_interval(pts, hands)
    r = sum(pts) / sum(hands)
    assert lo * hi == pytest.approx(r * r) and lo < r < hi
    assert hi < sum(p / h for p, h in zip(pts, hands)) / len(pts)
    row = ev.PairingResult("a", "b", "yorkshire", 4, matches=24, wins=12,
                           groups={i: [p, 0.0, h] for i, (p, h) in enumerate(zip(pts, hands))}).to_dict()
    lo, hi = row["points_per_hand_ci95"]
    assert row["points_per_hand"] == pytest.approx(r) and lo < row["points_per_hand"] < hi


def test_derive_seed_is_stable():
    assert ev.derive_seed(0, "x", 1) == ev.derive_seed(0, "x", 1) != ev.derive_seed(0, "x", 2)


# ---------------------------------------------------------------------------------- CLI
def test_cli_writes_json(tmp_path, capsys):
    out = tmp_path / "r.json"
    rc = eval_main(["--preset", "seven_up", "--agents", "heuristic", "random", "--matches", "4", "--seed", "1",
                    "--workers", "1", "--no-progress", "--json", str(out)])
    assert rc == 0
    data = json.loads(out.read_text())
    assert {"results", "ratings"} <= set(data)
    r = data["results"][0]
    assert {"agent", "opponent", "preset", "matches", "wins", "win_rate", "ci95", "points_per_hand"} <= set(r)
    assert "| heuristic | random | 4 |" in capsys.readouterr().out


@pytest.mark.parametrize("argv,msg", [(["--preset", "nope"], "unknown preset 'nope'"),
                                      (["--agents", "heuristic", "bogus"], "unknown agent 'bogus'"),
                                      (["--agents", "search:worlds=x", "random"], "worlds"),
                                      (["--preset", "seven_up", "--players", "4"], "allows players"),
                                      (["--matches", "3"], "multiple of 2"),
                                      (["--agents", "random"], "at least two")])
def test_cli_errors_are_one_line(argv, msg, capsys):
    rc = eval_main(argv + ["--no-progress", "--workers", "1"])
    err = capsys.readouterr().err.strip()
    assert rc == 2
    assert err.startswith("allfours eval: error:") and msg in err and "\n" not in err
    assert "Traceback" not in err


def test_bot_names_pick_the_bot_for_the_player_count():
    from allfours.agents.spec.bots import bot_name

    assert bot_name("traditional") == "traditional" and bot_name("traditional", 4) == "traditional"
    assert bot_name("traditional", 2) == "traditional_2p" and bot_name("traditional_2p", 4) == "traditional"
    assert bot_name("seven_up", 2) == "seven_up"
    with pytest.raises(ValueError, match="no bot is shipped for traditional with 3 players"):
        bot_name("traditional", 3)
    with pytest.raises(ValueError, match="no bot is shipped for yorkshire with 2 players"):
        make_agent("bot:yorkshire", preset="yorkshire", players=2)


# ---------------------------------------------------------------------------------- in-memory agents
@pytest.mark.parametrize("preset,options", [("traditional", {"players": 4}), ("traditional", {"players": 3}),
                                            ("seven_up", {"target": 5})])
def test_an_agent_object_plays_the_row_of_its_spec(preset, options):
    """``evaluate_agent`` (the trainer's evaluation) gives the first row of ``evaluate_pairings`` on
    the spec, the same matches (three players: without the reverse direction's own matches)."""
    rules = make_rules(preset, **options)
    matches = 2 * len(ev.seatings(rules.players, rules.partnerships))
    kw = dict(preset=preset, matches=matches, seed=4, options=options)
    row = ev.evaluate_agent(HeuristicAgent(), "random", name="mine", **kw)
    want = ev.evaluate_pairings([("heuristic", "random")], workers=1, progress=False, **kw)["results"][0]
    assert row.pop("agent") == "mine" and want.pop("agent") == "heuristic"
    assert row == want and row["matches"] == matches
    both = ev.evaluate_pairings([("mine", "random")], workers=1, progress=False, agents={"mine": HeuristicAgent()},
                                **kw)
    assert len(both["results"]) == 2 and {**both["results"][0], "agent": "x"} == {**row, "agent": "x"}


def test_in_memory_agents_check_their_input():
    with pytest.raises(ValueError, match="workers must be 1"):
        ev.evaluate_pairings([("mine", "random")], preset="seven_up", matches=2, workers=2, progress=False,
                             agents={"mine": RandomAgent()})
    with pytest.raises(ValueError, match=r"agents\['mine'\] is not an Agent"):
        ev.evaluate_pairings([("mine", "random")], preset="seven_up", matches=2, workers=1, agents={"mine": "random"})
    with pytest.raises(ValueError, match="also the opponent's spec"):
        ev.evaluate_agent(RandomAgent(), "random", preset="seven_up", matches=2, name="random")
    with pytest.raises(ValueError, match="unknown agent 'nope'"):
        ev.evaluate_agent(RandomAgent(), "nope", preset="seven_up", matches=2)


def test_eval_command_replays_the_same_matches(tmp_path, capsys):
    options = {"target": 5, "throw_in": False}
    command = ev.eval_command(["heuristic", "random"], "seven_up", options, 4, 2)
    assert command == ("allfours eval --preset seven_up --target 5 --rule throw_in=false --agents heuristic random "
                       "--matches 4 --seed 2")
    out = tmp_path / "r.json"
    assert eval_main(command.split()[2:] + ["--workers", "1", "--no-progress", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    want = ev.evaluate_pairing("heuristic", "random", preset="seven_up", options=options, matches=4, seed=2,
                               workers=1, progress=False)
    assert data["options"] == options and data["results"] == want["results"] and data["command"] == command
    for argv, msg in [(["--rule", "throw_in"], "must look like KEY=VALUE"), (["--rule", "bogus=1"], "unknown option"),
                      (["--target", "5", "--rule", "target=6"], "'target' is given twice"),
                      (["--rule", "throw_in=maybe"], "throw_in must be true or false")]:
        assert eval_main(argv + ["--no-progress"]) == 2
        err = capsys.readouterr().err
        assert msg in err and err.count("\n") == 1


# ---------------------------------------------------------------------------------- interruption
class StopsAtMatch(RandomAgent):
    """Random play that raises KeyboardInterrupt (a Ctrl-C) as its match number ``k`` starts."""

    def __init__(self, k: int):
        super().__init__()
        self.k, self.started = k, 0

    def seed(self, seed):
        super().seed(seed)
        self.started += 1
        if self.started == self.k:
            raise KeyboardInterrupt


@pytest.mark.parametrize("preset,options", [("seven_up", {}), ("traditional", {"players": 3})])
def test_an_interrupted_evaluation_keeps_its_whole_duplicate_groups(preset, options):
    rules = make_rules(preset, **options)
    group = len(ev.seatings(rules.players, rules.partnerships))
    kw = dict(preset=preset, seed=5, options=options, workers=1, progress=False)
    with pytest.raises(ev.EvaluationInterrupted) as err:
        ev.evaluate_pairings([("mine", "heuristic")], matches=6 * group, agents={"mine": StopsAtMatch(2 * group + 2)},
                             both_ways=False, **kw)
    e = err.value
    assert e.signum == signal.SIGINT and sum(r is not None for r in e.results) == 2 * group + 1
    report = e.report
    assert report["partial"] and report["matches_planned"] == 6 * group and report["matches_finished"] == 2 * group + 1
    assert report["matches_played"] == 2 * group  # the third deal was played in one seating only: left out
    # the same rows and ratings as a run of the two whole deals (matches run in schedule order here)
    want = ev.evaluate_pairings([("mine", "heuristic")], matches=2 * group, agents={"mine": RandomAgent()},
                                both_ways=False, **kw)
    assert report["results"] == want["results"] and report["ratings"] == want["ratings"]
    assert report["results"][0]["matches"] == 2 * group


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])  # exit 130, 143
@pytest.mark.subprocess
def test_cli_stopped_half_way_writes_a_partial_json_it_can_report_on(tmp_path, capsys, sig):
    """Ctrl-C at a terminal (to the whole process group, the two workers too) or SIGTERM to the command."""
    out = tmp_path / "r.json"
    stdout, stderr, data = eval_stopped_half_way(["--workers", "2"], sig, out)
    assert "leaked" not in stderr
    last = stderr.strip().splitlines()[-1]
    assert last.startswith(f"allfours eval: stopped by {signal.Signals(sig).name} after ") and str(out) in last
    assert data["command"].endswith("--matches 100000 --seed 3")
    assert eval_main(["--report", str(out)]) == 0
    table = capsys.readouterr().out
    assert table.startswith(f"PARTIAL (stopped by {signal.Signals(sig).name}): {data['matches_played']} of 100000")
    r = data["results"][0]
    assert f"| random | heuristic | {r['matches']} | {r['wins']} | {r['win_rate']:.3f} |" in table


def test_a_pairings_figures_are_the_same_on_every_board():
    """An agent's seeds derive from the deal and its seat, not from its pairing's place in the round
    robin: adding agents to a board, or listing them in another order, changes no old figure."""
    kw = {"preset": "seven_up", "matches": 8, "seed": 4, "workers": 1, "progress": False}
    small = ev.round_robin(["random", "search:worlds=2"], **kw)
    big = ev.round_robin(["heuristic", "search:worlds=2", "random"], **kw)
    alone = ev.evaluate_pairing("search:worlds=2", "random", **kw)
    rows = [{(r["agent"], r["opponent"]): r for r in out["results"]} for out in (small, big, alone)]
    key = ("random", "search:worlds=2")
    assert rows[0][key] == rows[1][key] == rows[2][key]
    assert rows[0][key[::-1]] == rows[1][key[::-1]] == rows[2][key[::-1]]
