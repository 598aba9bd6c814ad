"""The equilibrium-seeking recipe: the magnet's pull in the loss, its schedule, the magnet's moves, resume."""

import math

import pytest
import torch

from allfours.agents.network import PolicyNet
from allfours.agents.network.checkpoint import load_checkpoint
from allfours.train.config import TrainConfig, config_names, load_config
from allfours.train.magnet import Magnet
from allfours.train.ppo import kl_to_magnet, ppo_update
from allfours.train.rollout import ScalarCollector
from allfours.train.trainer import Trainer
from allfours_env.cards import NUM_ACTIONS
from allfours_env.observation import OBS_SIZE
from allfours_env.rules import make_rules

MASK = -1e9


def _net(seed=0, hidden=(16,)):
    torch.manual_seed(seed)
    return PolicyNet(OBS_SIZE, NUM_ACTIONS, list(hidden), bf16=False)


def test_kl_to_a_uniform_magnet_by_hand():
    # two legal actions of three, the policy (2/3, 1/3): KL to uniform = 2/3 ln(4/3) + 1/3 ln(2/3)
    logits = torch.tensor([[math.log(2.0), 0.0, MASK]])
    mask = torch.tensor([[True, True, False]])
    want = 2 / 3 * math.log(4 / 3) + 1 / 3 * math.log(2 / 3)
    assert kl_to_magnet(logits, mask, None).item() == pytest.approx(want, abs=1e-6)
    # ... which is log(#legal) minus the entropy
    entropy = -(2 / 3 * math.log(2 / 3) + 1 / 3 * math.log(1 / 3))
    assert want == pytest.approx(math.log(2) - entropy)


def test_kl_to_a_network_magnet_by_hand():
    # the policy (1/2, 1/4, 1/4), the magnet (1/4, 1/4, 1/2), an illegal fourth action the magnet would like
    logits = torch.tensor([[math.log(2.0), 0.0, 0.0, MASK], [0.0, 0.0, MASK, MASK]])
    magnet = torch.tensor([[0.0, 0.0, math.log(2.0), MASK], [math.log(3.0), 0.0, MASK, MASK]])
    mask = torch.tensor([[True, True, True, False], [True, True, False, False]])
    want = [0.5 * math.log(2) + 0.25 * math.log(1) + 0.25 * math.log(0.5),  # sum p log(p / rho)
            0.5 * math.log(0.5 / 0.75) + 0.5 * math.log(0.5 / 0.25)]
    got = kl_to_magnet(logits, mask, magnet)
    assert got.tolist() == pytest.approx(want, abs=1e-6)
    assert kl_to_magnet(magnet, mask, magnet).abs().max().item() < 1e-6  # no pull at the magnet itself


def test_the_schedules_move_linearly_and_zero_final_clip_means_constant():
    cfg = TrainConfig(preset="mini2", lr=1e-3, lr_final=1e-4, ent_coef=0.1, ent_coef_final=0.0, magnet_coef=0.2,
                      magnet_coef_final=0.05, clip_coef=0.2, clip_coef_final=0.1, eval_every_minutes=0)
    start, half, end = cfg.scheduled(0.0), cfg.scheduled(0.5), cfg.scheduled(1.0)
    assert (start["magnet_coef"], half["magnet_coef"], end["magnet_coef"]) == pytest.approx((0.2, 0.125, 0.05))
    assert (start["ent_coef"], half["ent_coef"], end["ent_coef"]) == pytest.approx((0.1, 0.05, 0.0))
    assert (start["clip_coef"], end["clip_coef"]) == pytest.approx((0.2, 0.1))
    assert (half["lr"]) == pytest.approx(5.5e-4)
    cfg.clip_coef_final = 0.0
    assert cfg.scheduled(1.0)["clip_coef"] == pytest.approx(0.2)


def test_the_ema_magnet_moves_tau_of_the_way_and_the_copy_every_k_updates():
    learner, other = _net(0), _net(1)
    ema = Magnet("ema", learner, tau=0.25)
    learner.load_state_dict(other.state_dict())
    before = [p.clone() for p in ema.net.parameters()]
    ema.step(learner, 1)
    for b, m, p in zip(before, ema.net.parameters(), learner.parameters()):
        assert torch.allclose(m, b + 0.25 * (p - b), atol=1e-7)
    assert all(not p.requires_grad for p in ema.net.parameters())

    copy = Magnet("copy", _net(0), every=3)
    start = [p.clone() for p in copy.net.parameters()]
    for update in (1, 2):
        copy.step(other, update)
        assert all(torch.equal(a, b) for a, b in zip(start, copy.net.parameters()))
    copy.step(other, 3)
    assert all(torch.equal(a, b) for a, b in zip(other.parameters(), copy.net.parameters()))
    assert Magnet("uniform", learner).net is None
    with pytest.raises(ValueError, match="magnet must be one of"):
        Magnet("moving", learner)


def _rollout():
    torch.manual_seed(0)
    net = PolicyNet(OBS_SIZE, NUM_ACTIONS, [32, 32])
    return net, ScalarCollector(make_rules("mini2"), net, num_envs=16, rollout_steps=8, seed=1).collect()


def _update(net, ro, **kw):
    opt = torch.optim.Adam(net.parameters(), lr=1e-2)
    stats = ppo_update(net, opt, ro, epochs=2, minibatch_size=32, clip_coef=0.2, ent_coef=0.0, vf_coef=0.5,
                       max_grad_norm=0.5, generator=torch.Generator().manual_seed(0), **kw)
    return stats, {k: v.clone() for k, v in net.state_dict().items()}


