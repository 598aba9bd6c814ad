"""Helpers shared by the tests: card masks, legal action names, scripted play, the vector engine's
scalar twin, a command run in its own session."""

from __future__ import annotations

import os
import subprocess
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
