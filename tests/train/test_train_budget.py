"""max_minutes is kept, the final evaluation included; saves killed mid-write leave no temp files behind."""

import math
import os
import subprocess
import sys

import pytest

from allfours.agents.network.checkpoint import atomic_save, load_checkpoint, remove_stale_temps
from allfours.cli.train import main
from allfours.train.config import load_config
from allfours.train.trainer import Trainer

TINY = ["num_envs=16", "rollout_steps=8", "hidden=[32,32]", "minibatch_size=64", "eval_matches=4",
        "eval_opponents=[random]", "best_metric=random", "search_eval_every=0", "progress_bar=false",
        "scripted_opponents=[random]", "collector=inline", "opp_snapshot=0"]


class Bar:
    def __init__(self):
        self.lines = []

    def write(self, line, **_):
        self.lines.append(line)


@pytest.fixture
def trainer(tmp_path):
    cfg = load_config("smoke", TINY + [f"runs_dir={tmp_path}", "max_minutes=1", "eval_every_minutes=0.5",
                                       "eval_matches=20"])
    t = Trainer(cfg, tmp_path / "b")
    yield t
    t.close()


def test_the_run_stops_when_one_more_iteration_and_the_final_evaluation_would_not_fit(trainer):
    t = trainer
    t.evaluation.match_seconds = {"random": 0.2}  # 20 matches: a 4 s final evaluation
    assert t.budget.final_eval_seconds() == pytest.approx(4.0)
    t.budget.plan_end(2.0)  # an iteration took 2 s: 6 s must stay free
    t.progress["train_seconds"] = 53.9
    assert not t.budget.done()
    t.progress["train_seconds"] = 54.0
    assert t.budget.done()
    # without evaluations only the next iteration is kept free
    t.cfg.eval_every_minutes = 0
    t.budget.plan_end(2.0)
    t.progress["train_seconds"] = 57.5
    assert not t.budget.done()


def test_an_opponent_not_yet_timed_is_timed_on_one_duplicate_group(trainer):
    t = trainer
    assert t.evaluation.match_seconds == {}
    estimate = t.budget.final_eval_seconds()
    assert set(t.evaluation.match_seconds) == {"random"} and estimate == t.evaluation.match_seconds["random"] * 20 > 0
    assert t.progress["evals"] == 0  # timing is not an evaluation


def test_a_due_evaluation_with_no_room_after_it_is_the_last(trainer):
    t, bar = trainer, Bar()
    t.evaluation.match_seconds = {"random": 0.1}  # 2 s
    t.budget.iteration_seconds = 1.0
    t.progress.update(train_seconds=55.5, next_eval_seconds=30.0)  # due; 55.5 + 2 + 2 + 1 > 60: the last one
    t.budget.tick = lambda: None  # keep train_seconds as set
    t._maybe_evaluate(_NoStop(), None, bar)
    assert t.progress["evals"] == 1 and t.budget.reserve == math.inf and t.budget.done()


def test_a_final_evaluation_that_cannot_fit_is_not_played_and_says_how_to_run_it(trainer):
    t, bar = trainer, Bar()
    t.evaluation.match_seconds = {"random": 1.0}  # 20 s, with 5 s left
    t.budget.tick = lambda: None
    t.progress.update(train_seconds=55.0, next_eval_seconds=90.0)
    t.budget.plan_end(0.5)
    assert t.budget.done()
    assert t._maybe_evaluate(_NoStop(), None, bar) is False
    assert t.progress["evals"] == 0 and t.budget.done()
    (line,) = bar.lines
    assert "does not fit" in line and "allfours eval" in line and "latest.pt" in line


class _NoStop:
    requested = False

    def abandonable(self, fn, *args):
        return fn(*args)


@pytest.mark.slow
def test_a_short_budget_ends_within_its_minutes(tmp_path):
    """A 0.25-minute run (start-up, training and the final evaluation) ends within its budget (and a tenth
    more for estimates of the iteration and evaluation times on a busy machine; it used to add a whole
    final evaluation and the start-up)."""
    rc = main(["--config", "smoke", *TINY, f"runs_dir={tmp_path}", "run_name=m", "max_minutes=0.25",
               "eval_every_minutes=0.1", "eval_matches=20"])
    assert rc == 0
    ck = load_checkpoint(tmp_path / "m" / "latest.pt")
    assert ck["progress"]["evals"] >= 1
    assert ck["progress"]["train_seconds"] <= 16.5


def test_temp_files_of_killed_saves_are_removed_when_a_run_starts(tmp_path):
    run = tmp_path / "t"
    (run / "pool").mkdir(parents=True)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True).stdout.strip()  # a pid that has exited
    stale = [run / f".latest.pt.tmp{dead}", run / "pool" / f".u5.pt.tmp{dead}"]
    live = run / f".best.pt.tmp{os.getpid()}"  # a save of a running process: kept
    other = run / ".notes.tmp"  # not a save's temp file: kept
    for p in [*stale, live, other]:
        p.write_bytes(b"x" * 100)
    cfg = load_config("smoke", TINY + [f"runs_dir={tmp_path}", "max_minutes=0", "eval_every_minutes=0"])
    t = Trainer(cfg, run)
    t.close()
    assert sorted(t.removed_temps) == sorted(stale)
    assert not any(p.exists() for p in stale) and live.exists() and other.exists()
    atomic_save({"a": 1}, run / "x.pt")  # a save leaves no temp file of its own
    assert remove_stale_temps(run) == [] and not list(run.glob(".x.pt.tmp*"))