def test_the_classic_update_is_untouched_without_a_pull_and_the_pull_moves_towards_the_magnet():
    net, ro = _rollout()
    start = {k: v.clone() for k, v in net.state_dict().items()}
    _, plain = _update(net, ro)
    net.load_state_dict(start)
    stats, off = _update(net, ro, magnet_coef=0.0, magnet=_net(3, (32, 32)))
    assert all(torch.equal(plain[k], off[k]) for k in plain)  # a zero weight: the classic recipe exactly
    assert stats["magnet_kl"] == 0.0

    magnet = _net(3, (32, 32))
    obs, mask = torch.from_numpy(ro.obs), torch.from_numpy(ro.mask)

    def kl(weights):
        net.load_state_dict(weights)
        with torch.no_grad():
            logits, _ = net(obs, mask, value=False, canonical_input=True)
            target, _ = magnet(obs, mask, value=False, canonical_input=True)
        return kl_to_magnet(logits, mask, target).mean().item()

    net.load_state_dict(start)
    stats, pulled = _update(net, ro, magnet_coef=5.0, magnet=magnet)
    assert stats["magnet_kl"] > 0
    assert kl(pulled) < kl(plain)  # a strong pull ends nearer the magnet than the plain update


def test_the_classic_configs_keep_the_classic_recipe():
    for name in config_names():
        cfg = load_config(name)
        if name.startswith("mini"):
            continue
        assert (cfg.magnet_coef, cfg.magnet_coef_final, cfg.clip_coef_final, cfg.exact_every_minutes) == (0, 0, 0, 0)


def test_bad_recipe_values_are_one_line():
    for override, message in (("magnet=moving", "magnet must be one of uniform, ema, copy"),
                              ("magnet_coef=-1", "magnet_coef and magnet_coef_final must be >= 0"),
                              ("magnet_tau=0", r"magnet_tau must be in \(0, 1\]"),
                              ("clip_coef_final=2", r"clip_coef_final must be in \[0, 1\]")):
        with pytest.raises(ValueError, match=message):
            load_config("mini2", [override])
    with pytest.raises(ValueError, match="only a mini preset"):
        load_config("seven_up", ["exact_every_minutes=1"])


TINY = ["num_envs=16", "rollout_steps=8", "hidden=[32,32]", "minibatch_size=64", "progress_bar=false",
        "collector=inline", "max_minutes=0", "lr_final=0.001", "magnet_coef=0.1", "magnet_coef_final=0.1",
        "ent_coef=0", "ent_coef_final=0", "points_reward_final=0.1", "magnet=ema", "magnet_tau=0.1",
        "checkpoint_every_updates=1"]
ROLLOUT = 16 * 8


def test_a_run_in_the_new_recipe_resumes_with_its_magnet_and_its_exact_curve(tmp_path):
    def cfg(steps):
        return load_config("mini2", TINY + [f"runs_dir={tmp_path}", f"total_steps={steps}",
                                            "exact_every_minutes=0.0001"])
    Trainer(cfg(2 * ROLLOUT), tmp_path / "r").train(log=lambda *a: None)
    saved = load_checkpoint(tmp_path / "r" / "latest.pt")
    assert saved["magnet"] is not None and len(saved["exact"]["curve"]) == 2
    resumed = Trainer.resume(tmp_path / "r", cfg(4 * ROLLOUT))
    magnet = resumed.magnet.state_dict()
    assert all(torch.equal(magnet[k], saved["magnet"][k]) for k in magnet)  # the magnet, not a fresh copy
    assert not all(torch.equal(magnet[k], saved["model"][k]) for k in magnet)
    assert resumed.exact.state_dict() == saved["exact"]
    resumed.train(log=lambda *a: None)
    after = load_checkpoint(tmp_path / "r" / "latest.pt")
    assert after["progress"]["updates"] == 4
    curve = after["exact"]["curve"]
    assert curve[:2] == saved["exact"]["curve"] and len(curve) == 4
    assert [c["steps"] for c in curve] == [ROLLOUT * k for k in (1, 2, 3, 4)]
    assert after["exact"]["lowest"] == min(c["nash_conv"] for c in curve)
    # two more ema steps of tau 0.1 from the saved magnet towards the learner: it moved
    assert not all(torch.equal(after["magnet"][k], saved["magnet"][k]) for k in magnet)


def test_the_command_names_checkpoints_a_run_writes_and_ends_with_the_exact_figure(tmp_path, capsys):
    from allfours.cli.train import main

    assert main(["--config", "smoke", f"runs_dir={tmp_path}", "run_name=s", "max_minutes=0", "total_steps=256",
                 "num_envs=16", "rollout_steps=8", "hidden=[32,32]", "minibatch_size=64", "eval_every_minutes=5",
                 "eval_opponents=[random]", "best_metric=random", "eval_matches=4", "search_eval_every=0",
                 "collector=inline", "progress_bar=false", "opp_scripted=0", "opp_snapshot=0", "opp_latest=1"]) == 0
    out = capsys.readouterr().out
    banner = [line for line in out.splitlines() if line.startswith("  eval vs random")]
    assert banner and str(tmp_path / "s" / "latest.pt") in banner[0] and "best.pt" not in banner[0]
    assert main(["--config", "mini2", *TINY, f"runs_dir={tmp_path}", "run_name=m", "total_steps=256",
                 "exact_every_minutes=0.0001"]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    curve = load_checkpoint(tmp_path / "m" / "latest.pt")["exact"]["curve"]
    assert f"exact NashConv {curve[-1]['nash_conv']:.4f} at the end" in last
    assert "best.pt (lowest exact NashConv)" in last
