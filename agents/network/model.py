"""The policy/value network: one MLP shared by every seat over the observer-relative observation.

Illegal actions get a large finite negative logit (``MASK_VALUE``), never -inf: softmax gives
them probability exactly 0, log-probabilities stay finite, and the entropy, summed over legal
actions only, has no 0 * inf NaNs. With ``privileged`` > 0 the value head also reads hidden
information (every seat's hand) through its own small branch; the policy head never does, so
the policy needs only the observation at play time.

With ``bf16`` the trunk's matmuls run in bfloat16 (autocast: weights stay float32, products
accumulate in float32) on CPUs with AVX512-BF16/AMX, about four times faster than float32 for
the update; the heads, softmax and losses stay float32 so log-probability ratios stay exact
enough for PPO's clipping.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from . import symmetry

MASK_VALUE = -1e9
# Legal actions whose logit (log-probability) is within this of the best tie; the lowest action id
# among them is played. The averaged policy gives symmetric cards exactly equal probabilities, so
# without a tolerance the pick would fall to float rounding, which varies with the CPU's kernels and
# the batch a row sits in (on the bots' fingerprint positions, batching and 6 or 24 views move a
# log-probability by 8e-6 at most: tests/agents/test_bot_fingerprint.py).
TIE_TOLERANCE = 1e-4


def _layer(n_in: int, n_out: int, std: float = np.sqrt(2), bias: float = 0.0) -> nn.Linear:
    layer = nn.Linear(n_in, n_out)
    nn.init.orthogonal_(layer.weight, std)
    nn.init.constant_(layer.bias, bias)
    return layer


class PolicyNet(nn.Module):
    def __init__(self, obs_size: int, num_actions: int, hidden=(256, 256), privileged: int = 0,
                 priv_hidden: int = 64, bf16: bool = False, canonical: bool = False):
        super().__init__()
        self.canonical = bool(canonical)  # relabel suits so that trump is suit 0 (allfours.agents.network.symmetry)
        self._trump, self._turnup = symmetry.TRUMP_OFFSET, symmetry.TURNUP_OFFSET
        self._sym = None  # the suit relabellings for ``averaged``, built on first use
        if self.canonical:  # lookup tables, not weights: left out of the state dict
            self.register_buffer("src_obs", torch.from_numpy(symmetry.SRC_OBS), persistent=False)
            self.register_buffer("src_act", torch.from_numpy(symmetry.SRC_ACT), persistent=False)
            self.register_buffer("dst_act", torch.from_numpy(symmetry.DST_ACT), persistent=False)
            self.register_buffer("src_priv", torch.from_numpy(symmetry.SRC_PRIV), persistent=False)
        self.bf16 = bool(bf16) and bf16_supported()
        self.obs_size, self.num_actions = obs_size, num_actions
        self.hidden, self.privileged = list(hidden), privileged
        layers, n = [], obs_size
        for h in hidden:
            layers += [_layer(n, h), nn.ReLU()]
            n = h
        self.trunk = nn.Sequential(*layers)
        self.pi = _layer(n, num_actions, std=0.01)
        if privileged:
            self.priv = nn.Sequential(_layer(privileged, priv_hidden), nn.ReLU())
            self.v = nn.Sequential(_layer(n + priv_hidden, priv_hidden), nn.ReLU(), _layer(priv_hidden, 1, std=1.0))
        else:
            self.v = _layer(n, 1, std=1.0)

    def arch(self) -> dict:
        return {"obs_size": self.obs_size, "num_actions": self.num_actions, "hidden": self.hidden,
                "privileged": self.privileged, "canonical": self.canonical}

    @classmethod
    def from_arch(cls, arch: dict, bf16: bool = False) -> PolicyNet:
        return cls(arch["obs_size"], arch["num_actions"], arch["hidden"], arch.get("privileged", 0), bf16=bf16,
                   canonical=arch.get("canonical", False))

    def features(self, obs: torch.Tensor) -> torch.Tensor:
        """The trunk; in bfloat16 matmuls (fp32 weights and accumulation) when ``bf16`` is on."""
        if self.bf16:
            with torch.autocast("cpu", dtype=torch.bfloat16):
                return self.trunk(obs).float()
        return self.trunk(obs)

    def forward(self, obs: torch.Tensor, mask: torch.Tensor, priv: torch.Tensor | None = None,
                value: bool = True, canonical_input: bool = False):
        """(masked logits, value or None). ``mask`` is bool (B, num_actions), True = legal.

        Takes observations as ``encode`` writes them and returns logits by the game's action ids.
        A suit-canonical network relabels the suits itself (``allfours.agents.network.symmetry``, as torch gathers,
        so ONNX export works too); the trainer, which stores canonical rows already, passes
        ``canonical_input=True`` and gets logits by canonical action ids."""
        if self.canonical and not canonical_input:
            key = self._key(obs)
            obs = obs.gather(1, self.src_obs[key])
            mask = mask.gather(1, self.src_act[key])
            if priv is not None:
                priv = priv.gather(1, self.src_priv[key])
            logits, v = self._forward(obs, mask, priv, value)
            return logits.gather(1, self.dst_act[key]), v
        return self._forward(obs, mask, priv, value)

    def averaged(self, obs: torch.Tensor, mask: torch.Tensor, static: bool = False) -> torch.Tensor:
        """Log-probabilities averaged over the suit relabellings that leave the position unchanged
        (``allfours.agents.network.symmetry.SYM_*``: the non-trump suits permuted; every suit at the Yorkshire pitch),
        by the game's action ids, illegal actions at ``MASK_VALUE``.

        The game treats the non-trump suits alike but a trained network only approximately does;
        playing the geometric mean of its policies over the relabellings removes that noise (a
        test-time ensemble of 6 or 24 views in one batch), and the result is exactly symmetric.
        The tables list a keyed row's 6 views 4 times over (so every row has 24, a static gather
        for ONNX: ``static=True``); eagerly a keyed row runs its 6 distinct views only."""
        if self._sym is None:
            self._sym = tuple(torch.from_numpy(t) for t in (symmetry.SYM_OBS, symmetry.SYM_ACT, symmetry.SYM_DST))
        key = self._key(obs)
        every = self._sym[0].shape[1]
        if static:
            return self._average(obs, mask, key, every)
        keyed = key < symmetry.NO_KEY
        out = obs.new_empty(mask.shape)
        for rows, k in ((keyed, symmetry.SYM_DISTINCT), (~keyed, every)):
            if bool(rows.any()):
                out[rows] = self._average(obs[rows], mask[rows], key[rows], k)
        return out

    def _average(self, obs, mask, key, k: int) -> torch.Tensor:
        """``averaged`` over the first ``k`` relabellings of each row's key."""
        sym_obs, sym_act, sym_dst = (t[:, :k] for t in self._sym)
        b = obs.shape[0]
        views = obs.unsqueeze(1).expand(b, k, obs.shape[1]).gather(2, sym_obs[key])
        vmask = mask.unsqueeze(1).expand(b, k, mask.shape[1]).gather(2, sym_act[key])
        logits, _ = self.forward(views.reshape(b * k, -1), vmask.reshape(b * k, -1), value=False)
        logp = torch.log_softmax(logits.reshape(b, k, -1), dim=-1).gather(2, sym_dst[key]).mean(1)
        return logp.masked_fill(~mask, MASK_VALUE)

    def _key(self, obs: torch.Tensor) -> torch.Tensor:
        """``allfours.agents.network.symmetry.key_suits`` in torch: trump, else the turn-up's suit, else 4 (none)."""
        trump = obs[:, self._trump:self._trump + 5].argmax(1)
        turnup = obs[:, self._turnup:self._turnup + 52]
        up = torch.div(turnup.argmax(1), 13, rounding_mode="floor")
        return torch.where(trump < 4, trump, torch.where(turnup.sum(1) > 0, up, torch.full_like(up, 4)))

    def _forward(self, obs, mask, priv, value):
        h = self.features(obs)
        logits = self.pi(h).masked_fill(~mask, MASK_VALUE)
        if not value:
            return logits, None
        if self.privileged:
            if priv is None:
                raise ValueError("this network has a privileged critic: pass priv for its value")
            v = self.v(torch.cat([h, self.priv(priv)], dim=1))
        else:
            v = self.v(h)
        return logits, v.squeeze(-1)

    @torch.no_grad()
    def act(self, obs: torch.Tensor, mask: torch.Tensor, priv: torch.Tensor | None = None,
            generator: torch.Generator | None = None, greedy: bool = False, value: bool = True):
        """Sample (or argmax) a legal action per row: (actions, log-probs, values or None)."""
        logits, v = self.forward(obs, mask, priv, value=value)  # raw observations, game action ids
        logp_all = torch.log_softmax(logits, dim=-1)
        if greedy:
            actions = greedy_actions(logits, mask)
        else:
            actions = torch.multinomial(torch.softmax(logits, dim=-1), 1, generator=generator).squeeze(-1)
        return actions, logp_all.gather(1, actions[:, None]).squeeze(-1), v


