"""Evaluation on Ray (agents/evaluation/ray_eval.py): the figures of ``--workers 1`` on the same seed, a killed task
retried without changing them, the progress bar and the partial report, and one line per bad input."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import signal
import sys
import time
from pathlib import Path

import pytest
from helpers import eval_stopped_half_way

from allfours.agents import evaluation as ev
from allfours.agents.evaluation import matches, ray_eval
from allfours.agents.players.random_agent import RandomAgent
from allfours.agents.spec import AgentSpec
from allfours.cli import eval as eval_cli

try:
    import ray
except ImportError:
    ray = None
needs_ray = pytest.mark.skipif(ray is None, reason="Ray not installed: pip install '.[ray]'")

ROOT = Path(__file__).resolve().parents[2]
# two presets, one with a network bot; a few matches per pairing
CASES = {"seven_up": ["--preset", "seven_up", "--agents", "random", "heuristic", "bot:seven_up", "--matches", "8",
                      "--seed", "4"],
         "yorkshire": ["--preset", "yorkshire", "--agents", "heuristic", "random", "--matches", "6", "--seed", "2"]}


def one_line(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


# ------------------------------------------------------------------ before any Ray is started here
@needs_ray
@pytest.mark.ray
def test_an_address_that_does_not_answer_is_one_line_and_does_not_hang(capsys):
    if ray.is_initialized():
        pytest.skip("Ray is already started in this process")
    t0 = time.perf_counter()
    # a black hole (no answer within the timeout), or, behind a proxy, an answer that is not Ray's
    with pytest.raises(ConnectionError, match=r"^cannot reach Ray at 10\.255\.255\.1:6379: (no answer from "
                                              r"10\.255\.255\.1:6379 within 1 s|.* answers, but )"):
        ray_eval.connect("10.255.255.1:6379", timeout=1.0)
    assert time.perf_counter() - t0 < 15
    assert eval_cli.main(["--preset", "seven_up", "--ray-address", "127.0.0.1:1"]) == 2
    assert "allfours eval: error: argument --ray-address: cannot reach Ray at 127.0.0.1:1" in one_line(capsys)
    assert not ray.is_initialized()


@needs_ray
@pytest.mark.ray
def test_auto_without_a_cluster_says_how_to_start_one(monkeypatch, capsys):
    if ray.is_initialized() or os.path.exists("/tmp/ray/ray_current_cluster"):
        pytest.skip("a Ray cluster may be running on this machine")
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    assert eval_cli.main(["--preset", "seven_up", "--ray-address", "auto"]) == 2
    assert "argument --ray-address: no running Ray cluster found on this machine" in one_line(capsys)


def test_without_ray_the_message_names_the_extra(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ImportError
    assert eval_cli.main(["--preset", "seven_up", "--ray-address", "local"]) == 2
    assert "argument --ray-address: Ray is not installed: pip install '.[ray]'" in one_line(capsys)


def test_addresses():
    assert ray_eval.split_address("10.0.0.5:6379") == ("10.0.0.5", 6379)
    assert ray_eval.split_address("head") == ("head", 6379)
    assert ray_eval.split_address("ray://head") == ("head", 10001)
    for bad in ("http://x:80", "head:0", "head:x", ":6379"):
        with pytest.raises(ValueError, match="is not a Ray address"):
            ray_eval.split_address(bad)
    assert ray_eval.chunk_size(24, 2) == 1 and ray_eval.chunk_size(100000, 64) == 16


# ------------------------------------------------------------------ on a local Ray, 2 CPUs
@pytest.fixture(scope="module")
def by_processes(tmp_path_factory):
    """The JSON figures of ``--workers 1`` for each case."""
    out = {}
    for name, argv in CASES.items():
        path = tmp_path_factory.mktemp("w1") / "r.json"
        assert eval_cli.main([*argv, "--workers", "1", "--no-progress", "--json", str(path)]) == 0
        out[name] = json.loads(path.read_text())
    return out


def figures(out: dict) -> dict:
    return {k: v for k, v in out.items() if k != "seconds"}


@pytest.mark.parametrize("name", list(CASES))
def test_ray_figures_are_those_of_one_worker(name, local_ray, by_processes, tmp_path, capsys):
    path = tmp_path / "r.json"
    capsys.readouterr()
    assert eval_cli.main([*CASES[name], "--ray-address", "local", "--json", str(path)]) == 0
    out = json.loads(path.read_text())
    assert figures(out) == figures(by_processes[name])
    planned = len(out["results"]) // 2 * out["matches_per_pairing"]
    assert f"{planned}/{planned}" in capsys.readouterr().err  # the progress bar ran to the end


def schedule(argv: list[str]) -> list[matches.Task]:
    """The matches of ``allfours eval ARGV`` (a round robin), as the command makes them."""
    at = {k: argv.index(k) for k in ("--preset", "--agents", "--matches", "--seed")}
    specs = [AgentSpec.parse(a) for a in argv[at["--agents"] + 1:at["--matches"]]]
    return matches.make_tasks([(a, b) for i, a in enumerate(specs) for b in specs[i + 1:]], argv[at["--preset"] + 1],
                              int(argv[at["--matches"] + 1]), int(argv[at["--seed"] + 1]))


def dies_once_at(victim: matches.Task, marker: str):
    """``run_task``, except that the first attempt at ``victim`` ends its worker process (as a node lost mid-task
    would); it makes ``marker`` first, so the retry plays the match. Made in a function: Ray sends it by value."""

    def play(task):
        if task == victim:
            try:
                os.close(os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
                os._exit(1)  # the first attempt: the worker process dies mid-task
            except FileExistsError:
                pass  # the retry
        return matches.run_task(task)

    return play


@pytest.mark.parametrize("name", list(CASES))
def test_a_task_killed_mid_run_is_retried_and_the_results_stay(name, local_ray, tmp_path):
    tasks = schedule(CASES[name])
    marker = tmp_path / "killed"
    got = dict(ray_eval.imap(tasks, "local", dies_once_at(tasks[3], str(marker)), matches.task_agent))
    assert marker.exists()  # the first attempt at match 3 did die
    assert [got[i] for i in range(len(tasks))] == [matches.run_task(t) for t in tasks]


def test_an_agent_a_node_cannot_load_is_named(local_ray, monkeypatch, capsys):
    real = matches.make_agent

    def here_only(spec, **kw):  # this process has the checkpoint; the Ray workers do not
        return RandomAgent() if str(spec) == "/nowhere/nodeless.pt" else real(spec, **kw)

    monkeypatch.setattr(matches, "_AGENT_CACHE", {})
    monkeypatch.setattr(matches, "make_agent", here_only)
    argv = ["--preset", "seven_up", "--agents", "/nowhere/nodeless.pt", "random", "--matches", "4", "--no-progress"]
    assert eval_cli.main([*argv, "--ray-address", "local"]) == 2
    err = one_line(capsys)
    assert re.search(r"allfours eval: error: agent '/nowhere/nodeless.pt' cannot be loaded on Ray node .+: "
                     r"checkpoint '/nowhere/nodeless.pt' not found", err), err


def test_in_memory_agents_and_workers_are_refused(local_ray, capsys):
    with pytest.raises(ValueError, match="leave out ray_address"):
        ev.evaluate_pairings([("mine", "random")], preset="seven_up", matches=2, workers=1, progress=False,
                             agents={"mine": RandomAgent()}, ray_address="local")
    assert eval_cli.main(["--ray-address", "local", "--workers", "2"]) == 2
    assert "argument --workers: sets the worker processes on this machine" in one_line(capsys)


def test_leaderboard_check_replays_a_board_through_either_path(local_ray, tmp_path, capsys):
    spec = importlib.util.spec_from_file_location("leaderboard_ray", ROOT / "benchmarks" / "leaderboard.py")
    lb = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(lb)
    doc = tmp_path / "benchmark.md"
    doc.write_text("# Board\n\n<!-- leaderboard:seven_up {} -->\nold\n<!-- leaderboard:seven_up end -->\n")
    run = ["--doc", str(doc), "--presets", "seven_up", "--agents", "random", "heuristic", "--matches", "6",
           "--seed", "1", "--no-progress"]
    assert lb.main([*run, "--ray-address", "local"]) == 0  # written by Ray
    written = doc.read_text()
    assert lb.main([*run, "--workers", "1", "--check"]) == 0  # the processes find it current
    assert lb.main([*run, "--ray-address", "local", "--check"]) == 0  # and so does Ray
    assert capsys.readouterr().out.count("seven_up: current") == 2 and doc.read_text() == written
    assert lb.main([*run, "--ray-address", "local", "--workers", "2", "--check"]) == 2
    assert "argument --workers: sets the worker processes" in one_line(capsys)


# ------------------------------------------------------------------ stopped half way, in a process of its own
@needs_ray
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])  # exit 130, 143
@pytest.mark.subprocess
@pytest.mark.ray
def test_stopped_on_ray_writes_the_partial_report(sig, tmp_path):
    """Ctrl-C to the whole process group (a local Ray's processes too) or SIGTERM to the command."""
    eval_stopped_half_way(["--ray-address", "local"], sig, tmp_path / "r.json", env=dict(os.environ, RAY_ADDRESS=""),
                          start_timeout=180)
