"""The policy/value network: one MLP shared by every seat over the observer-relative observation.

Illegal actions get a large finite negative logit (``MASK_VALUE``), never -inf: softmax gives
them probability exactly 0, log-probabilities stay finite, and the entropy, summed over legal
actions only, has no 0 * inf NaNs. With ``privileged`` > 0 the value head also reads hidden
information (every seat's hand) through its own small branch; the policy head never does, so
the policy needs only the observation at play time.

A network keeps the widths it was trained with (``ENCODINGS``): one of observation encoding 1 reads
``V1_SIZE`` columns and has All Fours' 57 actions. Fed today's observations and masks (``OBS_SIZE``
and ``NUM_ACTIONS`` wide) it reads their first ``V1_SIZE`` columns, which are encoding 1's exactly,
and its first 57 mask columns, and its logits and log-probabilities come back ``NUM_ACTIONS`` wide,
the actions it lacks at ``MASK_VALUE`` (probability 0). A legal action outside its head (a bid) is
refused: it cannot choose one.

With ``bf16`` the trunk's matmuls run in bfloat16 (autocast: weights stay float32, products
accumulate in float32) on CPUs with AVX512-BF16/AMX, about four times faster than float32 for
the update; the heads, softmax and losses stay float32 so log-probability ratios stay exact
enough for PPO's clipping.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from allfours_env import ENCODING_VERSION, OBS_SIZE, action_name
from allfours_env.cards import ALL_FOURS_ACTIONS, NUM_ACTIONS
from allfours_env.observation import V1_SIZE

from . import symmetry

MASK_VALUE = -1e9
# Legal actions whose logit (log-probability) is within this of the best tie; the lowest action id
# among them is played. The averaged policy gives symmetric cards exactly equal probabilities, so
# without a tolerance the pick would fall to float rounding, which varies with the CPU's kernels and
# the batch a row sits in (on the bots' fingerprint positions, batching and 6 or 24 views move a
# log-probability by 8e-6 at most: tests/agents/test_bot_fingerprint.py).
TIE_TOLERANCE = 1e-4
ENCODINGS = {1: (V1_SIZE, ALL_FOURS_ACTIONS), ENCODING_VERSION: (OBS_SIZE, NUM_ACTIONS)}
"""Observation encoding version -> (observation columns, actions) of a network trained on it. Version 2
appended columns and action ids to version 1's, so a version-1 network reads a prefix of both."""


