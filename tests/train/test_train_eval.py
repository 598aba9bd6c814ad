"""The trainer's evaluation is `allfours eval`'s schedule; opponents named in a config are checked at start."""

import json
import shlex

import pytest
import torch

from allfours.agents.evaluation import matches
from allfours.agents.network import PolicyNet
from allfours.agents.network.checkpoint import checkpoints_dir
from allfours.cli.eval import main as eval_main
from allfours.cli.train import main as train_main
from allfours.train.config import TrainConfig, load_config, parse_overrides
from allfours.train.rollout import ScalarCollector
from allfours.train.trainer import Trainer
from allfours_env import NUM_ACTIONS, OBS_SIZE, GameState, make_rules

TINY = ["num_envs=16", "rollout_steps=8", "hidden=[32,32]", "minibatch_size=64", "search_eval_every=0",
        "progress_bar=false", "collector=inline", "max_minutes=0", "eval_every_minutes=0", "opp_snapshot=0"]


def _record(monkeypatch) -> list:
    """Every match ``allfours.agents.evaluation`` plays, as (rules, first deal, agent seed, agent classes by seat)."""
    played = []
    real = matches.play_match

    def play_match(agents, preset, seed, agent_seed=None, options=None):
        state = GameState.new(make_rules(preset, **(options or {})), seed=seed)
        played.append((state.rules.to_dict(), state.dealer, tuple(state.dealt), tuple(state.turnups), agent_seed,
                       tuple(type(a).__name__ for a in agents)))
        return real(agents, preset, seed, agent_seed, options)

    monkeypatch.setattr(matches, "play_match", play_match)
    return played


@pytest.mark.parametrize("config,extra,cli_rules", [
    ("traditional", [], ["--players", "4"]),  # configs/traditional.yaml's rules: {players: 4}, the preset's own
    ("traditional", [], []),  # ... so the same deals as traditional without options
    ("seven_up", ["rules.target=5"], ["--target", "5"]),
    ("yorkshire", ["rules.throw_in=false", "rules.target=7"], ["--target", "7", "--rule", "throw_in=false"]),
])
def test_trainer_evaluation_is_the_allfours_eval_of_its_checkpoint(config, extra, cli_rules, tmp_path, monkeypatch):
    cfg = load_config(config, TINY + ["eval_matches=4", "eval_seed=3", "eval_opponents=[random,heuristic]",
                                      "best_metric=heuristic", *extra])
    trainer = Trainer(cfg, tmp_path / "run")
    try:
        played = _record(monkeypatch)
        results = trainer.evaluate()
        trainer.save()
    finally:
        trainer.close()
    by_trainer = list(played)
    assert len(by_trainer) == 8 and len({m[1:4] for m in by_trainer}) == 2  # two deals, once per seating each
    if config == "traditional":
        assert by_trainer[0][0] == make_rules("traditional").to_dict()
    for k, spec in enumerate(("random", "heuristic")):
        out = tmp_path / f"{spec}.json"
        # the command the trainer gives for its checkpoint, and the same one spelt by hand
        command = shlex.split(trainer.evaluation.command(spec, "latest.pt"))
        by_hand = ["--preset", cfg.preset, *cli_rules, "--agents", f"{tmp_path / 'run' / 'latest.pt'}:sym=0", spec,
                   "--matches", "4", "--seed", "3"]
        for argv in (command[2:], by_hand):
            played.clear()
            assert eval_main(argv + ["--workers", "1", "--no-progress", "--json", str(out)]) == 0
            # the same matches: rules, deals, agent seeds, seatings (a NeuralAgent for learner and checkpoint)
            assert played == by_trainer[4 * k:4 * k + 4]
            row = json.loads(out.read_text())["results"][0]
            assert row.pop("agent").endswith("latest.pt:sym=0")
            assert row == {key: v for key, v in results[spec].items() if key != "agent"}  # the same figures


