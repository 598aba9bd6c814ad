"""Every training hyperparameter in one dataclass; YAML presets under configs/ and key=value overrides.

    cfg = load_config("configs/yorkshire.yaml", ["lr=1e-4", "rules.target=7"])

A YAML file holds a mapping of field names (a subset of ``TrainConfig``); ``base: other.yaml``
inherits another file (paths relative to the file). Unknown keys, in a file or on the command
line, are a ``ValueError`` naming the key and the closest valid ones. So is a key naming an agent
(``eval_opponents``, ``scripted_opponents``, ``search_opponent``, ``best_metric``) that names none:
a misspelt opponent stops the run before it starts, never silently leaves it out.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path
from typing import Any

import yaml

from allfours.agents.evaluation import seatings
from allfours.agents.registry import check_spec, unbatchable
from allfours.agents.search.equity import EQUITY_MAX_TARGET, equity_for_rules
from allfours_env.rules import MINI_PRESETS, make_rules, parse_rule_options

from .magnet import MAGNETS

DEFAULT_CONFIG = "yorkshire"


def configs_dir() -> Path:
    """The folder of the training configs, ``<name>.yaml``: package data (``allfours.configs``)."""
    return Path(str(files("allfours.configs")))


def config_names() -> list[str]:
    return sorted(p.stem for p in configs_dir().glob("*.yaml"))


@dataclass
class TrainConfig:
    # ---- game
    preset: str = "yorkshire"
    rules: dict = field(default_factory=dict)  # rule options: players, target, must_follow_suit, throw_in, ...
    # ---- run
    seed: int = 1
    run_name: str = ""  # default: <preset>-<timestamp>
    runs_dir: str = "runs"
    max_minutes: float = 60.0  # wall-clock budget, start-up and final evaluation in (0 = none); counts across resumes
    total_steps: int = 0  # decision budget (0 = none); the run stops at whichever budget ends first
    init_from: str = ""  # start from these weights: a checkpoint file, run folder (its best.pt) or bot:<name>
    torch_threads: int = 1  # threads for the PPO update (2 fight each other when the other core is busy)
    rollout_threads: int = 1  # threads for inference while collecting (small batches: 1 avoids thread fights)
    # ---- collection
    collector: str = "process"  # "process": a worker process collects during the update; "inline": all here;
    # "ray": `workers` Ray actors share the num_envs games (allfours.train.ray_workers, pip install ".[ray]")
    workers: int = 2  # Ray rollout actors (collector: ray)
    ray_address: str = ""  # Ray cluster to join ("auto", "ray://host:10001"); "" starts a local Ray
    ray_cpus_per_worker: float = 1.0
    num_envs: int = 512  # games stepped in lockstep
    engine: str = "auto"  # "vector": the games as arrays (allfours_env.vector, allfours.train.array_rollout); "scalar":
    # GameState objects (any scripted opponent, the privileged critic); "auto": vector where it can run them
    rollout_steps: int = 32  # lockstep steps per rollout (decisions per rollout = num_envs * rollout_steps)
    # ---- network
    hidden: list = field(default_factory=lambda: [256, 256])
    privileged_critic: bool = False  # the value head also sees every seat's hand while training
    canonical_suits: bool = True  # relabel suits so trump is always suit 0 (allfours.agents.network.symmetry)
    suit_jitter: bool = False  # ... and the other three in a random order per sample (augmentation)
    bf16: bool = True  # bfloat16 matmuls in the trunk where the CPU has AVX512-BF16/AMX (else float32)
    # ---- PPO
    lr: float = 1e-3
    lr_final: float = 5e-5  # linear decay towards this over the budget (= lr: constant)
    adam_eps: float = 1e-5
    gamma: float = 1.0
    gae_lambda: float = 0.95
    hand_lambda: float = 1.0  # extra factor on the GAE trace across the end of a hand (0: each hand's own)
    update_epochs: int = 2
    minibatch_size: int = 1024
    clip_coef: float = 0.2
    clip_coef_final: float = 0.0  # linear schedule like lr (0 = clip_coef throughout)
    clip_vloss: bool = True
    norm_adv: bool = True
    ent_coef: float = 0.01
    ent_coef_final: float = 0.002  # linear schedule like lr
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    target_kl: float = 0.0  # stop the epochs of an update early past this approx KL (0 = never)
    # ---- the equilibrium-seeking recipe (docs/training.md): magnetic mirror descent's pull towards a magnet
    magnet_coef: float = 0.0  # weight of KL(policy || magnet) in the loss (0 = off: the classic recipe)
    magnet_coef_final: float = 0.0  # linear schedule like lr (equal to magnet_coef: constant)
    magnet: str = "ema"  # how the magnet moves (allfours.train.magnet): "uniform" (never), "ema", "copy"
    magnet_tau: float = 0.01  # ema: the share of the way to the learner's weights the magnet moves each update
    magnet_every: int = 100  # copy: updates between the magnet's replacements by the learner's weights
    # ---- rewards
    points_reward: float = 0.1  # shaping: scale of (own side's points - others') each time points are scored
    points_reward_final: float = 0.02  # linear schedule; the match result (+1/-1) is always the main reward
    # weight w of match-equity shaping: each time the score moves, a side gets w times the change of
    # its match equity (2 P(win) - 1, allfours.agents.search.equity) and the result keeps 1 - w; the return of a
    # match is then its result minus w times the equity at its start (potential-based: same optimum)
    equity_reward: float = 0.0
    # ---- opponent pool (shares of games; normalised)
    opp_latest: float = 0.45  # every seat plays the current policy
    opp_snapshot: float = 0.15  # the other side plays a frozen past policy from the pool
    opp_scripted: float = 0.4  # the other side plays a scripted baseline
    scripted_opponents: list = field(default_factory=lambda: ["heuristic"])
    snapshot_every: int = 25  # updates between pool snapshots
    pool_size: int = 16  # snapshots kept (oldest dropped, the first is kept)
    snapshot_slots: int = 2  # snapshots active in one rollout (each costs one forward per step)
    # ---- evaluation, logging, checkpoints
    eval_every_minutes: float = 6.0  # 0 = never
    exact_every_minutes: float = 0.0  # a mini preset: NashConv measured exactly this often (0 = never); best.pt
    # is then the lowest measured
    eval_matches: int = 400  # each deal is played once per seating (2 matches; 3 with three players)
    eval_seed: int = 0  # the same deals at every evaluation (as `allfours eval --seed`), so curves compare
    eval_opponents: list = field(default_factory=lambda: ["random", "heuristic"])
    search_eval_every: int = 5  # every k-th evaluation also plays search_opponent (0 = never)
    search_eval_matches: int = 10
    search_opponent: str = "search"  # agent spec, e.g. "search:worlds=8" for a cheaper one
    best_metric: str = "heuristic"  # best.pt = highest win rate against this opponent
    log_every_updates: int = 1
    checkpoint_every_minutes: float = 2.0
    checkpoint_every_updates: int = 0  # 0 = by time only
    keep_at_steps: list = field(default_factory=list)  # also keep steps_<N>.pt once N decisions are passed
    progress_bar: bool = True

    # ------------------------------------------------------------------
    def validate(self) -> TrainConfig:
        """Check every value (ValueError, one line, on the first bad one), each agent the config names without
        building it (``check_spec``); once per set of values: a config validated and not changed since is not
        checked again."""
        if self.is_validated():
            return self
        rules = make_rules(self.preset, **self.rules)  # ValueError on a bad preset or option
        pos_int = ("num_envs", "rollout_steps", "update_epochs", "minibatch_size", "pool_size", "torch_threads",
                   "rollout_threads", "snapshot_every", "workers", "log_every_updates", "eval_matches")
        for name in pos_int:
            if getattr(self, name) < 1:
                raise ValueError(f"config {name} must be >= 1, got {getattr(self, name)}")
        if not self.hidden or any(not isinstance(h, int) or h < 1 for h in self.hidden):
            raise ValueError(f"config hidden must be a list of positive ints, got {self.hidden!r}")
        if self.collector not in ("inline", "process", "ray"):
            raise ValueError(f"config collector must be 'inline', 'process' or 'ray', got {self.collector!r}")
        if self.engine not in ("auto", "vector", "scalar"):
            raise ValueError(f"config engine must be 'auto', 'vector' or 'scalar', got {self.engine!r}")
        if self.collector == "ray" and self.workers > self.num_envs:
            raise ValueError(f"config workers ({self.workers}) cannot exceed num_envs ({self.num_envs})")
        shares = (self.opp_latest, self.opp_snapshot, self.opp_scripted)
        if min(shares) < 0 or sum(shares) <= 0:
            raise ValueError(f"opponent shares must be >= 0 and not all 0, got {shares}")
        if self.opp_scripted > 0 and not self.scripted_opponents:
            raise ValueError("opp_scripted > 0 needs at least one entry in scripted_opponents")
        for name in ("lr", "gamma", "gae_lambda", "clip_coef"):
            if not 0 < getattr(self, name) <= 1:
                raise ValueError(f"config {name} must be in (0, 1], got {getattr(self, name)}")
        if not 0 <= self.clip_coef_final <= 1:
            raise ValueError(f"config clip_coef_final must be in [0, 1] (0: clip_coef throughout), got "
                             f"{self.clip_coef_final}")
        if self.magnet_coef < 0 or self.magnet_coef_final < 0:
            raise ValueError(f"config magnet_coef and magnet_coef_final must be >= 0, got {self.magnet_coef}, "
                             f"{self.magnet_coef_final}")
        if self.magnet not in MAGNETS:
            raise ValueError(f"config magnet must be one of {', '.join(MAGNETS)}, got {self.magnet!r}")
        if not 0 < self.magnet_tau <= 1:
            raise ValueError(f"config magnet_tau must be in (0, 1], got {self.magnet_tau}")
        if self.magnet_every < 1:
            raise ValueError(f"config magnet_every must be >= 1, got {self.magnet_every}")
        if self.exact_every_minutes < 0:
            raise ValueError(f"config exact_every_minutes must be >= 0, got {self.exact_every_minutes}")
        if self.exact_every_minutes > 0 and self.preset not in MINI_PRESETS:
            raise ValueError(f"config exact_every_minutes: only a mini preset ({', '.join(MINI_PRESETS)}) is "
                             f"measured exactly, not {self.preset!r}: set it to 0")
        if not 0 <= self.hand_lambda <= 1:
            raise ValueError(f"config hand_lambda must be in [0, 1], got {self.hand_lambda}")
        if not 0 <= self.equity_reward <= 1:
            raise ValueError(f"config equity_reward must be in [0, 1], got {self.equity_reward}")
        if self.equity_reward:
            if rules.reward != "match" or equity_for_rules(rules) is None:
                raise ValueError("config equity_reward needs two sides playing whole matches to a target of at "
                                 f"most {EQUITY_MAX_TARGET} with the match reward (rules reward: match, episode: "
                                 "match), got "
                                 f"{rules.players} players, target {rules.target}, reward {rules.reward!r}, "
                                 f"episode {rules.episode!r}")
        if any(not isinstance(n, int) or isinstance(n, bool) or n < 1 for n in self.keep_at_steps):
            raise ValueError(f"config keep_at_steps must be a list of positive ints, got {self.keep_at_steps!r}")
        if self.max_minutes < 0 or self.total_steps < 0:
            raise ValueError("max_minutes and total_steps must be >= 0")
        if self.suit_jitter and not self.canonical_suits:
            raise ValueError("config suit_jitter needs canonical_suits: true (it orders the suits after trump)")
        if self.preset in MINI_PRESETS and self.eval_every_minutes > 0:
            raise ValueError(f"config preset {self.preset}: a mini preset is one hand, measured exactly (allfours "
                             f"exploit --method exact --preset {self.preset} --bot <checkpoint>), not by evaluation "
                             "matches: set eval_every_minutes: 0 (configs/mini2.yaml does)")
        self._validate_opponents(rules.players, rules.partnerships)
        if self.engine == "vector":
            if self.privileged_critic:
                raise ValueError("config engine vector has no privileged critic: use engine: scalar (or auto)")
            slow = unbatchable(self.scripted_opponents, rules) if self.opp_scripted > 0 else []
            if slow:
                raise ValueError(f"config engine vector: scripted opponent(s) {', '.join(map(repr, slow))} have no "
                                 "batched form (heuristic, random and networks have): use engine: scalar (or auto)")
        self._validated = self._values()
        return self

    def scheduled(self, fraction: float) -> dict[str, float]:
        """The values that move over the budget, at ``fraction`` (0 to 1) of it: learning rate, entropy
        coefficient, points shaping, clip and the magnet's weight, each linearly from its start to its final value."""
        ends = {"lr": (self.lr, self.lr_final), "ent_coef": (self.ent_coef, self.ent_coef_final),
                "points_reward": (self.points_reward, self.points_reward_final),
                "clip_coef": (self.clip_coef, self.clip_coef_final or self.clip_coef),
                "magnet_coef": (self.magnet_coef, self.magnet_coef_final)}
        return {k: start + (end - start) * fraction for k, (start, end) in ends.items()}

    def is_validated(self) -> bool:
        """Whether ``validate`` passed on exactly the values the config holds now."""
        return getattr(self, "_validated", None) == self._values()

    def _values(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True, default=repr)

    def _validate_opponents(self, players: int, partnerships: bool) -> None:
        """Every key naming agents names real ones, and evaluations fill whole duplicate groups."""
        for key in ("eval_opponents", "scripted_opponents"):
            specs = getattr(self, key)
            for spec in specs:
                _check_agent(key, spec, self.preset, players)
            twice = sorted({s for s in specs if specs.count(s) > 1})
            if twice:
                raise ValueError(f"config {key} lists {', '.join(map(repr, twice))} more than once")
        _check_agent("search_opponent", self.search_opponent, self.preset, players)
        if self.eval_opponents and self.best_metric not in self.eval_opponents:
            raise ValueError(f"config best_metric {self.best_metric!r} is not one of eval_opponents: choose one of "
                             f"{', '.join(self.eval_opponents)}")
        group = len(seatings(players, partnerships))
        keys = ["eval_matches"] + (["search_eval_matches"] if self.search_eval_every > 0 else [])
        for key in keys:
            n = getattr(self, key)
            if n < group or n % group:
                raise ValueError(f"config {key} must be a positive multiple of {group} with {players} players "
                                 f"(each deal is played once per seating), got {n}")

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, d: dict, where: str = "config") -> TrainConfig:
        cfg = cls()
        for k, v in d.items():
            _set(cfg, k, v, where)
        return cfg


