"""The trainer's exact NashConv of a network (``NetworkProbe``) is the figure ``allfours exploit --method exact``
gives its checkpoint: the same policy as ``NeuralAgent.policy`` tabulated one information set at a time."""

import numpy as np
import torch

from allfours.agents.exploitability.exact import NetworkProbe, exact_report
from allfours.agents.mini.response import tabulate
from allfours.agents.network import PolicyNet
from allfours.agents.players.neural import NeuralAgent
from allfours_env.cards import NUM_ACTIONS
from allfours_env.observation import OBS_SIZE


def test_the_probe_measures_what_exact_report_measures_of_the_agent():
    probe = NetworkProbe("mini2")
    for seed in (0, 1):
        torch.manual_seed(seed)
        net = PolicyNet(OBS_SIZE, NUM_ACTIONS, [32, 32], bf16=False)
        with torch.no_grad():  # a sharper policy than a fresh network's near-uniform one
            for p in net.parameters():
                p.mul_(4.0)
        agent = NeuralAgent(net, greedy=False)
        table, given = tabulate(agent, probe.tree)
        assert given
        assert np.abs(probe.policy(net) - table).max() < 1e-5
        report = exact_report(agent, "mini2", note=lambda *a: None)
        assert abs(probe.measure(net) - report["nash_conv"]) < 1e-4
        assert report["nash_conv"] > 0.1  # a random network is far from the equilibrium
