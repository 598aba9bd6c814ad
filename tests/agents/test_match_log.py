"""``MatchLog``: a long run's finished matches on disk, and ``allfours exploit --method search --match-log``
going on where a stopped run was."""

import json

import pytest

from allfours.agents.evaluation.match_log import MatchLog, MatchLogError
from allfours.agents.exploitability.search_probe import run_search_exploit
from allfours.cli import main

HEAD = {"target": "heuristic", "seed": 0, "matches_planned": 4, "spec": ("a", 1)}


def test_matches_read_back_as_written(tmp_path):
    path = tmp_path / "sub" / "log.jsonl"
    log = MatchLog(path, HEAD, tasks=4)
    assert log.load() == {} and path.exists()
    log.append(2, {"winner": 1, "gain": 0.1 + 0.2, "hands": [(3, -1)]})
    log.append(0, {"winner": 0, "gain": 1 / 3, "hands": []})
    again = MatchLog(path, HEAD, tasks=4).load()
    assert again == {2: {"winner": 1, "gain": 0.1 + 0.2, "hands": [[3, -1]]}, 0: {"winner": 0, "gain": 1 / 3,
                                                                                  "hands": []}}
    assert again[2]["gain"] == 0.1 + 0.2  # a float reads back exactly


def test_another_runs_log_is_refused_naming_what_differs(tmp_path):
    path = tmp_path / "log.jsonl"
    MatchLog(path, HEAD, tasks=4).load()
    with pytest.raises(MatchLogError, match="another run's .*differs in seed"):
        MatchLog(path, {**HEAD, "seed": 1}, tasks=4).load()
    other = tmp_path / "other.txt"
    other.write_text("hello\n")
    with pytest.raises(MatchLogError, match="not a match log"):
        MatchLog(other, HEAD, tasks=4).load()


def test_a_last_line_cut_short_is_played_again_and_the_file_mended(tmp_path):
    path = tmp_path / "log.jsonl"
    log = MatchLog(path, HEAD, tasks=4)
    log.load()
    log.append(1, {"winner": 0})
    with path.open("a") as f:
        f.write('{"index": 3, "result": {"win')  # the process was killed while writing
    log = MatchLog(path, HEAD, tasks=4)
    assert log.load() == {1: {"winner": 0}} and log.dropped == 1
    log.append(3, {"winner": 1})
    assert MatchLog(path, HEAD, tasks=4).load() == {1: {"winner": 0}, 3: {"winner": 1}}


@pytest.mark.parametrize("line, words", [
    ("not json", "line 2: not JSON"),
    ('{"index": 9, "result": {}}', "line 2: not a match of this run"),
    ('{"index": 1}', "line 2: not a match of this run"),
    ('{"index": 1, "result": {}}', "line 3: match 1 is in the file twice"),
])
def test_a_damaged_log_is_an_error_not_a_figure(tmp_path, line, words):
    path = tmp_path / "log.jsonl"
    log = MatchLog(path, HEAD, tasks=4)
    log.load()
    with path.open("a") as f:
        f.write(("" if "twice" not in words else '{"index": 1, "result": {}}\n') + line + "\n"
                + '{"index": 0, "result": {}}\n')
    with pytest.raises(MatchLogError, match=words):
        MatchLog(path, HEAD, tasks=4).load()


def _figures(report: dict) -> dict:
    return {k: v for k, v in report.items() if not k.startswith("move_seconds")}


def test_a_stopped_run_goes_on_from_its_log_to_the_same_figures(tmp_path, monkeypatch):
    kwargs = dict(preset="seven_up", matches=4, seed=0, worlds=2, candidates=32, workers=1, progress=False)
    whole = run_search_exploit("heuristic", **kwargs)
    path = tmp_path / "log.jsonl"
    first = run_search_exploit("heuristic", log=path, **kwargs)
    lines = path.read_text().splitlines()
    assert len(lines) == 5 and _figures(first) == _figures(whole)
    path.write_text("\n".join(lines[:3]) + "\n")  # stopped after two matches
    played = []
    import allfours.agents.exploitability.search_probe as probe
    real = probe._played
    monkeypatch.setattr(probe, "_played", lambda t: played.append(t) or real(t))
    resumed = run_search_exploit("heuristic", log=path, **kwargs)
    assert len(played) == 2 and len(path.read_text().splitlines()) == 5
    assert _figures(resumed) == _figures(whole)
    played.clear()
    assert _figures(run_search_exploit("heuristic", log=path, **kwargs)) == _figures(whole) and not played


def test_the_command_names_a_bad_log_in_one_line(tmp_path, capsys):
    path = tmp_path / "log.jsonl"
    path.write_text(json.dumps({"head": {"target": "bot:seven_up"}}) + "\n")
    argv = ["exploit", "--method", "search", "--bot", "heuristic", "--preset", "seven_up", "--matches", "2",
            "--worlds", "2", "--workers", "1", "--no-progress", "--match-log", str(path)]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--match-log" in err[0] and "another run's" in err[0], err
    assert main(["exploit", "--bot", "heuristic", "--match-log", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--match-log: belongs to --method search" in err[0], err