def test_trainer_evaluation_reports_allfours_eval_rows(tmp_path):
    cfg = load_config("seven_up", TINY + ["eval_matches=6", "eval_opponents=[random]", "best_metric=random"])
    trainer = Trainer(cfg, tmp_path / "run")
    try:
        r = trainer.evaluate()["random"]
    finally:
        trainer.close()
    assert (r["agent"], r["opponent"], r["matches"], r["preset"]) == ("learner", "random", 6, "seven_up")
    assert r["ci95"][0] <= r["win_rate"] <= r["ci95"][1] and r["hands"] > 0
    assert trainer.last_eval["random"] == r


@pytest.mark.parametrize("override,msg", [
    ("scripted_opponents=[heuristic,heuristc]",
     "config scripted_opponents: 'heuristc' is not an agent: unknown agent 'heuristc': choose one of random, "
     "heuristic"),
    ("eval_opponents=[random,bot:nope]", "config eval_opponents: 'bot:nope' is not an agent: unknown bot 'nope'"),
    ("search_opponent=search:wrlds=8", "config search_opponent: 'search:wrlds=8' is not an agent: unknown parameter "
                                       "'wrlds' for agent 'search': valid are"),
    ("scripted_opponents=[missing.pt]", "config scripted_opponents: 'missing.pt' is not an agent: checkpoint"),
    ("best_metric=heuristc", "config best_metric 'heuristc' is not one of eval_opponents: choose one of random, "
                             "heuristic"),
    ("eval_opponents=[random,random]", "config eval_opponents lists 'random' more than once"),
    ("eval_matches=5", "config eval_matches must be a positive multiple of 2"),
])
def test_a_bad_opponent_is_an_error_at_start(override, msg, tmp_path, capsys):
    with pytest.raises(ValueError) as e:
        load_config("smoke", [override])
    assert str(e.value).startswith(msg)
    # the Trainer checks its config too, before it makes anything
    cfg = TrainConfig.from_dict({**load_config("smoke").to_dict(), **parse_overrides([override])})  # unchecked
    with pytest.raises(ValueError, match="^" + msg.split(":")[0]):
        Trainer(cfg, tmp_path / "never")
    assert not (tmp_path / "never").exists()
    # `allfours train`: one line, exit status 2, no run folder
    assert train_main(["--config", "smoke", override, f"runs_dir={tmp_path}", "run_name=x"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"allfours train: error: {msg}") and err.count("\n") == 1
    assert not (tmp_path / "x").exists()


def test_a_config_naming_networks_is_validated_without_loading_them(monkeypatch, tmp_path):
    """validate checks a network's file is there, not what is in it: the collector loads it, once."""
    shipped = checkpoints_dir() / "seven_up.pt"

    def no_load(*args, **kwargs):
        raise AssertionError("validate loaded a network")

    monkeypatch.setattr(torch, "load", no_load)
    cfg = load_config("seven_up", ["eval_matches=4", f"eval_opponents=[random,{shipped}]", "best_metric=random",
                                   "scripted_opponents=[bot:seven_up]", "search_opponent=search:playout=bot:seven_up"])
    assert cfg.is_validated() and cfg.eval_opponents == ["random", str(shipped)]
    # a missing one, nested or not, is still the one-line error of an agent that is not there
    with pytest.raises(ValueError, match=r"^config search_opponent: 'search:playout=nope.pt' is not an agent: "
                                         r"checkpoint 'nope.pt' not found$"):
        load_config("seven_up", ["search_opponent=search:playout=nope.pt"])
    with pytest.raises(ValueError, match=r"^config eval_opponents: 'bot:yorkshire' is not an agent: bot:yorkshire "
                                         r"is a network for yorkshire with 4 players, not seven_up with 2 players"):
        load_config("seven_up", ["eval_opponents=[random,bot:yorkshire]", "best_metric=random"])
    with pytest.raises(ValueError, match=r"^config eval_opponents: 'solved:mini2' is not an agent: solved:mini2 is "
                                         r"the equilibrium of mini2: it plays mini2 only, not seven_up$"):
        load_config("seven_up", ["eval_opponents=[random,solved:mini2]", "best_metric=random"])


def test_three_players_need_whole_rotations():
    with pytest.raises(ValueError, match="config eval_matches must be a positive multiple of 3 with 3 players"):
        load_config("traditional", ["rules.players=3"])
    with pytest.raises(ValueError, match="config search_eval_matches must be a positive multiple of 3"):
        load_config("traditional", ["rules.players=3", "eval_matches=399"])
    cfg = load_config("traditional", ["rules.players=3", "eval_matches=399", "search_eval_matches=9"])
    assert (cfg.eval_matches, cfg.search_eval_matches) == (399, 9)


def test_four_players_each_for_themselves_need_whole_rotations_of_four(tmp_path):
    """Auction Pitch with four players each for themselves (docs/rules.md section 8) plays each deal four times, once
    with the learner in each seat: the config's evaluations and the timing of an evaluation's first group alike."""
    with pytest.raises(ValueError, match="config eval_matches must be a positive multiple of 4 with 4 players"):
        load_config("pitch", ["rules.players=4", "eval_matches=202"])
    cfg = load_config("configs/pitch_4p.yaml", [*TINY, "eval_every_minutes=1", "eval_opponents=[random]",
                                                "best_metric=random", "scripted_opponents=[random]",
                                                f"runs_dir={tmp_path}"])
    trainer = Trainer(cfg, tmp_path / "r")
    try:
        assert trainer.evaluation.final_seconds(0) > 0  # (2 matches, as for partnerships, was refused)
        assert set(trainer.evaluation.match_seconds) == {"random"}
    finally:
        trainer.close()


def test_the_collector_refuses_a_bad_scripted_opponent():
    """No silent fallback: a collector built without the config's check also refuses it."""
    net = PolicyNet(OBS_SIZE, NUM_ACTIONS, [8])
    with pytest.raises(ValueError, match="unknown agent 'nope'"):
        ScalarCollector(make_rules("seven_up"), net, num_envs=2, rollout_steps=2, shares=(0.5, 0, 0.5),
                        scripted_specs=["random", "nope"])


@pytest.mark.slow
def test_a_config_is_validated_once_per_set_of_values(monkeypatch, tmp_path):
    """``load_config`` validates (checking every agent the config names); the trainer does not validate the
    same values again, but does once they change."""
    from allfours.train import config as config_module

    built = []
    real = config_module.check_spec
    monkeypatch.setattr(config_module, "check_spec", lambda spec, **kw: built.append(spec) or real(spec, **kw))
    cfg = load_config("smoke", ["eval_matches=4"])
    first = len(built)
    assert first >= 1 and cfg.is_validated()
    Trainer(cfg, tmp_path / "run")
    assert len(built) == first  # the trainer's validate() was a no-op
    cfg.eval_opponents = ["random"]
    cfg.best_metric = "random"
    assert not cfg.is_validated()
    cfg.validate()
    assert len(built) > first
    cfg.lr = 5.0
    with pytest.raises(ValueError, match="lr must be in"):
        cfg.validate()


def test_a_mini_preset_trains_without_evaluation_matches(capsys):
    """docs/rules.md section 7: a mini preset is one hand with the points difference as the payoff; a run on
    one is measured exactly afterwards (allfours exploit --method exact), so its config plays no evaluations."""
    cfg = load_config("mini2")
    assert cfg.preset == "mini2" and cfg.eval_every_minutes == 0
    with pytest.raises(ValueError, match="measured exactly.*eval_every_minutes: 0"):
        load_config("seven_up", ["preset=mini3"])
    assert train_main(["--config", "mini2", "preset=mini3", "--print-config"]) == 0
    assert "preset: mini3" in capsys.readouterr().out
    assert train_main(["preset=mini9", "--print-config"]) == 2
    assert "unknown preset 'mini9'" in capsys.readouterr().err
    # the duplicate schedule of a mini preset (make_tasks reads the preset's own defaults)
    tasks = matches.make_tasks([("random", "heuristic")], "mini2", 4, 0)
    assert len(tasks) == 4 and {t.seats for t in tasks} == {(0, 1), (1, 0)}
