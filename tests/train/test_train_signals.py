"""Stopping a training run: SIGTERM, SIGINT and SIGHUP save the last update, a signal during the save
does not lose it, the run resumes from it; best.pt only after an evaluation."""

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch
from helpers import CommandRun

from allfours.agents.network.checkpoint import load_checkpoint
from allfours.cli.train import main
from allfours.train.config import load_config
from allfours.train.trainer import RunStop, Trainer

REPO = Path(__file__).resolve().parents[2]
SLOW_SAVE = Path(__file__).with_name("slow_save.py")  # `allfours` whose saves after a stop signal are slow
TINY = ["num_envs=16", "rollout_steps=8", "hidden=[32,32]", "minibatch_size=64", "eval_matches=4",
        "eval_opponents=[random]", "best_metric=random", "search_eval_every=0", "snapshot_every=1",
        "scripted_opponents=[random]", "opp_scripted=0.2", "opp_snapshot=0.3", "opp_latest=0.5"]
ROLLOUT = 16 * 8
STOPPED = re.compile(r"stopped by (SIG[A-Z]+) after ([\d,]+) decisions, (\d+) updates, .* saved (\S+)latest\.pt"
                     r"(.*); continue with: (allfours train --resume \S+)$")


class Run(CommandRun):
    """``allfours train`` in its own session (a terminal's process group), the default process collector;
    the evaluation is due only after 10 minutes, so none happens. ``slow_save``: seconds every save waits
    once a stop signal has come (tests/train/slow_save.py)."""

    def __init__(self, tmp_path, *extra, slow_save: float = 0):
        command = [sys.executable, str(SLOW_SAVE), str(slow_save)] if slow_save else [sys.executable, "-m", "allfours"]
        cmd = [*command, "train", "--config", "smoke", *TINY, f"runs_dir={tmp_path}", "run_name=r", "max_minutes=10",
               "eval_every_minutes=10", "checkpoint_every_updates=2", *extra]
        super().__init__(cmd, tmp_path / "r", REPO, name="training")


def _check_stopped(run: Run, rc: int, out: str, err: str, sig: str) -> tuple[dict, re.Match]:
    """Exit 0, no traceback or leak warning from any process, the last line says what was saved."""
    assert rc == 0, err
    for text in (out, err):
        assert "Traceback" not in text and "leaked" not in text and "KeyboardInterrupt" not in text, text
    last = out.strip().splitlines()[-1]
    m = STOPPED.search(last)
    assert m and m.group(1) == sig, last
    ck = load_checkpoint(run.run_dir / "latest.pt")
    assert ck["progress"]["steps"] == int(m.group(2).replace(",", "")) and ck["progress"]["updates"] == int(m.group(3))
    assert Path(m.group(4)) == run.run_dir
    assert not (run.run_dir / "best.pt").exists()  # no evaluation yet: no best.pt
    return ck, m


@pytest.mark.subprocess
def test_sigterm_saves_the_last_update_and_resume_continues_it(tmp_path):
    run = Run(tmp_path, "progress_bar=true")
    run.wait_training()
    run.signal(signal.SIGTERM)  # as `kill`, `timeout` and schedulers send it: to the learner only
    rc, out, err = run.finish()
    ck, m = _check_stopped(run, rc, out, err, "SIGTERM")
    assert ck["progress"]["updates"] >= 2 and not m.group(5)
    # the bar counts decisions and the time budget, never seconds per second
    assert "dec/s" in err and "/10 min, ETA " in err and "s/s" not in err

    # the checkpoint holds the optimizer as it was ...
    t = Trainer.resume(run.run_dir, load_config(run.run_dir / "config.yaml", ["collector=inline"]))
    try:
        for pid, state in ck["optimizer"]["state"].items():
            for key, value in state.items():
                assert torch.equal(t.opt.state_dict()["state"][pid][key], value)
    finally:
        t.close()
    # ... and the command the last line gives continues the step count from it
    steps, updates = ck["progress"]["steps"], ck["progress"]["updates"]
    argv = m.group(6).split()[2:] + [f"total_steps={steps + 2 * ROLLOUT}", "max_minutes=0", "progress_bar=false"]
    assert main(argv) == 0
    after = load_checkpoint(run.run_dir / "latest.pt")
    assert after["progress"]["steps"] == steps + 2 * ROLLOUT and after["progress"]["updates"] == updates + 2
    assert float(after["optimizer"]["state"][0]["step"]) > float(ck["optimizer"]["state"][0]["step"])


