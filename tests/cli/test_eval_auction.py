"""``allfours eval`` takes an ``sb3:`` model and ``ismcts`` on the auction presets, and plays their matches to the end.

In-process through ``allfours.cli.main``, as the other command-line tests run.
"""

from __future__ import annotations

import json

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces

import allfours  # noqa: F401 (registers the Gymnasium ids)
from allfours.agents import make_agent
from allfours.cli import main

sb3_contrib = pytest.importorskip("sb3_contrib")
pytest.importorskip("open_spiel")


@pytest.fixture(scope="module")
def pitch_model(tmp_path_factory):
    """A MaskablePPO model made on allfours/Pitch-v0 (untrained: its weights are its seeded initial ones)."""
    path = tmp_path_factory.mktemp("sb3") / "pitch.zip"
    model = sb3_contrib.MaskablePPO("MlpPolicy", gymnasium.make("allfours/Pitch-v0", players=2), seed=0, device="cpu")
    model.save(path)
    return path


def _eval(argv: list[str], out, capsys) -> dict:
    rc = main(["eval", *argv, "--workers", "1", "--no-progress", "--json", str(out)])
    assert rc == 0, capsys.readouterr().err
    return json.loads(out.read_text())


def _played_to_the_end(report: dict, agents: list[str], matches: int, two_sides: bool = True) -> None:
    """Every match played and won: with two sides, each match won by one of the two agents."""
    assert not report.get("partial") and report["matches_per_pairing"] == matches
    rows = {r["agent"]: r for r in report["results"]}
    assert set(rows) == set(agents) and set(report["ratings"]) == set(agents)
    a, b = (rows[name] for name in agents)
    assert a["opponent"] == agents[1] and b["opponent"] == agents[0]
    assert a["matches"] == b["matches"] == matches
    assert a["hands"] >= matches and b["hands"] >= matches
    for row in (a, b):
        assert 0 <= row["wins"] <= matches and row["win_rate"] == row["wins"] / matches
    if two_sides:  # the same matches seen from each side
        assert a["hands"] == b["hands"]
        assert a["wins"] + b["wins"] == matches  # none was cut short without a winner


def test_eval_plays_an_sb3_model_on_pitch(pitch_model, tmp_path, capsys):
    spec = f"sb3:{pitch_model}"
    report = _eval(["--preset", "pitch", "--players", "2", "--agents", spec, "heuristic", "--matches", "2"],
                   tmp_path / "e.json", capsys)
    assert report["preset"] == "pitch" and report["players"] == 2
    _played_to_the_end(report, [spec, "heuristic"], 2)


@pytest.mark.slow
def test_eval_plays_a_maskableppo_trained_on_pitch(tmp_path, capsys):
    """As docs/agents.md invites: a MaskablePPO trained on allfours/Pitch-v0 (a few hundred steps), then measured."""
    path = tmp_path / "trained.zip"
    model = sb3_contrib.MaskablePPO("MlpPolicy", gymnasium.make("allfours/Pitch-v0", players=2), n_steps=128,
                                    batch_size=64, n_epochs=1, seed=0, device="cpu")
    model.learn(256)
    assert model.num_timesteps >= 256
    model.save(path)
    spec = f"sb3:{path}"
    report = _eval(["--preset", "pitch", "--players", "2", "--agents", spec, "random", "--matches", "4"],
                   tmp_path / "e.json", capsys)
    _played_to_the_end(report, [spec, "random"], 4)


def test_eval_plays_ismcts_on_setback(tmp_path, capsys):
    spec = "ismcts:simulations=4"
    report = _eval(["--preset", "setback", "--target", "3", "--agents", spec, "random", "--matches", "2"],
                   tmp_path / "e.json", capsys)
    assert report["preset"] == "setback" and report["players"] == 4
    _played_to_the_end(report, [spec, "random"], 2)


def test_eval_plays_ismcts_on_four_player_pitch(tmp_path, capsys):
    spec = "ismcts:simulations=2"
    report = _eval(["--preset", "pitch", "--target", "3", "--agents", spec, "random", "--matches", "4"],
                   tmp_path / "e.json", capsys)
    assert report["players"] == 4  # each for themselves: A in one seat against three B, in each seat in turn
    _played_to_the_end(report, [spec, "random"], 4, two_sides=False)


class _AllFoursShapes(gymnasium.Env):
    """An env of observation encoding 1's shapes (951 columns, All Fours' 57 actions): a model made on it is one
    trained before the auction presets."""

    observation_space = spaces.Box(0.0, 1.0, (951,), np.float32)
    action_space = spaces.Discrete(57)

    def reset(self, *, seed=None, options=None):
        return np.zeros(951, np.float32), {}

    def step(self, action):
        return np.zeros(951, np.float32), 0.0, True, False, {}


def test_an_sb3_model_without_the_auctions_calls_is_refused_in_one_line(tmp_path, capsys):
    path = tmp_path / "old.zip"
    sb3_contrib.MaskablePPO("MlpPolicy", _AllFoursShapes(), seed=0, device="cpu").save(path)
    make_agent(f"sb3:{path}", preset="seven_up")  # it plays All Fours
    rc = main(["eval", "--preset", "pitch", "--agents", f"sb3:{path}", "heuristic"])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1
    assert "trained on All Fours' 57 actions, without the auction's calls: it does not play pitch" in err
