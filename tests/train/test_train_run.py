"""End-to-end training runs: smoke run + checkpoint loading, kill -9 and resume, determinism, configs."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

import allfours.agents as allfours_agents
from allfours.agents.network.checkpoint import CheckpointError, checkpoints_dir, load_checkpoint
from allfours.agents.players import neural
from allfours.agents.players.neural import load_agent, load_bot
from allfours.cli.train import main
from allfours.train.config import load_config
from allfours.train.console import progress_text
from allfours.train.trainer import Trainer
from allfours_env import GameState

REPO = Path(__file__).resolve().parents[2]
TINY = ["num_envs=16", "rollout_steps=8", "hidden=[32,32]", "minibatch_size=64", "eval_matches=4",
        "eval_opponents=[random]", "best_metric=random", "search_eval_every=0", "progress_bar=false",
        "snapshot_every=1", "scripted_opponents=[random]", "opp_scripted=0.2", "opp_snapshot=0.3", "opp_latest=0.5",
        "collector=inline"]
ROLLOUT = 16 * 8


def _cfg(tmp_path, *extra):
    return load_config("smoke", TINY + [f"runs_dir={tmp_path}", "max_minutes=0", "eval_every_minutes=0", *extra])


def test_smoke_run_writes_checkpoints_that_load(tmp_path):
    rc = main(["--config", "smoke", *TINY, f"runs_dir={tmp_path}", "run_name=s", f"total_steps={3 * ROLLOUT}",
               "eval_every_minutes=0.001"])
    assert rc == 0
    run = tmp_path / "s"
    for name in ("latest.pt", "best.pt", "config.yaml"):
        assert (run / name).exists()
    assert list((run / "tb").glob("events.*"))
    ck = load_checkpoint(run / "latest.pt")
    assert ck["progress"]["steps"] == 3 * ROLLOUT and ck["progress"]["updates"] == 3
    assert ck["preset"] == "yorkshire" and len(ck["action_ids"]) == 63 and ck["code_version"]
    assert "random" in ck["last_eval"]
    agent = load_agent(run)
    s = GameState.new("yorkshire", seed=1)
    while not s.done:
        s.apply(agent(s, s.current))
    # the saved config resolves to the same run config
    assert load_config(run / "config.yaml").to_dict() == load_config(run / "config.yaml").to_dict()
    # the learning curve plots from the run's TensorBoard data (a PNG file, not an empty one)
    from allfours.train.plot import main as plot_main
    from allfours.train.plot import scalars
    assert "eval/winrate_vs_random" in scalars(run) and "charts/SPS" in scalars(run)
    assert plot_main([str(run), "-o", str(tmp_path / "curve.png")]) == 0
    assert (tmp_path / "curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert plot_main([str(tmp_path), "-o", str(tmp_path / "x.png")]) == 2  # not a run folder
    # a second start into the same folder is refused with a pointer to --resume
    assert main(["--config", "smoke", *TINY, f"runs_dir={tmp_path}", "run_name=s", "total_steps=1"]) == 2


def test_bad_checkpoints_give_clear_errors(tmp_path):
    with pytest.raises(CheckpointError, match="does not exist"):
        load_agent(tmp_path / "nope.pt")
    (tmp_path / "garbage.pt").write_bytes(b"\x00not a checkpoint" * 10)
    with pytest.raises(ValueError, match="cannot be read: it is damaged") as err:
        load_agent(tmp_path / "garbage.pt")
    assert "weights_only" not in str(err.value)  # our message, not torch's advice
    torch.save({"hello": torch.zeros(2)}, tmp_path / "foreign.pt")
    with pytest.raises(ValueError, match="not an All Fours"):
        load_agent(tmp_path / "foreign.pt")
    trainer = Trainer(_cfg(tmp_path), tmp_path / "r")
    path = trainer.save()
    data = path.read_bytes()
    (tmp_path / "truncated.pt").write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match="cannot be read"):
        load_agent(tmp_path / "truncated.pt")
    ck = load_checkpoint(path)
    ck["encoding_version"] = -1
    torch.save(ck, tmp_path / "old.pt")
    with pytest.raises(ValueError, match="encoding version"):
        load_agent(tmp_path / "old.pt")
    with pytest.raises(ValueError, match="unknown bot 'nope'"):
        load_bot("nope")


def test_missing_bot_says_how_to_make_it(tmp_path, monkeypatch):
    monkeypatch.setattr(neural, "checkpoints_dir", lambda: tmp_path)
    with pytest.raises(ValueError, match="no trained bot is shipped as 'seven_up'.*train.ship"):
        load_bot("seven_up")


@pytest.mark.parametrize("name", sorted(p.stem for p in checkpoints_dir().glob("*.pt")))
def test_every_shipped_bot_loads_plays_legally_and_is_small(name):
    from allfours.agents.spec.bots import BOTS, bot_name

    path = checkpoints_dir() / f"{name}.pt"
    assert name in BOTS and path.stat().st_size < 5e6
    assert (checkpoints_dir() / f"{name}.md").exists()  # its model card

    table = BOTS[name]
    # the public API: the bot for this preset and player count (the second at one count, pitch_partners, by name)
    first = bot_name(table.preset, table.players) == name
    bot = allfours_agents.load_bot(table.preset if first else name, players=table.players)
    assert bot.name == f"bot:{name}" and bot.preset == table.preset and bot.meta["rules"]["players"] == table.players
    if table.players == 4:  # its sides, as trained (the All Fours bots' checkpoints predate the option)
        assert bot.meta["rules"].get("partnerships", True) == table.sides()
    s = GameState.new(table.preset, seed=3, **table.options())
    while not s.done:
        s.apply(bot(s, s.current))


def test_config_errors_and_overrides(tmp_path):
    with pytest.raises(ValueError, match="unknown config key 'lrr'.*lr"):
        load_config("smoke", ["lrr=1"])
    with pytest.raises(ValueError, match="key=value"):
        load_config("smoke", ["lr"])
    with pytest.raises(ValueError, match="not found"):
        load_config("no_such_config")
    with pytest.raises(ValueError, match="must be an int"):
        load_config("smoke", ["num_envs=many"])
    cfg = load_config(None, ["lr=1e-4", "hidden=[64,32]", "rules.target=7", "privileged_critic=true"])
    assert cfg.preset == "yorkshire" and cfg.max_minutes == 60  # the default config
    assert cfg.lr == 1e-4 and cfg.hidden == [64, 32] and cfg.rules == {"target": 7} and cfg.privileged_critic
    for name in ("yorkshire", "traditional", "traditional_2p", "seven_up", "smoke"):
        load_config(name)
    assert load_config("traditional_2p").rules == {"players": 2}
    (tmp_path / "bad.yaml").write_text("lr: [1\n")
    with pytest.raises(ValueError, match="not valid YAML"):
        load_config(tmp_path / "bad.yaml")
    assert main(["--config", "smoke", "bogus=1"]) == 2


def _params(net):
    return {k: v.clone() for k, v in net.state_dict().items()}


def test_same_seed_same_first_updates(tmp_path):
    runs = []
    for i, seed in enumerate((5, 5, 6)):
        t = Trainer(_cfg(tmp_path, f"total_steps={2 * ROLLOUT}", f"seed={seed}", "privileged_critic=true"),
                    tmp_path / f"d{i}")
        t.train()
        runs.append(_params(t.net))
    assert all(torch.equal(runs[0][k], runs[1][k]) for k in runs[0])
    assert not all(torch.equal(runs[0][k], runs[2][k]) for k in runs[0])


@pytest.mark.subprocess
def test_resume_after_kill_continues_steps_and_optimizer(tmp_path):
    # the default rollout worker process: the learner is killed, the worker must not hang on
    cmd = [sys.executable, "-m", "allfours", "train", "--config", "smoke", *TINY, f"runs_dir={tmp_path}", "run_name=k",
           "max_minutes=10", "eval_every_minutes=0", "checkpoint_every_updates=1", "collector=process"]
    proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    latest = tmp_path / "k" / "latest.pt"
    try:
        deadline = time.time() + 120
        while time.time() < deadline:
            if latest.exists() and load_checkpoint(latest)["progress"]["updates"] >= 3:
                break
            time.sleep(0.2)
        else:
            pytest.fail("the training process wrote no checkpoint in time")
    finally:
        os.kill(proc.pid, signal.SIGKILL)  # no chance to clean up
        proc.wait()
    ck = load_checkpoint(latest)
    steps, updates = ck["progress"]["steps"], ck["progress"]["updates"]
    cfg = load_config(tmp_path / "k" / "config.yaml", [f"total_steps={steps + 2 * ROLLOUT}", "max_minutes=0"])
    t = Trainer.resume(tmp_path / "k", cfg)
    assert t.cfg.collector == "process"
    assert t.progress["steps"] == steps and t.progress["updates"] == updates
    opt = t.opt.state_dict()
    for pid, state in ck["optimizer"]["state"].items():
        for key, value in state.items():
            assert torch.equal(opt["state"][pid][key], value)
    adam_steps = float(ck["optimizer"]["state"][0]["step"])
    assert adam_steps > 0
    try:
        summary = t.train()
    finally:
        t.close()
    assert summary["steps"] == steps + 2 * ROLLOUT and summary["updates"] == updates + 2
    after = load_checkpoint(latest)
    assert after["progress"]["updates"] == updates + 2
    assert float(after["optimizer"]["state"][0]["step"]) > adam_steps
    assert set(after["pool"]) <= {p.stem for p in (tmp_path / "k" / "pool").glob("*.pt")}


def test_ship_strips_training_state_and_keeps_a_loadable_bot(tmp_path):
    from allfours.train.ship import ship
    assert main(["--config", "smoke", *TINY, f"runs_dir={tmp_path}", "run_name=s", f"total_steps={ROLLOUT}"]) == 0
    out = ship(tmp_path / "s" / "latest.pt", "yorkshire", out_dir=tmp_path / "ck")
    ck = load_checkpoint(out)
    assert "optimizer" not in ck and "model" in ck and ck["preset"] == "yorkshire"
    assert out.stat().st_size < (tmp_path / "s" / "latest.pt").stat().st_size
    agent = load_agent(out)
    s = GameState.new("yorkshire", seed=2)
    while not s.done:
        s.apply(agent(s, s.current))
    with pytest.raises(CheckpointError, match="trained on 'yorkshire' with 4 players; bot 'seven_up' plays"):
        ship(tmp_path / "s" / "latest.pt", "seven_up", out_dir=tmp_path / "ck")
    with pytest.raises(ValueError, match="unknown bot name 'traditional_3p'"):
        ship(tmp_path / "s" / "latest.pt", "traditional_3p", out_dir=tmp_path / "ck")
    # Auction Pitch with four has two bots, one a side each: a network is shipped only as the one of its sides
    trained = load_checkpoint(tmp_path / "s" / "latest.pt")
    for partnerships, wrong, words in [
            (False, "pitch_partners", "without partnerships; bot 'pitch_partners' plays in them"),
            (True, "pitch_4p", "in partnerships; bot 'pitch_4p' plays without")]:
        torch.save({**trained, "preset": "pitch", "rules": {**trained["rules"], "preset": "pitch",
                                                            "partnerships": partnerships}}, tmp_path / "p.pt")
        with pytest.raises(CheckpointError, match=words):
            ship(tmp_path / "p.pt", wrong, out_dir=tmp_path / "ck")
    # the model card: what the checkpoint records, and eval rows with the command that reproduces them
    from allfours.train.card import write_card
    res = tmp_path / "res.json"
    res.write_text(json.dumps({"preset": "yorkshire", "players": 4, "seed": 3, "matches_per_pairing": 10, "results": [
        {"agent": "bot:yorkshire", "opponent": "random", "matches": 10, "wins": 7, "win_rate": 0.7,
         "ci95": [0.4, 0.9], "points_per_hand": 2.0, "opponent_points_per_hand": 1.0},
        {"agent": "random", "opponent": "bot:yorkshire", "matches": 10, "wins": 3, "win_rate": 0.3,
         "ci95": [0.1, 0.6], "points_per_hand": 1.0, "opponent_points_per_hand": 2.0}]}))
    text = write_card("yorkshire", [res], command="allfours train", out_dir=tmp_path / "ck").read_text()
    assert "| `random` | 10 | 7 | 0.700 | 0.400 - 0.900 |" in text
    assert "| `bot:yorkshire` |" not in text  # the reverse row (random against the bot) is left out
    assert "allfours eval --preset yorkshire --agents bot:yorkshire random --matches 10 --seed 3" in text
    assert f"{ROLLOUT / 1e6:.1f} M decisions" in text and "version 2 (997 floats), action ids 0..62" in text
    assert "| code | trained with allfours " in text and "the lowest action id is played" in text


def test_init_from_starts_from_another_runs_weights(tmp_path):
    src = Trainer(_cfg(tmp_path, "total_steps=1"), tmp_path / "src")
    src.save(best=True)
    src.close()
    # another preset, same network: the weights carry over, the optimizer and progress start afresh
    cfg = load_config("seven_up", TINY + [f"runs_dir={tmp_path}", "max_minutes=0", "eval_every_minutes=0",
                                           f"init_from={tmp_path / 'src'}"])
    t = Trainer(cfg, tmp_path / "dst")
    try:
        for k, v in src.net.state_dict().items():
            assert torch.equal(t.net.state_dict()[k], v), k
        assert t.progress["steps"] == 0 and not t.opt.state_dict()["state"]
    finally:
        t.close()
    bad = load_config("seven_up", TINY + [f"runs_dir={tmp_path}", "hidden=[16]", f"init_from={tmp_path / 'src'}"])
    with pytest.raises(ValueError, match="does not match"):
        Trainer(bad, tmp_path / "bad")
    missing = load_config("seven_up", TINY + [f"runs_dir={tmp_path}", "init_from=bot:no_such_bot"])
    with pytest.raises(ValueError, match="does not exist"):
        Trainer(missing, tmp_path / "missing")


def test_progress_counts_decisions_and_the_eta_is_the_budget_left(tmp_path):
    t = Trainer(_cfg(tmp_path, "max_minutes=60"), tmp_path / "p")
    t.progress.update(train_seconds=600.0, steps=1_230_000, updates=40)
    # the time budget's rest, whatever the rate: it cannot wander
    assert t.budget.eta_seconds(1e3) == t.budget.eta_seconds(1e6) == 3000
    text = progress_text(t.cfg, t.progress, t.budget.eta_seconds(5_000.0), 12_345.0)
    assert text.startswith("10.0/60 min, ETA 50:00, 1.23M decisions, 12.3k dec/s, upd 40") and "s/s" not in text
    # a decision budget: the decisions left at this session's average rate; both: whichever ends first
    t.cfg.max_minutes, t.cfg.total_steps = 0, 2_230_000
    assert t.budget.eta_seconds(1000.0) == 1000
    assert progress_text(t.cfg, t.progress, t.budget.eta_seconds(1000.0), 1.0).startswith("ETA 16:40, 1.23M/2.23M dec")
    t.cfg.max_minutes = 11
    assert t.budget.eta_seconds(1000.0) == 60
    t.close()


def test_keep_at_steps_keeps_the_first_checkpoint_past_each_count(tmp_path):
    rc = main(["--config", "smoke", *TINY, f"runs_dir={tmp_path}", "run_name=k", f"total_steps={4 * ROLLOUT}",
               "eval_every_minutes=0", "checkpoint_every_minutes=0", f"keep_at_steps=[{ROLLOUT + 1},{3 * ROLLOUT}]"])
    assert rc == 0
    run = tmp_path / "k"
    kept = sorted(p.name for p in run.glob("steps_*.pt"))
    assert kept == [f"steps_{ROLLOUT + 1}.pt", f"steps_{3 * ROLLOUT}.pt"]
    # each holds the weights of the first update at or past its count, not of the run's end
    assert load_checkpoint(run / f"steps_{ROLLOUT + 1}.pt")["progress"]["steps"] == 2 * ROLLOUT
    assert load_checkpoint(run / f"steps_{3 * ROLLOUT}.pt")["progress"]["steps"] == 3 * ROLLOUT
    assert load_checkpoint(run / "latest.pt")["progress"]["steps"] == 4 * ROLLOUT
    with pytest.raises(ValueError, match="keep_at_steps"):
        load_config("smoke", ["keep_at_steps=[0]"]).validate()


def test_a_card_rows_command_replays_the_files_rule_options():
    """A card's row is the command that plays its matches again: Pitch in partnerships is not the four-player
    Pitch each for themselves that --players 4 alone plays."""
    from allfours.train.card import eval_command
    doc = {"preset": "pitch", "players": 4, "seed": 0, "matches_per_pairing": 20,
           "options": {"players": 4, "partnerships": True}}
    assert eval_command(doc, "bot:pitch_partners", "search") == (
        "allfours eval --preset pitch --players 4 --rule partnerships=true --agents bot:pitch_partners search "
        "--matches 20 --seed 0")
    # a preset of one player count names none; a file without options (older ones) keeps its players
    assert eval_command({**doc, "preset": "setback", "options": {"players": 4}}, "a", "b") == (
        "allfours eval --preset setback --agents a b --matches 20 --seed 0")
    assert eval_command({"preset": "traditional", "players": 2, "seed": 3, "matches_per_pairing": 10}, "a", "b") == (
        "allfours eval --preset traditional --players 2 --agents a b --matches 10 --seed 3")
