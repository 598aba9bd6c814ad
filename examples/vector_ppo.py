"""Self-play PPO on the batched engine, in the style of CleanRL's ppo.py: one file, torch, no trainer.

    python examples/vector_ppo.py                                   # seven_up, 256 games, 40 updates
    python examples/vector_ppo.py --preset traditional --players 2 --reward match --updates 80

One masked policy plays every seat. On each step every game makes one decision, by whichever
seat is to move: the transition is that seat's, and its reward is what the seat receives until
its own next decision (a hand's points, by default, or a match's +-1 reach every seat's latest
transition). GAE runs along each (game, seat) chain of transitions; at the end of a rollout a
chain is bootstrapped with the value of the seat's current observation. Every ``--eval-every``
updates the policy (greedy) plays ``--eval-games`` matches as side 0 against uniformly random
play and prints its win rate: in zero-sum self-play the mean return is 0, so that is the
measure of progress. A small example of the VectorEnv API, not the project's trainer
(``allfours train``).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch
from torch import nn

from allfours_env.cards import NUM_ACTIONS
from allfours_env.observation import OBS_SIZE
from allfours_env.vector import VectorEnv


class Agent(nn.Module):
    def __init__(self, hidden: int = 128):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(OBS_SIZE, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh())
        self.policy = nn.Linear(hidden, NUM_ACTIONS)
        self.value = nn.Linear(hidden, 1)

    def forward(self, obs: torch.Tensor, mask: torch.Tensor):
        h = self.body(obs)
        logits = self.policy(h).masked_fill(~mask, -1e9)  # illegal actions get no probability
        return torch.distributions.Categorical(logits=logits), self.value(h).squeeze(-1)


def evaluate(agent: Agent, preset: str, options: dict, games: int, seed: int) -> float:
    """Win rate of the greedy policy as side 0 against random legal play, one match per game."""
    vec = VectorEnv(preset, games, **options)
    rng = np.random.default_rng(seed)
    obs, mask, seat = vec.reset(seed=seed)
    learner = np.array([vec.rules.side(s) == 0 for s in range(vec.players)])
    result = np.full(games, np.nan)
    while np.isnan(result).any():
        with torch.no_grad():
            logits = agent.policy(agent.body(torch.from_numpy(obs))).masked_fill(~torch.from_numpy(mask), -1e9)
        actions = np.where(learner[seat], logits.argmax(1).numpy(), vec.random_actions(rng))
        obs, mask, seat, _, terminated, info = vec.step(actions)
        first = terminated & np.isnan(result)
        result[first] = info["winner"][first] == 0
    return float(result.mean())


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--preset", default="seven_up")
    p.add_argument("--players", type=int, default=None)
    p.add_argument("--reward", choices=("match", "points"), default="points",
                   help="points (default): a reward at every hand; match: +-1 at the end")
    p.add_argument("--num-envs", type=int, default=256)
    p.add_argument("--num-steps", type=int, default=32, help="steps per rollout (each a decision in every game)")
    p.add_argument("--updates", type=int, default=40)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--minibatches", type=int, default=4)
    p.add_argument("--lr", type=float, default=2.5e-4)
    p.add_argument("--gamma", type=float, default=1.0, help="no discount: a match is won or lost")
    p.add_argument("--gae-lambda", type=float, default=0.95)
    p.add_argument("--clip", type=float, default=0.2)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--vf-coef", type=float, default=0.5)
    p.add_argument("--eval-every", type=int, default=10)
    p.add_argument("--eval-games", type=int, default=400)
    p.add_argument("--threads", type=int, default=1, help="torch threads (one: the env shares the core)")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    options = {"reward": args.reward} | ({} if args.players is None else {"players": args.players})
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)

    vec = VectorEnv(args.preset, args.num_envs, **options)
    n, num, steps = vec.players, args.num_envs, args.num_steps
    agent = Agent()
    opt = torch.optim.Adam(agent.parameters(), lr=args.lr, eps=1e-5)
    obs_buf = torch.zeros((steps, num, OBS_SIZE))
    mask_buf = torch.zeros((steps, num, NUM_ACTIONS), dtype=torch.bool)
    act_buf = torch.zeros((steps, num), dtype=torch.long)
    logp_buf, val_buf = torch.zeros((steps, num)), torch.zeros((steps, num))
    rew_buf, done_buf = np.zeros((steps, num), np.float32), np.zeros((steps, num), np.float32)
    seat_buf = np.zeros((steps, num), np.int64)
    rows = np.arange(num)
    print(f"vector_ppo: {args.preset} {options or ''} {num} games x {steps} steps per update, {args.updates} updates")
    print(f"update {0:>3}: win rate vs random {evaluate(agent, args.preset, options, args.eval_games, 1):.3f}")

    obs, mask, seat = vec.reset(seed=args.seed)
    start, matches = time.time(), 0
    for update in range(1, args.updates + 1):
        last = np.full((num, n), -1)  # each seat's latest transition in this rollout
        rew_buf[:] = 0
        done_buf[:] = 0
        for t in range(steps):
            obs_t, mask_t = torch.from_numpy(obs), torch.from_numpy(mask)
            with torch.no_grad():
                dist, value = agent(obs_t, mask_t)
                action = dist.sample()
            obs_buf[t], mask_buf[t], act_buf[t] = obs_t, mask_t, action
            logp_buf[t], val_buf[t] = dist.log_prob(action), value
            seat_buf[t] = seat
            last[rows, seat] = t
            obs, mask, seat, rewards, terminated, _ = vec.step(action.numpy())
            have = last >= 0  # rewards go to each seat's latest transition
            g, s = np.nonzero(have)
            rew_buf[last[g, s], g] += rewards[g, s]
            ended = terminated[:, None] & have
            g, s = np.nonzero(ended)
            done_buf[last[g, s], g] = 1.0
            last[terminated] = -1
            matches += int(terminated.sum())

        # GAE along each (game, seat) chain, bootstrapped with the value of each seat's view now.
        with torch.no_grad():
            boot = np.stack([agent(torch.from_numpy(vec.observe(np.full(num, s))), torch.ones(num, NUM_ACTIONS,
                            dtype=torch.bool))[1].numpy() for s in range(n)], 1)
        values = val_buf.numpy()
        next_v, next_adv = boot, np.zeros((num, n), np.float32)
        adv = np.zeros((steps, num), np.float32)
        for t in reversed(range(steps)):
            s = seat_buf[t]
            keep = 1.0 - done_buf[t]
            delta = rew_buf[t] + args.gamma * next_v[rows, s] * keep - values[t]
            adv[t] = delta + args.gamma * args.gae_lambda * keep * next_adv[rows, s]
            next_v[rows, s], next_adv[rows, s] = values[t], adv[t]
        advantages = torch.from_numpy(adv).reshape(-1)
        returns = advantages + val_buf.reshape(-1)

        b_obs, b_mask = obs_buf.reshape(-1, OBS_SIZE), mask_buf.reshape(-1, NUM_ACTIONS)
        b_act, b_logp = act_buf.reshape(-1), logp_buf.reshape(-1)
        size = steps * num
        mb = size // args.minibatches
        for _ in range(args.epochs):
            perm = torch.randperm(size)
            for k in range(0, size, mb):
                i = perm[k:k + mb]
                dist, value = agent(b_obs[i], b_mask[i])
                ratio = (dist.log_prob(b_act[i]) - b_logp[i]).exp()
                a = advantages[i]
                a = (a - a.mean()) / (a.std() + 1e-8)
                pg = torch.max(-a * ratio, -a * ratio.clamp(1 - args.clip, 1 + args.clip)).mean()
                v_loss = 0.5 * ((value - returns[i]) ** 2).mean()
                entropy = dist.entropy().mean()
                loss = pg + args.vf_coef * v_loss - args.ent_coef * entropy
                opt.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
                opt.step()
        sps = update * size / (time.time() - start)
        line = (f"update {update:>3}: {sps:,.0f} decisions/s, {matches} matches, policy loss {pg.item():+.3f}, "
                f"value loss {v_loss.item():.3f}, entropy {entropy.item():.3f}")
        if update % args.eval_every == 0 or update == args.updates:
            line += f", win rate vs random {evaluate(agent, args.preset, options, args.eval_games, 1):.3f}"
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