@pytest.mark.subprocess
def test_two_quick_ctrl_c_at_a_terminal_save_once(tmp_path):
    run = Run(tmp_path, "progress_bar=false")
    run.wait_training()
    run.signal(signal.SIGINT, group=True)  # a terminal's Ctrl-C reaches the worker too
    time.sleep(0.005)
    run.signal(signal.SIGINT, group=True)
    rc, out, err = run.finish()
    _check_stopped(run, rc, out, err, "SIGINT")
    assert err.count("stopping (SIGINT): saving") == 1


@pytest.mark.subprocess
def test_a_signal_during_the_save_waits_for_it(tmp_path):
    run = Run(tmp_path, "progress_bar=false", slow_save=3)  # the stop's save takes 3 s more
    run.wait_training()
    run.signal(signal.SIGTERM)
    run.wait_for(lambda: any("stopping (SIGTERM): saving" in line for line in run.err), "stopping notice")
    run.signal(signal.SIGHUP, group=True)  # the terminal closes while it saves: worker and tracker too
    rc, out, err = run.finish()
    _, m = _check_stopped(run, rc, out, err, "SIGTERM")
    assert "1 further signal during the save waited for it" in m.group(5)


def _reader_setup(group: int) -> None:
    """The pipe's reader as at a terminal: in the trainer's process group, ended by SIGINT (a shell that
    started the tests in the background may have left SIGINT ignored, and ignoring survives exec)."""
    os.setpgid(0, group)
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.subprocess
def test_ctrl_c_through_a_pipe_whose_reader_dies_too_saves_and_logs(tmp_path):
    """`allfours train 2>&1 | tee LOG` at a terminal: Ctrl-C's SIGINT ends tee as well, so every later
    write to the pipe fails (EPIPE). The run still saves, exits 0, and its train.log has all of it."""
    cmd = [sys.executable, "-m", "allfours", "train", "--config", "smoke", *TINY, f"runs_dir={tmp_path}",
           "run_name=r", "max_minutes=10", "eval_every_minutes=10", "checkpoint_every_updates=2", "progress_bar=true"]
    read, write = os.pipe()
    trainer = subprocess.Popen(cmd, cwd=REPO, stdin=subprocess.DEVNULL, stdout=write, stderr=write,
                               preexec_fn=os.setpgrp, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    tee = subprocess.Popen(["tee", str(tmp_path / "tee.log")], stdin=read, stdout=subprocess.DEVNULL,
                           preexec_fn=lambda: _reader_setup(trainer.pid))
    os.close(read)  # tee holds the only reading end: once it dies, the trainer's writes fail
    os.close(write)
    try:
        latest = tmp_path / "r" / "latest.pt"
        deadline = time.time() + 150
        while not (latest.exists() and load_checkpoint(latest)["progress"]["updates"] >= 2):
            assert trainer.poll() is None and time.time() < deadline, "no checkpoint of update 2 in time"
            time.sleep(0.05)
        os.killpg(trainer.pid, signal.SIGINT)
        assert tee.wait(timeout=30) == -signal.SIGINT  # the reader is gone ...
        rc = trainer.wait(timeout=120)  # ... and the trainer, writing into its closed pipe, carries on
    finally:
        for proc in (trainer, tee):
            if proc.poll() is None:
                proc.kill()
    assert rc == 0
    log = (tmp_path / "r" / "train.log").read_text()
    assert "Traceback" not in log and "BrokenPipe" not in log, log
    assert log.startswith(f"training yorkshire -> {tmp_path / 'r'}")
    assert "stopping (SIGINT): saving" in log
    last = log.strip().splitlines()[-1]
    m = STOPPED.search(last)
    assert m and m.group(1) == "SIGINT", last
    ck = load_checkpoint(tmp_path / "r" / "latest.pt")
    assert ck["progress"]["updates"] == int(m.group(3)) >= 2
    assert "\r" not in log  # the bar's redraws are not in the log, its last state on a line is
    # a resume appends to the same log
    argv = m.group(6).split()[2:] + [f"total_steps={ck['progress']['steps'] + ROLLOUT}", "max_minutes=0",
                                     "progress_bar=false"]
    assert main(argv) == 0
    again = (tmp_path / "r" / "train.log").read_text()
    assert again.startswith(log) and f"resuming {tmp_path / 'r'} at " in again[len(log):]
    done = f"done: {ck['progress']['steps'] + ROLLOUT:,} decisions"
    assert any(line.startswith(done) for line in again[len(log):].splitlines()), again[len(log):]


# ------------------------------------------------------------------ in-process: the same paths, deterministically
def _trainer(tmp_path, *extra):
    cfg = load_config("smoke", TINY + [f"runs_dir={tmp_path}", "max_minutes=0", "progress_bar=false",
                                       "collector=inline", *extra])
    return Trainer(cfg, tmp_path / "t")


def test_best_pt_only_after_an_evaluation(tmp_path):
    t = _trainer(tmp_path, f"total_steps={2 * ROLLOUT}", "eval_every_minutes=0")
    t.train()
    assert (t.run_dir / "latest.pt").exists() and not (t.run_dir / "best.pt").exists()
    t = _trainer(tmp_path / "e", f"total_steps={ROLLOUT}", "eval_every_minutes=0.0001")
    summary = t.train()
    best = load_checkpoint(t.run_dir / "best.pt")
    assert best["best_score"] == summary["last_eval"]["random"]["win_rate"] == summary["best_score"]
    assert best["progress"]["evals"] == 1


def test_a_stop_during_an_evaluation_abandons_it(tmp_path, monkeypatch):
    t = _trainer(tmp_path, f"total_steps={4 * ROLLOUT}", "eval_every_minutes=0.0001")
    stop = RunStop()

    def evaluating(with_search=False):
        stop.request(signal.SIGTERM)  # what the handler does when the signal comes mid-evaluation
        raise AssertionError("the stop abandons the evaluation")

    monkeypatch.setattr(t.evaluation, "play", evaluating)
    summary = t.train(stop=stop)
    assert summary["stopped_by"] == "SIGTERM" and summary["updates"] == 1 and summary["evals"] == 0
    ck = load_checkpoint(t.run_dir / "latest.pt")
    assert ck["progress"]["updates"] == 1 and "next_eval_seconds" not in ck["progress"]  # due again on resume
    assert not (t.run_dir / "best.pt").exists() and not ck["last_eval"]


def test_a_stop_during_a_save_is_held_until_it_is_written(tmp_path, monkeypatch):
    t = _trainer(tmp_path, f"total_steps={3 * ROLLOUT}", "eval_every_minutes=0", "checkpoint_every_updates=1")
    stop = RunStop()
    save = t.save

    def saving(best=False):
        if t.progress["updates"] == 2 and not stop.requested:
            stop.request(signal.SIGINT)  # mid-save: noted, nothing raised
            stop.request(signal.SIGTERM)  # a further one, also held
        return save(best)

    monkeypatch.setattr(t, "save", saving)
    summary = t.train(stop=stop)
    # the first stop signal is the stop itself, not a "further signal" (even when it lands in a periodic save)
    assert summary["stopped_by"] == "SIGINT" and summary["signals_during_save"] == 1 and summary["updates"] == 2
    assert load_checkpoint(t.run_dir / "latest.pt")["progress"]["updates"] == 2