def greedy_actions(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """The greedy legal action per row (int64): the lowest action id among the legal actions whose
    logit is within ``TIE_TOLERANCE`` of the row's best. ``logits`` (B, A) may be raw, masked or
    log-probabilities (a row's constant shift changes nothing); ``mask`` is bool, True = legal."""
    logits = logits.float().masked_fill(~mask, -torch.inf)
    best = logits.max(dim=-1, keepdim=True).values
    ids = torch.arange(logits.shape[-1], device=logits.device).expand_as(logits)
    near = mask & (logits >= best - TIE_TOLERANCE)
    return torch.where(near, ids, torch.full_like(ids, logits.shape[-1])).min(dim=-1).values


_BF16: bool | None = None


def bf16_supported() -> bool:
    """True where bfloat16 matmuls are fast on this CPU (AVX512-BF16 or AMX, through oneDNN)."""
    global _BF16
    if _BF16 is None:
        try:
            _BF16 = bool(torch.backends.mkldnn.is_available() and torch.ops.mkldnn._is_mkldnn_bf16_supported())
        except (AttributeError, RuntimeError):
            _BF16 = False
    return _BF16


def masked_stats(logits: torch.Tensor, mask: torch.Tensor, actions: torch.Tensor):
    """(log-prob of ``actions``, entropy over the legal actions) for masked logits."""
    logp_all = torch.log_softmax(logits, dim=-1)
    p = torch.softmax(logits, dim=-1)  # not logp_all.exp(): exp of -1e9 takes a slow path
    entropy = -torch.where(mask, p * logp_all, torch.zeros_like(p)).sum(-1)
    return logp_all.gather(1, actions[:, None]).squeeze(-1), entropy