def encoding_of(obs_size: int, num_actions: int) -> int | None:
    """The encoding version of a network of these widths (``ENCODINGS``), or None for none."""
    return next((v for v, widths in ENCODINGS.items() if widths == (obs_size, num_actions)), None)


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
        self.obs_size, self.num_actions = obs_size, num_actions
        if self.canonical:  # lookup tables, not weights: left out of the state dict
            # at the network's own widths: the relabellings keep encoding 1's columns and actions among themselves
            self.register_buffer("src_obs", torch.from_numpy(symmetry.SRC_OBS[:, :obs_size].copy()), persistent=False)
            self.register_buffer("src_act", torch.from_numpy(symmetry.SRC_ACT[:, :num_actions].copy()),
                                 persistent=False)
            self.register_buffer("dst_act", torch.from_numpy(symmetry.DST_ACT[:, :num_actions].copy()),
                                 persistent=False)
            self.register_buffer("src_priv", torch.from_numpy(symmetry.SRC_PRIV), persistent=False)
        self.bf16 = bool(bf16) and bf16_supported()
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

    @property
    def encoding_version(self) -> int | None:
        """The observation encoding the network was built for (``ENCODINGS``), None if its widths are no version's."""
        return encoding_of(self.obs_size, self.num_actions)

    def _fit(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, int]:
        """``obs`` and ``mask`` cut to the network's own widths, and how many action columns to pad its
        outputs with. Wider inputs are taken only as a prefix: an encoding-1 network (``V1_SIZE`` columns,
        ``ALL_FOURS_ACTIONS`` actions) fed today's ``OBS_SIZE`` and ``NUM_ACTIONS``; ValueError otherwise,
        and for a legal action its head does not have."""
        width, actions = obs.shape[-1], mask.shape[-1]
        if width != self.obs_size:
            if (self.obs_size, width) != (V1_SIZE, OBS_SIZE):
                raise ValueError(f"observations of {width} columns for a network that reads {self.obs_size} "
                                 f"(encoding version {ENCODING_VERSION} has {OBS_SIZE}; version 1, a prefix, "
                                 f"{V1_SIZE})")
            obs = obs[..., :V1_SIZE]
        if actions != self.num_actions:
            if (self.num_actions, actions) != (ALL_FOURS_ACTIONS, NUM_ACTIONS):
                raise ValueError(f"an action mask of {actions} columns for a network of {self.num_actions} actions "
                                 f"(encoding version {ENCODING_VERSION} has {NUM_ACTIONS}; version 1, a prefix, "
                                 f"{ALL_FOURS_ACTIONS})")
            if not _tracing():  # an exported graph holds no check: the card says which actions it has
                beyond = mask[..., ALL_FOURS_ACTIONS:].nonzero()
                if len(beyond):
                    raise ValueError(f"a network of All Fours' {ALL_FOURS_ACTIONS} actions (encoding version 1) "
                                     f"cannot choose {action_name(ALL_FOURS_ACTIONS + int(beyond[0, -1]))}, legal "
                                     "here: it plays the All Fours presets only")
            mask = mask[..., :ALL_FOURS_ACTIONS]
        return obs, mask, actions - self.num_actions

    @staticmethod
    def _pad(out: torch.Tensor, extra: int) -> torch.Tensor:
        """``out`` (B, num_actions) with ``extra`` more columns at ``MASK_VALUE``: by every action id of today."""
        return F.pad(out, (0, extra), value=MASK_VALUE) if extra else out

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
        ``canonical_input=True`` and gets logits by canonical action ids. Inputs wider than the network
        (an encoding-1 network fed today's): see the module doc; the logits are as wide as ``mask``."""
        obs, mask, extra = self._fit(obs, mask)
        if self.canonical and not canonical_input:
            key = self._key(obs)
            obs = obs.gather(1, self.src_obs[key])
            mask = mask.gather(1, self.src_act[key])
            if priv is not None:
                priv = priv.gather(1, self.src_priv[key])
            logits, v = self._forward(obs, mask, priv, value)
            return self._pad(logits.gather(1, self.dst_act[key]), extra), v
        logits, v = self._forward(obs, mask, priv, value)
        return self._pad(logits, extra), v

    def averaged(self, obs: torch.Tensor, mask: torch.Tensor, static: bool = False) -> torch.Tensor:
        """Log-probabilities averaged over the suit relabellings that leave the position unchanged
        (``allfours.agents.network.symmetry.SYM_*``: the non-trump suits permuted; every suit at the Yorkshire pitch),
        by the game's action ids, illegal actions at ``MASK_VALUE``.

        The game treats the non-trump suits alike but a trained network only approximately does;
        playing the geometric mean of its policies over the relabellings removes that noise (a
        test-time ensemble of 6 or 24 views in one batch), and the result is exactly symmetric.
        The tables list a keyed row's 6 views 4 times over (so every row has 24, a static gather
        for ONNX: ``static=True``); eagerly a keyed row runs its 6 distinct views only. As wide as ``mask``
        (``forward``)."""
        obs, mask, extra = self._fit(obs, mask)
        if self._sym is None:  # at the network's own widths, as ``src_obs``
            self._sym = tuple(torch.from_numpy(t[..., :n].copy()) for t, n in (
                (symmetry.SYM_OBS, self.obs_size), (symmetry.SYM_ACT, self.num_actions),
                (symmetry.SYM_DST, self.num_actions)))
        key = self._key(obs)
        every = self._sym[0].shape[1]
        if static:
            return self._pad(self._average(obs, mask, key, every), extra)
        keyed = key < symmetry.NO_KEY
        out = obs.new_empty(mask.shape)
        for rows, k in ((keyed, symmetry.SYM_DISTINCT), (~keyed, every)):
            if bool(rows.any()):
                out[rows] = self._average(obs[rows], mask[rows], key[rows], k)
        return self._pad(out, extra)

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


def _tracing() -> bool:
    """Is torch tracing or compiling the network (an ONNX export) rather than running it?"""
    return torch.jit.is_tracing() or torch.compiler.is_compiling()


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
