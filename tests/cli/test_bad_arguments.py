"""Every command answers a bad argument with exit status 2 and one line on stderr, before any work.

Each case runs in-process through ``allfours.cli.main(argv)``; the wording is allfours.cli.common's:
``allfours CMD: error: argument X: <what is wrong>``.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from allfours.cli import main

RAY = importlib.util.find_spec("ray") is not None
NO_RAY = "argument --ray-address: Ray is not installed: pip install '.[ray]'"
BAD = {
    "train": [
        (["--workers", "0"], "argument --workers: must be a whole number of 1 or more"),
        (["--workers", "x"], "argument --workers: must be a whole number, got 'x'"),
        (["--workers", "2"], "argument --workers: sets the number of Ray rollout actors: give --ray-address"),
        (["--config", "nope"], "config 'nope' not found"),
        (["--config", "smoke", "lr=abc"], "config lr must be a number, got 'abc'"),
        (["--config", "smoke", "nonsense=1"], "unknown config key 'nonsense'"),
        (["--config", "smoke", "rules.players=9"], "preset 'yorkshire' allows players in (4,), got 9"),
        (["--config", "smoke", "lr"], "override 'lr' must look like key=value"),
        (["--config", "smoke", "eval_opponents=[zzz]"], "config eval_opponents: 'zzz' is not an agent"),
        (["--config", "smoke", "init_from=bot:nope"], "does not exist"),
        (["--config", "{tmp}/bad.yaml"], "is not valid YAML"),
        (["--config", "smoke", "runs_dir={tmp}/file.txt"], "cannot create the run folder"),
        (["--resume", "{tmp}"], "argument --resume: '{tmp}' is not a training run folder"),
        (["--resume", "{tmp}/run", "--config", "smoke"], "argument --config: uses the run's saved config.yaml"),
        (["--resume", "{tmp}/run"], "cannot be read: it is damaged"),
        (["--resume", "{tmp}/file.txt"], "argument --resume: '{tmp}/file.txt' is a file, and its folder '{tmp}' is "
                                         "not a training run folder (no config.yaml)"),
        (["--resume", "{tmp}/nothing"], "argument --resume: '{tmp}/nothing' does not exist"),
        (["--bogus"], "unrecognized arguments: --bogus"),
        (["preset=nope"], "argument preset=nope: unknown preset 'nope': choose one of mini2, mini3, mini3x3, pitch, "
                          "setback, seven_up, traditional"),
        (["--config", "smoke", "rules.throw_in=maybe"], "override 'rules.throw_in=maybe': option throw_in must be true "
                                                        "or false, got 'maybe'"),
        (["--config", "smoke", "rules.trget=7"], "override 'rules.trget=7': unknown option 'trget': valid options "
                                                 "are players, target"),
        (["--config", "smoke", "rules.trget=7"], "; did you mean target?"),
    ],
    "eval": [
        (["--preset", "nope"], "argument --preset: unknown preset 'nope': choose one of"),
        (["--players", "9"], "argument --players: preset 'yorkshire' allows players in (4,), got 9"),
        (["--players", "0"], "argument --players: must be a whole number of 1 or more"),
        (["--matches", "3"], "argument --matches: must be a positive multiple of 2"),
        (["--matches", "-2"], "argument --matches: must be a whole number of 1 or more"),
        (["--workers", "0"], "argument --workers: must be a whole number of 1 or more"),
        (["--seed", "-1"], "argument --seed: must be a whole number from 0"),
        (["--target", "0"], "argument --target: must be a whole number of 1 or more"),
        (["--agents", "random"], "argument --agents: give at least two agents"),
        (["--agents", "random", "random"], "argument --agents: agent specs must be distinct"),
        (["--agents", "bogus", "random"], "argument --agents: unknown agent 'bogus'"),
        (["--agents", "serch", "random"], "argument --agents: unknown agent 'serch': choose one of random"),
        (["--agents", "serch", "random"], "; did you mean search?"),
        (["--agents", "search:wrlds=3", "random"], "argument --agents: unknown parameter 'wrlds' for agent 'search': "
                                                   "valid are worlds, time"),
        (["--agents", "search:playout=random", "random"], "argument --agents: search playout 'random' is not a "
                                                          "network"),
        (["--agents", "search", "Search", "random"], "argument --agents: agent specs must be distinct"),
        (["--target", "5000"], "argument --target: target must be an int from 1 to 1000, got 5000"),
        (["--rule", "target=x"], "argument --rule: option target must be a whole number, got 'x'"),
        (["--preset", "seven_up", "--agents", "bot:yorkshire", "random"],
         "argument --agents: bot:yorkshire is a network for yorkshire with 4 players, not seven_up with 2 players"),
        (["--agents", "{tmp}/none.pt", "random"], "argument --agents:"),
        (["--rule", "bogus=1"], "argument --rule: unknown option"),
        (["--rule", "x"], "argument --rule: 'x' must look like KEY=VALUE"),
        (["--json", "/nonexistent/dir/x.json"], "argument --json: cannot write '/nonexistent/dir/x.json': folder"),
        (["--json", "{tmp}"], "argument --json: '{tmp}' is a folder, not a file"),
        (["--report", "{tmp}/none.json"], "argument --report: file '{tmp}/none.json' does not exist"),
        (["--report", "{tmp}/bad.yaml"], "argument --report: '{tmp}/bad.yaml' is not a JSON file"),
        (["--report", "{tmp}/other.json"], "argument --report: '{tmp}/other.json' is not a results file"),
        (["--report", "{tmp}/other.json", "--matches", "4"], "argument --report: prints a results file and plays "
                                                             "nothing: leave out --matches"),
        (["--ray-address", "127.0.0.1:1"], "argument --ray-address: cannot reach Ray at 127.0.0.1:1"
                                           if RAY else NO_RAY),
        (["--ray-address", "http://head:8265"], "argument --ray-address: 'http://head:8265' is not a Ray address"
                                                if RAY else NO_RAY),
        (["--ray-address", "auto", "--workers", "2"], "argument --workers: sets the worker processes on this machine"),
    ],
    "exploit": [
        ([], "the following arguments are required: --bot"),
        (["--bot", "bogus"], "argument --bot: unknown agent 'bogus'"),
        (["--bot", "{tmp}/none.pt"], "argument --bot: checkpoint '{tmp}/none.pt' not found"),
        (["--bot", "bot:nope"], "argument --bot: unknown bot 'nope'"),
        (["--bot", "heuristic", "--minutes", "0"], "argument --minutes: must be a number above 0"),
        (["--bot", "heuristic", "--minutes", "-1"], "argument --minutes: must be a number above 0"),
        (["--bot", "heuristic", "--minutes", "x"], "argument --minutes: must be a number, got 'x'"),
        (["--bot", "bot:seven_up", "--preset", "yorkshire"], "bot 'bot:seven_up' is a network for seven_up with 2 "
                                                             "players, not yorkshire"),
        (["--bot", "bot:traditional_2p", "--config", "traditional"], "not traditional with 4 players"),
        (["--bot", "heuristic", "--preset", "nope"], "argument --preset: unknown preset 'nope'"),
        (["--bot", "heuristic", "--config", "nope"], "config 'nope' not found"),
        (["--bot", "heuristic", "--matches", "3"], "argument --matches: must be a positive multiple of 2"),
        (["--bot", "heuristic", "--preset", "traditional", "rules.players=3"],
         "argument --matches: must be a positive multiple of 3 for 'traditional' with 3 players"),
        (["--bot", "heuristic", "--matches", "0"], "argument --matches: must be a whole number of 1 or more"),
        (["--bot", "heuristic", "--workers", "0"], "argument --workers: must be a whole number of 1 or more"),
        (["--bot", "heuristic", "--seed", "-1"], "argument --seed: must be a whole number from 0"),
        (["--bot", "heuristic", "opp_latest=0.5"], "config key(s) opp_latest are set by the probe itself"),
        (["--bot", "heuristic", "lr=abc"], "config lr must be a number, got 'abc'"),
        (["--bot", "heuristic", "nonsense=1"], "unknown config key 'nonsense'"),
        (["--bot", "heuristic", "--run-dir", "{tmp}/run"], "run folder '{tmp}/run' already holds a run"),
        (["--bot", "heuristic", "--run-dir", "{tmp}/file.txt"], "cannot create the run folder '{tmp}/file.txt'"),
        (["--bot", "heuristic", "--json", "{tmp}"], "argument --json: '{tmp}' is a folder, not a file"),
        (["--bot", "heuristic", "--json", "/nonexistent/dir/x.json"], "argument --json: cannot write"),
    ],
    "play": [
        (["--preset", "nope"], "argument --preset: unknown preset 'nope'"),
        (["--players", "9", "--preset", "traditional"], "argument --players:"),
        (["--seat", "7"], "argument --seat: must be a seat from 0 to 3, got 7"),
        (["--seat", "x"], "argument --seat: must be a whole number, got 'x'"),
        (["--bot", "bogus"], "argument --bot: unknown agent 'bogus'"),
        (["--seed", "-1"], "argument --seed:"),
        (["--target", "0"], "argument --target:"),
        (["--target", "5000"], "argument --target: target must be an int from 1 to 1000, got 5000"),
        (["--players", "3"], "argument --players: preset 'yorkshire' allows players in (4,), got 3"),
        (["--rule", "x"], "argument --rule: 'x' must look like KEY=VALUE"),
        (["--rule", "bogus=1"], "argument --rule: unknown option 'bogus'"),
        (["--rule", "target=x"], "argument --rule: option target must be a whole number, got 'x'"),
        (["--rule", "throw_in=maybe"], "argument --rule: option throw_in must be true or false, got 'maybe'"),
        (["--rule", "low_cut_deals=true"], "argument --rule: option low_cut_deals only applies to a preset that cuts"),
        (["--target", "5", "--rule", "target=6"], "argument --rule: rule option 'target' is given twice"),
        (["--bot", "search:wrlds=3"], "argument --bot: unknown parameter 'wrlds' for agent 'search': valid are "
                                      "worlds, time, exact, bid, value, playout, seats, seed; did you mean worlds?"),
    ],
    "serve": [
        (["--port", "0"], "argument --port: must be a TCP port from 1 to 65535"),
        (["--port", "x"], "argument --port: must be a whole number"),
        (["--bot", "bogus"], "argument --bot: unknown agent 'bogus': choose one of"),
        (["--bot", "bot:nope"], "argument --bot: unknown bot 'nope': choose one of yorkshire, traditional"),
        (["--max-body-bytes", "0"], "argument --max-body-bytes:"),
        (["--log-level", "loud"], "argument --log-level: invalid choice"),
    ],
    "bot": [
        (["--preset", "nope"], "argument --preset: unknown preset 'nope'"),
        (["--bot", "bogus"], "argument --bot:"),
        (["--preset", "setback", "--bot", "nope"], "argument --bot: unknown bot 'nope' for preset 'setback': unknown "
                                                  "agent 'nope': choose one of"),
        (["--max-line-bytes", "0"], "argument --max-line-bytes:"),
    ],
    "export": [
        ([], "the following arguments are required: policy"),
        (["bot:nope"], "argument policy:"),
        (["{tmp}/none.pt"], "argument policy:"),
        (["bot:yorkshire", "-o", "/nonexistent/x.onnx"], "argument -o/--output: cannot write"),
        (["bot:yorkshire", "-o", "{tmp}"], "argument -o/--output: '{tmp}' is a folder"),
        (["bot:yorkshire", "--preset", "nope"], "argument --preset: unknown preset 'nope'"),
        (["bot:yorkshire", "--preset", "seven_up"], "argument --preset: 'bot:yorkshire' is a network for yorkshire "
                                                    "with 4 players, not seven_up: leave out --preset"),
        (["bot:pitch_4p", "--preset", "setback"], "argument --preset: 'bot:pitch_4p' is a network for pitch with 4 "
                                                  "players, not setback: leave out --preset"),
        (["bot:yorkshire", "-o", "/proc/x.onnx"], "argument -o/--output: cannot write '/proc/x.onnx'"),
        (["bot:yorkshire", "--vectors", "-1"], "argument --vectors: must be a whole number of 0 or more"),
    ],
    "bench": [
        (["--seconds", "0"], "argument --seconds: must be a number above 0"),
        (["--seconds", "inf"], "argument --seconds: must be a number above 0"),
        (["--seconds", "x"], "argument --seconds: must be a number, got 'x'"),
        (["--repeats", "0"], "argument --repeats: must be a whole number of 1 or more"),
    ],
}
CASES = [(cmd, argv, msg) for cmd, cases in BAD.items() for argv, msg in cases]


@pytest.fixture
def files(tmp_path, monkeypatch):
    """A folder with a bad YAML file, a JSON file that is no results file, a plain file, a run folder
    whose checkpoint is damaged; the current folder too (nothing may land in the repository)."""
    (tmp_path / "bad.yaml").write_text("lr: [1\n")
    (tmp_path / "other.json").write_text(json.dumps({"hello": 1}))
    (tmp_path / "file.txt").write_text("not a folder")
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "config.yaml").write_text("preset: yorkshire\n")
    (tmp_path / "run" / "latest.pt").write_bytes(b"\x00damaged" * 8)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(argv: list[str], capsys) -> tuple[int, str]:
    capsys.readouterr()
    try:
        rc = main(argv)
    except SystemExit as e:
        rc = e.code
    return rc, capsys.readouterr().err


@pytest.mark.parametrize("cmd,argv,msg", CASES, ids=[f"{c}-{' '.join(a)}" for c, a, _ in CASES])
def test_a_bad_argument_gets_one_line_and_status_2(cmd, argv, msg, files, capsys):
    argv = [a.replace("{tmp}", str(files)) for a in argv]
    rc, err = run([cmd, *argv], capsys)
    assert rc == 2, err
    assert err.count("\n") == 1 and err.endswith("\n") and "Traceback" not in err, err
    assert err.startswith(f"allfours {cmd}: error: "), err
    assert msg.replace("{tmp}", str(files)) in err, err


@pytest.mark.subprocess
def test_an_unknown_command_is_one_line():
    proc = subprocess.run([sys.executable, "-m", "allfours", "trian"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "unknown command 'trian'" in proc.stderr


# Refused before torch, the agents and the trainer are imported: argparse's checks, the game's rules, the config's
# name. (Checks that build an agent, load a checkpoint or read a config's keys come after.)
BEFORE_TORCH = [["eval", "--preset", "nope"], ["eval", "--players", "9"], ["eval", "--rule", "bogus=1"],
                ["eval", "--matches", "0"], ["train", "--config", "nope"], ["train", "--workers", "0"],
                ["train", "--bogus"], ["export", "bot:yorkshire", "--vectors", "-1"],
                ["export", "bot:yorkshire", "--preset", "nope"], ["exploit", "--preset", "nope"],
                ["exploit", "--bot", "heuristic", "--config", "nope"],
                ["exploit", "--bot", "heuristic", "--minutes", "0"]]
PROBE = """
import sys
from allfours.cli import main
try:
    rc = main(sys.argv[1:])
