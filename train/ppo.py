"""The PPO update, CleanRL style: clipped policy loss, clipped value loss, entropy bonus over the
legal actions, per-minibatch advantage normalisation, global gradient-norm clipping; and, for the
equilibrium-seeking recipe, magnetic mirror descent's pull (Sokota et al. 2023): ``magnet_coef`` times the
reverse KL from the policy to a magnet policy (``train.magnet``; a uniform magnet makes it an entropy bonus).

The rollout already carries advantages and returns (``train.rollout.gae``); this file only
turns a ``Rollout`` into gradient steps and returns the usual diagnostics.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from allfours.agents.network import PolicyNet, masked_stats

from .rollout import Rollout


def explained_variance(pred: np.ndarray, target: np.ndarray) -> float:
    var = np.var(target)
    return float("nan") if var == 0 else float(1 - np.var(target - pred) / var)


def kl_to_magnet(logits: torch.Tensor, mask: torch.Tensor, magnet_logits: torch.Tensor | None) -> torch.Tensor:
    """Per row, KL(policy || magnet) over the legal actions: sum_a pi(a) (log pi(a) - log rho(a)). A magnet of
    None is uniform over the legal actions (the KL is then log(#legal) minus the policy's entropy)."""
    logp = torch.log_softmax(logits, dim=-1)
    p = torch.softmax(logits, dim=-1)
    if magnet_logits is None:
        log_rho = -torch.log(mask.sum(-1, keepdim=True).to(logp.dtype)).expand_as(logp)
    else:
        log_rho = torch.log_softmax(magnet_logits, dim=-1)
    return torch.where(mask, p * (logp - log_rho), torch.zeros_like(p)).sum(-1)


def ppo_update(net: PolicyNet, optimizer: torch.optim.Optimizer, batch: Rollout, *, epochs: int,
               minibatch_size: int, clip_coef: float, ent_coef: float, vf_coef: float, max_grad_norm: float,
               clip_vloss: bool = True, norm_adv: bool = True, target_kl: float = 0.0,
               generator: torch.Generator | None = None, magnet_coef: float = 0.0,
               magnet: PolicyNet | None = None) -> dict:
    """Gradient steps on ``batch``; with ``magnet_coef`` > 0 the loss adds ``magnet_coef`` times
    ``kl_to_magnet`` (the ``magnet`` network's policy, or uniform when it is None)."""
    n = len(batch.actions)
    obs = torch.from_numpy(batch.obs)
    if net.bf16:  # the trunk casts its input to bfloat16 anyway: do it once, and gather half the bytes
        obs = obs.to(torch.bfloat16)
    mask = torch.from_numpy(batch.mask)
    priv = torch.from_numpy(batch.priv) if batch.priv is not None else None
    actions = torch.from_numpy(batch.actions)
    old_logp = torch.from_numpy(batch.logp)
    old_values = torch.from_numpy(batch.values)
    advantages = torch.from_numpy(batch.advantages)
    returns = torch.from_numpy(batch.returns)
    n_mb = max(1, round(n / minibatch_size))  # minibatches per epoch; every sample used
    mb = n // n_mb
    sums = {"policy_loss": 0.0, "value_loss": 0.0, "entropy": 0.0, "approx_kl": 0.0, "old_approx_kl": 0.0,
            "clipfrac": 0.0, "grad_norm": 0.0, "magnet_kl": 0.0}
    steps = 0
    approx_kl = torch.zeros(())
    net.train()
    for _epoch in range(epochs):
        perm = torch.randperm(n, generator=generator)
        for start in range(0, n_mb * mb, mb):
            idx = perm[start:start + mb]
            m = mask[idx]
            logits, new_values = net(obs[idx], m, priv[idx] if priv is not None else None, canonical_input=True)
            new_logp, entropy = masked_stats(logits, m, actions[idx])
            logratio = new_logp - old_logp[idx]
            ratio = logratio.exp()
            with torch.no_grad():
                old_approx_kl = (-logratio).mean()
                approx_kl = ((ratio - 1) - logratio).mean()
                clipfrac = ((ratio - 1.0).abs() > clip_coef).float().mean()
            adv = advantages[idx]
            if norm_adv:
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
            pg_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - clip_coef, 1 + clip_coef)).mean()
            ret = returns[idx]
            if clip_vloss:
                v_old = old_values[idx]
                v_clipped = v_old + (new_values - v_old).clamp(-clip_coef, clip_coef)
                v_loss = 0.5 * torch.max((new_values - ret) ** 2, (v_clipped - ret) ** 2).mean()
            else:
                v_loss = 0.5 * ((new_values - ret) ** 2).mean()
            ent = entropy.mean()
            loss = pg_loss - ent_coef * ent + vf_coef * v_loss
            mkl = torch.zeros(())
            if magnet_coef > 0:
                magnet_logits = None
                if magnet is not None:
                    with torch.no_grad():
                        magnet_logits, _ = magnet(obs[idx], m, value=False, canonical_input=True)
                mkl = kl_to_magnet(logits, m, magnet_logits).mean()
                loss = loss + magnet_coef * mkl
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            gn = nn.utils.clip_grad_norm_(net.parameters(), max_grad_norm)
            optimizer.step()
            steps += 1
            for name, v in (("policy_loss", pg_loss), ("value_loss", v_loss), ("entropy", ent),
                         ("approx_kl", approx_kl), ("old_approx_kl", old_approx_kl), ("clipfrac", clipfrac),
                         ("grad_norm", gn), ("magnet_kl", mkl)):
                sums[name] += float(v.detach())
        if target_kl and float(approx_kl) > target_kl:
            break
    net.eval()
    out = {k: v / max(steps, 1) for k, v in sums.items()}
    out["explained_variance"] = explained_variance(batch.values, batch.returns)
    out["gradient_steps"] = steps
    return out