FIELDS = {f.name: f for f in dataclasses.fields(TrainConfig)}


def _check_agent(key: str, spec: Any, preset: str, players: int) -> None:
    try:
        check_spec(spec, preset=preset, players=players)  # no network loaded: the collector builds the agents
    except ValueError as e:
        raise ValueError(f"config {key}: {spec!r} is not an agent: {e}") from None


def _unknown(key: str, where: str) -> ValueError:
    close = difflib.get_close_matches(key, FIELDS, n=3)
    hint = f"; did you mean {', '.join(close)}?" if close else f"; valid keys: {', '.join(FIELDS)}"
    return ValueError(f"unknown config key {key!r} in {where}{hint}")


def _coerce(name: str, value: Any, where: str) -> Any:
    default = getattr(TrainConfig(), name)
    kind = type(default)
    if kind is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("true", "false", "yes", "no", "on", "off", "1", "0"):
            return value.lower() in ("true", "yes", "on", "1")
        raise ValueError(f"config {name} must be true or false, got {value!r} ({where})")
    if kind is int:
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, str):
            try:
                value = int(float(value))
            except ValueError:
                pass
        if not isinstance(value, int) or isinstance(value, bool):
            raise ValueError(f"config {name} must be an int, got {value!r} ({where})")
        return value
    if kind is float:
        if isinstance(value, str):
            try:
                value = float(value)
            except ValueError:
                pass
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise ValueError(f"config {name} must be a number, got {value!r} ({where})")
        return float(value)
    if kind is str:
        if value is None:
            return ""
        if not isinstance(value, str):
            raise ValueError(f"config {name} must be a string, got {value!r} ({where})")
        return value
    if kind is list:
        if isinstance(value, str):
            value = [v for v in value.split(",") if v]
        if not isinstance(value, list):
            raise ValueError(f"config {name} must be a list, got {value!r} ({where})")
        return value
    if kind is dict:
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise ValueError(f"config {name} must be a mapping, got {value!r} ({where})")
        return dict(value)
    return value


