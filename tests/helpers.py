"""Helpers shared by the tests: card masks, legal action names, scripted play, positions of random play,
the vector engine's scalar twin, a command run in its own session, ``allfours eval`` stopped half way."""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time

import pytest

from allfours.agents.network.checkpoint import load_checkpoint
from allfours_env.cards import THROW_IN, action_name, parse_action, parse_card
from allfours_env.engine import GameState
from allfours_env.vector import twin_state


def mask(*cs: str) -> int:
    return sum(1 << parse_card(c) for c in cs)


def legal(s: GameState) -> set[str]:
    return {action_name(a) for a in s.legal_actions()}


def random_positions(preset: str, options: dict, seed: int, every: float) -> list[GameState]:
    """Clones of one match of uniform random play (seeded ``seed``), each position kept with chance ``every``."""
    rng = random.Random(seed)
    s = GameState.new(preset, seed=seed, **options)
    out = []
    while not s.done:
        if rng.random() < every:
            out.append(s.clone())
        s.apply(rng.choice(s.legal_actions()))
    return out


def play(s: GameState, *moves: str) -> None:
    for m in moves:
        s.apply(parse_action(m))


def finish(s: GameState) -> None:
    """Play out the current hand: every player plays its lowest legal card (never throws in)."""
    start = s.hand_no
    while not s.done and s.hand_no == start:
        s.apply(next(a for a in s.legal_actions() if a != THROW_IN))


def reference(rules, seed: int, match: int, deal=None, scores=None) -> tuple[GameState, int]:
    """The scalar twin of a vector game's match (skipping matches won before any decision, as it does)."""
    while True:
        s = twin_state(rules, seed, match, deal=deal, scores=scores)
        if not s.done:
            return s, match
        match, deal, scores = match + 1, None, None


class CommandRun:
    """A command in its own session (a terminal's process group), its output read as it comes."""

    def __init__(self, cmd: list[str], run_dir, cwd, env: dict | None = None, name: str = "the command"):
        self.run_dir, self.name = run_dir, name
        self.proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     start_new_session=True, env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})})
        self.out, self.err = [], []
        self._readers = [threading.Thread(target=self._read, args=(f, lines), daemon=True)
                         for f, lines in ((self.proc.stdout, self.out), (self.proc.stderr, self.err))]
        for t in self._readers:
            t.start()

    @staticmethod
    def _read(f, lines):
        for line in f:
            lines.append(line)

    def wait_for(self, test, what: str, timeout: float = 150):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if test():
                return
            if self.proc.poll() is not None:
                pytest.fail(f"{self.name} ended (rc {self.proc.returncode}) before {what}:\n{''.join(self.err)}")
            time.sleep(0.05)
        self.proc.kill()
        pytest.fail(f"no {what} in time")

    def wait_training(self, updates: int = 2):
        latest = self.run_dir / "latest.pt"
        self.wait_for(lambda: latest.exists() and load_checkpoint(latest)["progress"]["updates"] >= updates,
                      f"checkpoint of update {updates}")

    def signal(self, sig, group: bool = False):
        """To the process only (as `kill` sends it), or to every process of its group (as a terminal)."""
        (os.killpg if group else os.kill)(self.proc.pid, sig)

    def finish(self, timeout: float = 120) -> tuple[int, str, str]:
        try:
            rc = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise
        for t in self._readers:
            t.join(timeout=10)
        return rc, "".join(self.out), "".join(self.err)


def eval_stopped_half_way(how: list[str], sig: int, out, env: dict | None = None,
                          start_timeout: float = 150) -> tuple[str, str, dict]:
    """``allfours eval`` of random against heuristic, 100,000 matches of seed 3 on ``how`` (``--workers 2``,
    ``--ray-address local``), stopped once 20 matches are done: SIGINT to its whole process group (a terminal's
    Ctrl-C), another signal to the command alone. Checks what every such stop shows (the exit status 128 +
    signal, no traceback, the stop named on stderr, a partial report in ``out`` of the matches played) and
    returns stdout, stderr and that report."""
    cmd = [sys.executable, "-m", "allfours", "eval", "--preset", "seven_up", "--agents", "random", "heuristic",
           "--matches", "100000", *how, "--seed", "3", "--json", str(out)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            env=env)
    err = []
    reader = threading.Thread(target=lambda: err.extend(iter(lambda: proc.stderr.read(200), "")), daemon=True)
    reader.start()
    deadline = time.time() + start_timeout
    while not re.search(r"\| *([2-9]\d|\d{3,})/100000", "".join(err)):  # 20 matches or more done
        assert time.time() < deadline and proc.poll() is None, "".join(err)
        time.sleep(0.05)
    (os.killpg if sig == signal.SIGINT else os.kill)(proc.pid, sig)
    proc.wait(timeout=90)
    stdout = proc.stdout.read()  # (communicate() would read stderr too, taking pieces from the reader)
    reader.join(timeout=10)
    stderr, name = "".join(err), signal.Signals(sig).name
    assert proc.returncode == 128 + sig, stderr
    assert "Traceback" not in stdout + stderr
    assert f"allfours eval: stopped by {name} after " in stderr
    data = json.loads(out.read_text())
    assert data["partial"] and data["stopped_by"] == name
    assert 20 <= data["matches_played"] <= data["matches_finished"] < data["matches_planned"] == 100000
    assert data["matches_played"] % 2 == 0 and data["results"][0]["matches"] == data["matches_played"]
    assert stdout.startswith("PARTIAL")
    return stdout, stderr, data


def new_hand(hands, preset="pitch", dealer=1, scores=None, events=False, **options):
    """A hand of ``preset`` from exact hands (as card codes), ``dealer`` dealing; players from the hands."""
    options.setdefault("players", len(hands))
    return GameState.new(preset, deal={"dealer": dealer, "hands": hands}, scores=scores, record_events=events,
                         **options)


def play_words(s, *words: str):
    """Play moves named as words ('PASS', 'BID_2', 'TH') on ``s``, each asserted legal first; returns ``s``."""
    for w in words:
        a = parse_action(w)
        assert s.is_legal(a), f"{w} is not legal: {[action_name(x) for x in s.legal_actions()]}"
        s.apply(a)
    return s
