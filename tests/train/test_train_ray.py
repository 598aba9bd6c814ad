"""Ray rollout workers (train/ray_workers.py): the rollout contract, training improves, a dead worker is replaced."""

import os
import signal
import sys
import threading
import time

import pytest

from allfours.agents.evaluation import evaluate_agent
from allfours.agents.network import PolicyNet
from allfours.agents.players.neural import NeuralAgent
from allfours.train.config import load_config
from allfours.train.rollout import CollectParams
from allfours.train.trainer import Trainer
from allfours_env.rules import make_rules

try:
    import ray
except ImportError:
    ray = None
needs_ray = pytest.mark.skipif(ray is None, reason="Ray not installed: pip install '.[ray]'")

# seven_up: the fastest preset; enough games that a few hundred thousand decisions learn something
SMALL = ["num_envs=64", "rollout_steps=32", "hidden=[128,128]", "minibatch_size=512", "eval_every_minutes=0",
         "progress_bar=false", "opp_scripted=0.5", "opp_snapshot=0", "opp_latest=0.5", "scripted_opponents=[random]",
         "max_minutes=0", "lr=0.001", "lr_final=0.001", "seed=5", "checkpoint_every_minutes=0"]


def _win_rate_vs_random(trainer) -> float:
    net = PolicyNet.from_arch(trainer.net.arch())
    net.load_state_dict(trainer.net.state_dict())
    agent = NeuralAgent(net, greedy=True, preset="seven_up")
    # 600 matches on fixed deals (seed=3) for every net: before and after are paired, and the win rate's
    # noise (about 0.02) is a fifth of what 300k steps learn, so no single run's luck decides the test
    return evaluate_agent(agent, "random", preset="seven_up", matches=600, seed=3)["win_rate"]


def worker_pids(collector) -> list[int]:
    """The process of each of the collector's actors, in worker order."""
    return ray.get([a.pid.remote() for a in collector.actors])


def test_without_ray_the_ray_collector_says_how_to_install(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ImportError
    cfg = load_config("seven_up", SMALL + [f"runs_dir={tmp_path}", "collector=ray", "total_steps=1"])
    with pytest.raises(ImportError, match=r"pip install '\.\[ray\]'"):
        Trainer(cfg, tmp_path / "r")


def test_cli_ray_flags_set_the_collector(capsys):
    from allfours.cli.train import main

    assert main(["--config", "smoke", "--ray-address", "auto", "--workers", "3", "--print-config"]) == 0
    out = capsys.readouterr().out
    assert "collector: ray" in out and "workers: 3" in out and "ray_address: auto" in out
    assert main(["--config", "smoke", "--workers", "3"]) == 2  # --workers alone is an error
    assert "--ray-address" in capsys.readouterr().err
    assert main(["--config", "smoke", "collector=ray", "workers=100", "num_envs=8", "--print-config"]) == 2


@needs_ray
def test_ray_collector_rollouts_and_worker_replacement(local_ray):
    from allfours.train.ray_workers import RayCollector, split

    assert split(10, 3) == [4, 3, 3] and sum(split(64, 2)) == 64
    rules = make_rules("seven_up")
    net = PolicyNet.from_arch({"obs_size": 951, "num_actions": 57, "hidden": [32], "privileged": 0, "canonical": True})
    c = RayCollector(rules, net, num_envs=20, rollout_steps=16, workers=2, seed=3, shares=(0.5, 0, 0.5),
                     scripted_specs=["random"])
    try:
        c.set_policy(net.state_dict())
        c.set_opponents([])
        ro = c.collect(CollectParams())
        assert ro.decisions == 20 * 16  # every game slot of both workers made a decision per step
        assert len(ro.obs) == len(ro.mask) == len(ro.actions) == len(ro.returns) > 0
        assert ro.mask[range(len(ro.actions)), ro.actions].all()  # sampled actions are legal
        pids = worker_pids(c)
        assert len(set(pids)) == 2 and os.getpid() not in pids
        os.kill(pids[0], signal.SIGKILL)
        with pytest.warns(UserWarning, match="rollout worker 0 died"):
            ro = c.collect(CollectParams())
        assert ro.decisions == 20 * 16 and c.restarts == 1 and ro.stats["worker_restarts"] == 1
        assert worker_pids(c)[1] == pids[1] and worker_pids(c)[0] != pids[0]
        state = c.state_dict()
        assert len(state["ray_workers"]) == 2 and state["generation"] == [1, 0]
        c.load_state_dict(state)
    finally:
        c.close()


@needs_ray
@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:rollout worker")
def test_training_on_ray_workers_improves_like_local_and_survives_a_killed_worker(tmp_path, local_ray):
    steps = 300_000
    results = {}
    for collector in ("inline", "ray"):
        cfg = load_config("seven_up", SMALL + [f"runs_dir={tmp_path}", f"collector={collector}", "workers=2",
                                              f"total_steps={steps}"])
        trainer = Trainer(cfg, tmp_path / collector)
        before = _win_rate_vs_random(trainer)
        killer = None
        if collector == "ray":
            victim = worker_pids(trainer.collector)[1]

            def kill_after_first_update(t=trainer, pid=victim):
                while t.progress["updates"] < 2:
                    time.sleep(0.01)
                os.kill(pid, signal.SIGKILL)

            killer = threading.Thread(target=kill_after_first_update, daemon=True)
            killer.start()
        try:
            summary = trainer.train(log=lambda *a: None)
        finally:
            if collector == "ray":
                restarts = trainer.collector.restarts
            trainer.close()
        assert summary["steps"] >= steps and not summary["interrupted"]
        results[collector] = (before, _win_rate_vs_random(trainer))
    assert restarts >= 1  # the killed worker was replaced and the run finished its budget
    # seed=5 fixes the inline run; the Ray run differs only by its workers' timing and the kill. Both must
    # learn (a margin of several noise widths over the untrained net, not a bare threshold one seed may
    # miss), and Ray must learn about as much as the inline run with the same seed.
    for collector, (before, after) in results.items():
        assert after >= before + 0.05, (collector, before, after, results)
    assert results["ray"][1] >= results["inline"][1] - 0.08, results