def _set(cfg: TrainConfig, key: str, value: Any, where: str) -> None:
    if "." in key:  # rules.players=2
        head, sub = key.split(".", 1)
        if head != "rules":
            raise _unknown(key, where)
        cfg.rules = {**cfg.rules, sub: value}
        return
    if key not in FIELDS:
        raise _unknown(key, where)
    setattr(cfg, key, _coerce(key, value, where))


def resolve_config_path(path: str | Path | None) -> Path:
    """A config path, or a preset name such as "smoke" meaning configs/smoke.yaml."""
    if path is None:
        path = DEFAULT_CONFIG
    p = Path(path)
    if p.suffix not in (".yaml", ".yml") and not p.exists():
        p = configs_dir() / f"{path}.yaml"
    if not p.exists():
        raise ValueError(f"config {str(path)!r} not found: give a YAML file or one of {config_names()}")
    return p


def _read_yaml(path: Path, seen: tuple = ()) -> dict:
    if path.resolve() in seen:
        raise ValueError(f"config {path} inherits itself through 'base'")
    try:
        data = yaml.safe_load(path.read_text()) or {}
    except yaml.YAMLError as e:
        raise ValueError(f"config {path} is not valid YAML: {e}") from e
    if not isinstance(data, dict):
        raise ValueError(f"config {path} must hold a mapping of keys to values, got {type(data).__name__}")
    base = data.pop("base", None)
    if base:
        merged = _read_yaml((path.parent / base).resolve(), seen + (path.resolve(),))
        rules = {**merged.get("rules", {}), **(data.pop("rules", None) or {})}
        merged.update(data)
        if rules:
            merged["rules"] = rules
        return merged
    return data


