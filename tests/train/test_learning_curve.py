"""benchmarks/learning_curve.py: the kept checkpoints of a run, played and drawn as a curve."""

import importlib.util
import json
from pathlib import Path

import pytest
import torch

from allfours.agents.network.checkpoint import load_checkpoint
from allfours.cli.train import main as train

ROOT = Path(__file__).resolve().parents[2]
TINY = ["num_envs=16", "rollout_steps=8", "hidden=[32,32]", "minibatch_size=64", "eval_every_minutes=0",
        "search_eval_every=0", "progress_bar=false", "scripted_opponents=[random]", "collector=inline",
        "max_minutes=0", "total_steps=384", "keep_at_steps=[128,300]", "checkpoint_every_minutes=0"]


def _script():
    spec = importlib.util.spec_from_file_location("learning_curve", ROOT / "benchmarks" / "learning_curve.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_the_kept_checkpoints_are_played_tabled_and_plotted(tmp_path, capsys):
    assert train(["--config", "seven_up", *TINY, f"runs_dir={tmp_path}", "run_name=r"]) == 0
    curve, out = _script(), tmp_path / "curve"
    assert [n for n, _ in curve.milestones(tmp_path / "r")] == [128, 300]
    png = tmp_path / "c.png"
    assert curve.main([str(tmp_path / "r"), "--out", str(out), "--opponents", "random:4", "--play",
                       "--workers", "1", "--plot", str(png)]) == 0
    table = capsys.readouterr().out
    # one row a kept checkpoint, by the decisions it had when kept, with its command and raw file
    assert "| 128 | `random` | 4 |" in table and "| 384 | `random` | 4 |" in table
    for n in (128, 300):
        kept = load_checkpoint(out / f"steps_{n}.pt")
        assert "optimizer" not in kept and kept["progress"]["steps"] >= n
        source = load_checkpoint(tmp_path / "r" / f"steps_{n}.pt")["model"]
        assert all(torch.equal(w, source[k]) for k, w in kept["model"].items())
        data = json.loads((out / f"steps_{n}_vs_random.json").read_text())
        assert data["matches_per_pairing"] == 4 and data["seed"] == 11
        assert f"steps_{n}.pt random --matches 4 --seed 11" in data["command"]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # other runs' results as points on the same axes; a folder that is not there is one line
    also = tmp_path / "also.png"
    assert curve.main([str(tmp_path / "r"), "--out", str(out), "--plot", str(also), "--also", f"again={out}"]) == 0
    assert also.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and also.read_bytes() != png.read_bytes()
    capsys.readouterr()
    with pytest.raises(SystemExit) as bad:
        curve.main([str(tmp_path / "r"), "--out", str(out), "--also", f"x={tmp_path / 'nowhere'}"])
    assert bad.value.code == 2 and "give LABEL=FOLDER" in capsys.readouterr().err
    # played points are not played again: the files stay as they were
    before = (out / "steps_128_vs_random.json").stat().st_mtime_ns
    assert curve.main([str(tmp_path / "r"), "--out", str(out), "--opponents", "random:4", "--play"]) == 0
    assert (out / "steps_128_vs_random.json").stat().st_mtime_ns == before
    assert curve.main([str(tmp_path / "empty"), "--out", str(out), "--play"]) == 2


@pytest.mark.slow
def test_a_run_warm_started_from_a_point_continues_the_curve(tmp_path, capsys):
    """A continuation's points count the decisions behind the weights it started from."""
    assert train(["--config", "seven_up", *TINY, f"runs_dir={tmp_path}", "run_name=r"]) == 0
    curve, out = _script(), tmp_path / "curve"
    assert curve.main([str(tmp_path / "r"), "--out", str(out), "--opponents", "random:4", "--play",
                       "--workers", "1"]) == 0
    parent = load_checkpoint(out / "steps_300.pt")["progress"]["steps"]
    assert parent == 384  # the first rollout past 300 (128 decisions a rollout)
    more = [a for a in TINY if not a.startswith(("total_steps", "keep_at_steps"))]
    assert train(["--config", "seven_up", *more, "total_steps=256", "keep_at_steps=[128]",
                  f"init_from={out / 'steps_300.pt'}", f"runs_dir={tmp_path}", "run_name=c"]) == 0
    capsys.readouterr()
    assert curve.main([str(tmp_path / "c"), "--out", str(out), "--opponents", "random:4", "--play",
                       "--workers", "1"]) == 0
    table = capsys.readouterr().out
    assert f"| {128 + parent} | `random` | 4 |" in table  # kept as steps_512.pt, tabled at 512
    kept = load_checkpoint(out / f"steps_{128 + parent}.pt")
    assert kept["progress"]["steps"] == 128 and curve.decisions(kept) == 128 + parent
    # a bot's name says what ships now, not what a run started from: one line, not a wrong count
    bot = dict(kept, config={**kept["config"], "init_from": "bot:seven_up"})
    with pytest.raises(ValueError, match="'bot:seven_up': the decisions behind those weights are not known"):
        curve.decisions(bot)
    # the weights it started from are gone: one line, not a wrong count
    (out / "steps_300.pt").unlink()
    assert curve.main([str(tmp_path / "c"), "--out", str(out), "--opponents", "random:4"]) == 1
    assert "steps_300.pt" in capsys.readouterr().err