except SystemExit as e:  # argparse's exit, where a command lets it through
    rc = e.code
heavy = sorted(m for m in ("torch", "allfours.agents", "allfours.train.config", "allfours.train.trainer")
               if m in sys.modules)
print(rc, ",".join(heavy) or "-")
"""


@pytest.mark.subprocess
@pytest.mark.parametrize("argv", BEFORE_TORCH, ids=[" ".join(a) for a in BEFORE_TORCH])
def test_a_bad_argument_is_refused_before_torch_is_imported(argv):
    proc = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, timeout=60)
    assert proc.stdout.split() == ["2", "-"], (proc.stdout, proc.stderr)
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith(f"allfours {argv[0]}: error: "), proc.stderr


# Options of each command with something to put after them; every list also holds an option no
# command has, so no list can start real work (a server, a training run) whatever else it holds.
OPTIONS = {
    "train": ["--config", "--resume", "--ray-address", "--workers", "--print-config", "lr=abc", "num_envs=0"],
    "eval": ["--preset", "--players", "--agents", "--matches", "--seed", "--workers", "--target", "--rule", "--json",
             "--report", "--no-progress", "--ray-address"],
    "exploit": ["--bot", "--minutes", "--preset", "--config", "--matches", "--seed", "--workers", "--run-dir", "--json",
                "--no-progress", "heuristic", "opp_latest=1"],
    "play": ["--preset", "--players", "--seat", "--bot", "--seed", "--target", "--rule"],
    "serve": ["--host", "--port", "--bot", "--max-body-bytes", "--log-level"],
    "bot": ["--preset", "--bot", "--max-line-bytes"],
    "export": ["bot:yorkshire", "-o", "--output", "--preset", "--vectors", "--seed", "--dynamo", "--no-check"],
    "bench": ["--seconds", "--repeats"],
}
VALUES = st.one_of(st.sampled_from(["0", "-1", "1", "3", "x", "nan", "inf", "1e99", "", " ", "a\nb", "yorkshire",
                                    "random", "bogus", "/nonexistent/x", "--", "-"]),
                   st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=8))


@st.composite
def bad_argv(draw):
    cmd = draw(st.sampled_from(sorted(OPTIONS)))
    tokens = draw(st.lists(st.one_of(st.sampled_from(OPTIONS[cmd]), VALUES), max_size=6))
    tokens.insert(draw(st.integers(0, len(tokens))), "--no-such-option")
    return [cmd, *tokens]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(argv=bad_argv())
def test_random_bad_argument_lists_get_one_line_and_status_2(argv, files, capsys):
    rc, err = run(argv, capsys)
    assert rc == 2, (argv, err)
    assert err.count("\n") == 1 and err.startswith(f"allfours {argv[0]}: error: ") and "Traceback" not in err, (
        argv, err)


def test_the_commands_find_a_config_as_the_trainer_does(tmp_path, monkeypatch):
    """``--config`` is checked before the trainer is imported (``allfours.cli.common.config_file``): it takes what
    ``allfours.train.config.resolve_config_path`` takes, and nothing else."""
    import argparse

    from allfours.cli.common import config_file, config_names
    from allfours.train.config import config_names as trainer_names
    from allfours.train.config import resolve_config_path

    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine.yaml").write_text("preset: seven_up\n")
    (tmp_path / "plain").write_text("preset: seven_up\n")
    (tmp_path / "smoke").mkdir()  # a folder named like a config: the path exists
    assert config_names() == trainer_names()
    for text in [*config_names(), "nope", "smoke.yaml", "mine.yaml", "mine", "plain", "smoke", "nope.yml",
                 str(tmp_path / "mine.yaml")]:
        try:
            resolve_config_path(text)
            trainer = True
        except ValueError:
            trainer = False
        try:
            command = config_file(text) == text
        except argparse.ArgumentTypeError as e:
            command = False
            assert str(e).startswith(f"config {text!r} not found: give a YAML file or one of ")
        assert command == trainer, text