def parse_overrides(items: list[str]) -> dict:
    out = {}
    for item in items:
        if "=" not in item:
            raise ValueError(f"override {item!r} must look like key=value (e.g. lr=1e-4)")
        key, text = item.split("=", 1)
        key = key.strip()
        if key.startswith("rules."):  # a rule option, read as `allfours eval --rule` reads it
            try:
                out[key] = parse_rule_options([f"{key[len('rules.'):]}={text}"])[key[len("rules."):].strip()]
            except ValueError as e:
                raise ValueError(f"override {item!r}: {e}") from None
            continue
        try:
            value = yaml.safe_load(text) if text.strip() else ""
        except yaml.YAMLError:
            value = text
        out[key] = value
    return out


def read_config(path: str | Path | None = None) -> tuple[dict, str]:
    """The mapping a config file (or preset name) holds, ``base`` files merged in, and where it was read."""
    p = resolve_config_path(path)
    return _read_yaml(p), str(p)


def build_config(data: dict, where: str = "config", overrides: list[str] | dict | None = None) -> TrainConfig:
    """The config of ``data`` (as ``read_config`` gives it) with ``overrides`` on top, not yet validated."""
    cfg = TrainConfig.from_dict(data, where=where)
    ov = parse_overrides(overrides) if isinstance(overrides, list) else (overrides or {})
    for k, v in ov.items():
        _set(cfg, k, v, "command line overrides")
    return cfg


def load_config(path: str | Path | None = None, overrides: list[str] | dict | None = None) -> TrainConfig:
    """The validated config of ``path`` (default the yorkshire preset) with ``overrides`` on top."""
    return build_config(*read_config(path), overrides).validate()


def save_config(cfg: TrainConfig, path: Path) -> None:
    path.write_text(yaml.safe_dump(cfg.to_dict(), sort_keys=False))
