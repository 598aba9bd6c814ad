"""``allfours.agents.spec.AgentSpec``: an agent spec read once (name, typed options, nested specs), its canonical
text, its errors; the shared rule-option parser; and ``allfours eval`` building each agent once."""

from __future__ import annotations

import pickle
import re
from pathlib import Path

import pytest

from allfours.agents import evaluation as ev
from allfours.agents.evaluation import matches, pairings, pool
from allfours.agents.network.checkpoint import checkpoints_dir
from allfours.agents.players.neural import checkpoint_path
from allfours.agents.spec import AgentSpec, parse_network, parse_playout
from allfours.cli import rule_args
from allfours.cli.eval import main as eval_main
from allfours_env.rules import make_rules, parse_rule_options

ROOT = Path(__file__).resolve().parents[2]

# Canonical texts: each parses and prints back as it is (every form of the docs, the README and the tests).
CANONICAL = [
    "random", "heuristic", "heuristic:seed=3", "search", "search:worlds=64", "search:worlds=200,time=1",
    "search:worlds=96,time=1", "search:worlds=64,time=0.5", "search:value=points", "search:worlds=1",
    "search:worlds=48,time=0,exact=0,bid=1,value=match,playout=heuristic",
    "search:playout=bot:yorkshire", "search:playout=bot:yorkshire:sym=1", "search:playout=heuristic",
    "search:worlds=2,playout=checkpoints/yorkshire.pt", "search:playout=bot:yorkshire,seats=all",
    "search:worlds=24,time=1", "guided", "guided:bot=yorkshire,worlds=64", "guided:bot=seven_up,worlds=4,candidates=8",
    "guided:infer=0", "guided:playout=heuristic", "guided:seats=side", "guided:worlds=64,candidates=256",
    "guided:worlds=8,candidates=32", "guided:bot=runs/x/best.pt", "guided:playout=bot:seven_up:sym=1,seats=side",
    "bot:yorkshire", "bot:yorkshire:sym=0", "bot:traditional", "bot:traditional_2p", "bot:seven_up:sym=1",
    "runs/x/best.pt", "runs/x/best.pt:sym=0", "ppo.pt", "runs/a:b/best.pt:sym=0", "/abs/path/net.pt",
    "sb3:runs/sb3_seven_up.zip", "sb3:model.zip", "experimental:nested:24x8", "experimental:pitch:tries=5,worlds=7",
    "experimental:infer:k=10,eps=0.1", "experimental:oracle:exact=8", "experimental:clairvoyant",
    "experimental:model:opponent=heuristic", "experimental:prefer:margin=0.005", "ismcts", "ismcts:simulations=100",
    "ismcts:simulations=30,uct=2,episode=match", "solved:mini2", "solved:mini3:seed=3",
]
# Other spellings of the same specs -> their canonical text.
SPELLINGS = [("search:worlds=8, exact=12", "search:worlds=8,exact=12"), ("SEARCH:worlds=3", "search:worlds=3"),
             ("  bot:yorkshire ", "bot:yorkshire"), ("search:time=1.0", "search:time=1"), ("search:", "search"),
             ("experimental:nested:worlds=3,inner=2", "experimental:nested:3x2"),
             ("guided:bot=bot:seven_up", "guided:bot=seven_up"), ("bot:seven_up:", "bot:seven_up"),
             ("search:playout = bot:yorkshire : sym=1", "search:playout=bot:yorkshire:sym=1"),
             ("Solved: MINI2 : seed = 2", "solved:mini2:seed=2")]


def _eval_agent_lists() -> list[str]:
    """Every agent of an ``allfours eval --agents ...`` command of the README and the reference docs
    (not the dated diaries, whose old commands keep their old spellings), placeholders left out."""
    paths = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "checkpoints").glob("*.md"))]
    diaries = {"baselines.md", "history.md", "training.md"}
    found = set()
    for path in paths:
        if path.name in diaries:
            continue
        for m in re.finditer(r"allfours eval [^`\n]*?--agents ((?:[^\s`-][^\s`]* ?)+)", path.read_text()):
            found.update(t for t in m.group(1).split() if not re.fullmatch(r"[A-Z]|\.\.\.|.*<.*", t))
    return sorted(found)


@pytest.mark.parametrize("text", CANONICAL + _eval_agent_lists())
def test_every_spec_of_the_docs_parses_and_prints_back(text):
    spec = AgentSpec.parse(text)
    assert str(spec) == text and AgentSpec.parse(str(spec)) == spec and spec.label == text
    assert pickle.loads(pickle.dumps(spec)) == spec and hash(pickle.loads(pickle.dumps(spec))) == hash(spec)


@pytest.mark.parametrize("text,canonical", SPELLINGS)
def test_other_spellings_print_as_the_canonical_text(text, canonical):
    spec = AgentSpec.parse(text)
    assert str(spec) == canonical and AgentSpec.parse(canonical) == spec and spec.label == text.strip()


def test_a_spec_is_a_value_with_typed_options_and_nested_specs():
    spec = AgentSpec.parse("search:worlds=64,time=1,playout=bot:yorkshire:sym=1")
    assert (spec.name, spec.target) == ("search", None)
    assert spec.options == {"worlds": 64, "time": 1.0, "playout": AgentSpec.parse("bot:yorkshire:sym=1")}
    playout = spec.options["playout"]
    assert (playout.name, playout.target, playout.options, playout.is_network) == ("bot", "yorkshire", {"sym": 1}, True)
    assert spec == AgentSpec.parse("search:playout=bot:yorkshire:sym=1,time=1,worlds=64")  # any order
    assert spec != AgentSpec.parse("search:worlds=64,time=1,playout=bot:yorkshire")
    assert AgentSpec.parse(spec) is spec
    assert len({AgentSpec.parse("search"), AgentSpec.parse("Search"), AgentSpec.parse("search:")}) == 1
    guided = AgentSpec.parse("guided:bot=yorkshire,playout=heuristic").options
    assert guided["bot"] == AgentSpec.parse("bot:yorkshire") and guided["playout"] == AgentSpec.parse("heuristic")
    nested = AgentSpec.parse("experimental:nested:24x8")
    assert (nested.name, nested.options) == ("experimental:nested", {"worlds": 24, "inner": 8})
    ck = AgentSpec.parse("runs/a:b/best.pt:sym=0")
    assert (ck.name, ck.target, ck.options) == ("checkpoint", "runs/a:b/best.pt", {"sym": 0})
    assert AgentSpec.parse("sb3:dir:with:colons.zip").target == "dir:with:colons.zip"
    assert repr(spec) == "AgentSpec('search:worlds=64,time=1,playout=bot:yorkshire:sym=1')"


def test_checkpoints_are_files_and_run_folders(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "weights").write_bytes(b"x")  # any existing file, whatever its name
    assert AgentSpec.parse("weights").name == "checkpoint" and AgentSpec.parse("weights:sym=0").options == {"sym": 0}
    run = tmp_path / "run"
    run.mkdir()
    with pytest.raises(ValueError, match="unknown agent 'run'"):  # a folder without a checkpoint names nothing
        AgentSpec.parse("run")
    (run / "latest.pt").write_bytes(b"x")
    assert AgentSpec.parse("run").name == "checkpoint" and checkpoint_path("run") == Path("run/latest.pt")
    (run / "best.pt").write_bytes(b"x")
    assert checkpoint_path("run") == checkpoint_path(AgentSpec.parse("run:sym=0")) == Path("run/best.pt")
    (tmp_path / "heuristic").write_bytes(b"x")  # a file named like an agent: the agent wins, ./ names the file
    assert AgentSpec.parse("heuristic").name == "heuristic"
    named = AgentSpec("checkpoint", "heuristic")
    assert str(named) == "./heuristic" and AgentSpec.parse(str(named)).name == "checkpoint"


def test_checkpoint_path_is_the_file_a_warm_start_reads():
    assert checkpoint_path("bot:yorkshire") == checkpoints_dir() / "yorkshire.pt"
    assert checkpoint_path("bot:nope") == checkpoints_dir() / "nope.pt"  # load_checkpoint says it does not exist
    assert checkpoint_path("runs/nowhere") == Path("runs/nowhere")
    assert checkpoint_path("x/net.pt:sym=0") == Path("x/net.pt")
    with pytest.raises(ValueError, match="'heuristic' is not a network"):
        checkpoint_path(AgentSpec.parse("heuristic"))


@pytest.mark.parametrize("text,message", [
    ("", "agent spec must be a non-empty string, got ''"),
    ("serch", r"unknown agent 'serch': choose one of random, heuristic, search, guided, .*; did you mean search\?$"),
    ("nope", "unknown agent 'nope': choose one of random, heuristic, search, guided, ismcts, bot:<name>"),
    ("search:wrlds=3", r"unknown parameter 'wrlds' for agent 'search': valid are worlds, time, exact, .*; did you "
                       r"mean worlds\?$"),
    ("search:worlds=many", "parameter 'worlds' of agent 'search' must be int, got 'many'"),
    ("search:time=soon", "parameter 'time' of agent 'search' must be float, got 'soon'"),
    ("search:worlds", "bad parameter 'worlds' in agent spec 'search:worlds': expected key=value"),
    ("search:worlds=3,", "bad parameter '' in agent spec"),
    ("search:worlds=3,worlds=4", "parameter 'worlds' is given twice in agent spec 'search:worlds=3,worlds=4'"),
    ("search:playout=", "search playout must be 'heuristic', bot:<name> or a checkpoint path, got ''"),
    ("search:playout=random", "search playout 'random' is not a network"),
    ("search:playout=bogus", "search playout 'bogus': unknown agent 'bogus'"),
    ("guided:playout=side", "guided playout 'side' is not a policy"),
    # a playout is batched over the network itself: a level's random moves would be silently left out
    ("search:playout=bot:yorkshire:level=3", "search playout 'bot:yorkshire:level=3' takes no level"),
    ("guided:playout=bot:seven_up:level=1", "guided playout 'bot:seven_up:level=1' takes no level"),
    ("search:playout=bot:yorkshire:sym=1,level=3", r"unknown parameter 'level' for agent 'search': its playout= plays "
                                                   r"the network itself and takes one option, sym="),
    ("experimental:sparta:blueprint=bot:seven_up:sym=1,level=2", "unknown parameter 'level' for agent 'sparta': its "
                                                                 "blueprint= plays the network itself"),
    ("guided:bot=search", "unknown bot"),  # a bare name is a bot's: refused when loaded (tested in test_guided)
    ("bot:", "agent spec 'bot:' names no bot: give bot:<name>, one of yorkshire"),
    ("bot:seven_up:sym=2", "option sym of 'bot:seven_up' must be 0 or 1, got '2'"),
    ("bot:seven_up:greedy=0", "bad option 'greedy=0' in 'bot:seven_up:greedy=0': a bot or checkpoint takes only sym"),
    ("x.pt:sym", "a bot or checkpoint takes only sym=0 or sym=1"),
    ("sb3:", "agent spec 'sb3:' names no model: give sb3:<model.zip>"),
    ("solved:nope", "agent spec 'solved:nope' names no mini preset: give solved:<preset>, one of mini2, mini3"),
    ("solved", "agent spec 'solved' names no mini preset"),
    ("solved:mini2:depth=1", "unknown parameter 'depth' for agent 'solved': valid are seed$"),
    ("solved:mini2", "solved:mini2 is the equilibrium of mini2: it plays mini2 only, not yorkshire"),
    ("experimental:nosuch", "unknown experimental agent 'nosuch': choose one of pitch, infer"),
    ("experimental:nested:3", "nested spec must be experimental:nested:OxI"),
    ("experimental:oracle:worlds=3", "unknown parameter 'worlds' for agent 'oracle'"),
])
def test_a_bad_spec_is_one_line_naming_what_is_wrong(text, message):
    try:
        AgentSpec.parse(text)
        from allfours.agents.registry import make_agent

        make_agent(text)  # the errors the loaders find (an unknown bot)
    except ValueError as e:
        assert re.search(message, str(e)), str(e)
        assert "\n" not in str(e)
    else:
        pytest.fail(f"{text!r} was accepted")


def test_the_nested_parsers():
    assert parse_playout("heuristic").name == "heuristic"
    assert parse_playout(" bot:yorkshire:sym=1 ").options == {"sym": 1}
    assert parse_network("yorkshire") == parse_network("bot:yorkshire") == AgentSpec.parse("bot:yorkshire")
    assert parse_network("runs/x/best.pt").name == "checkpoint"
    with pytest.raises(ValueError, match="guided bot 'heuristic:seed=1' is not a network"):
        parse_network("heuristic:seed=1")


# ---------------------------------------------------------------------------------- rule options
def test_one_parser_reads_rule_options():
    assert parse_rule_options(["target=7", "throw_in=true", " reward = points ", "players=2", "low_cut_deals=off"],
                              "seven_up") == {"target": 7, "throw_in": True, "reward": "points", "players": 2,
                                              "low_cut_deals": False}
    assert parse_rule_options([]) == {}
    assert parse_rule_options(["players=9"]) == {"players": 9}  # no preset: its counts are checked by make_rules
    for items, preset, message in [
            (["target"], None, r"'target' must look like KEY=VALUE \(e.g. throw_in=false\)"),
            (["=3"], None, "'=3' must look like KEY=VALUE"),
            (["trget=7"], None, r"unknown option 'trget': valid options are players, target, .*; did you mean "
                                r"target\?"),
            (["target=7", "target=8"], None, "rule option 'target' is given twice"),
            (["target=seven"], None, "option target must be a whole number, got 'seven'"),
            (["target=0"], None, "target must be an int from 1 to 1000, got 0"),
            (["throw_in=maybe"], None, "option throw_in must be true or false, got 'maybe'"),
            (["reward=win"], None, "reward must be 'match' or 'points', got 'win'"),
            (["episode=trick"], None, "episode must be 'match' or 'hand', got 'trick'"),
            (["players=3"], "yorkshire", r"preset 'yorkshire' allows players in \(4,\), got 3"),
            (["players=0"], None, "players must be a whole number of 1 or more, got 0"),
            (["low_cut_deals=true"], "yorkshire", "option low_cut_deals only applies to a preset that cuts for deal")]:
        with pytest.raises(ValueError, match=message):
            parse_rule_options(items, preset)
    # make_rules checks each option as the parser does
    with pytest.raises(ValueError, match=r"preset 'yorkshire' allows players in \(4,\), got 3"):
        make_rules("yorkshire", players=3)
    with pytest.raises(ValueError, match="option throw_in must be True or False, got 'yes'"):
        make_rules("yorkshire", throw_in="yes")


def test_train_overrides_read_rule_options_with_the_same_parser():
    from allfours.train.config import parse_overrides

    assert parse_overrides(["rules.target=7", "rules.throw_in=false", "lr=0.001"]) == {
        "rules.target": 7, "rules.throw_in": False, "lr": 0.001}
    with pytest.raises(ValueError, match=r"override 'rules.trget=7': unknown option 'trget': .*; did you mean target"):
        parse_overrides(["rules.trget=7"])


# ---------------------------------------------------------------------------------- built once
@pytest.fixture
def counted(monkeypatch):
    """Every agent ``evaluation`` builds, by spec, and every ``make_rules`` of the eval path; a fresh
    per-process cache, as a new process has."""
    made, rules = [], []
    real_make, real_rules = matches.make_agent, make_rules
    monkeypatch.setattr(matches, "_AGENT_CACHE", {})
    monkeypatch.setattr(matches, "make_agent", lambda spec, **kw: made.append(str(spec)) or real_make(spec, **kw))
    for module in (matches, pairings, rule_args):
        monkeypatch.setattr(module, "make_rules", lambda *a, **kw: rules.append(a) or real_rules(*a, **kw))
    return made, rules


def test_allfours_eval_builds_each_agent_once_and_makes_the_rules_once(counted, capsys):
    made, rules = counted
    agents = ["heuristic", "random", "search:worlds=1"]
    argv = ["--preset", "seven_up", "--agents", *agents, "--matches", "4", "--seed", "1", "--workers", "1",
            "--rule", "target=3", "--no-progress"]
    assert eval_main(argv) == 0
    assert sorted(made) == sorted(agents)  # the checks built them; the matches played those same objects
    assert len(rules) == 1
    assert "| search:worlds=1 | heuristic | 4 |" in capsys.readouterr().out


def test_a_worker_builds_each_agent_once_from_the_specs_its_tasks_carry(counted):
    made, rules = counted
    game = make_rules("seven_up", target=3)
    pairs = [(AgentSpec.parse("heuristic"), AgentSpec.parse("random")), (AgentSpec.parse("random"),
                                                                        AgentSpec.parse("search:worlds=1"))]
    tasks = ev.make_tasks(pairs, "seven_up", 4, 0, {"target": 3}, rules=game)
    assert all(t.rules == game and all(isinstance(s, AgentSpec) for s in t.specs) for t in tasks)
    tasks = pickle.loads(pickle.dumps(tasks))  # as a worker process gets them
    for i, t in enumerate(tasks):  # the worker's loop (run_tasks' pool): one task after another
        assert pool._indexed((i, t))[0] == i
    assert sorted(made) == ["heuristic", "random", "search:worlds=1"] and rules == []


# ---------------------------------------------------------------------------------- parsed once
def test_builders_take_a_parsed_spec_and_never_parse_text_again():
    """Text is parsed at the boundary (``AgentSpec.parse``, ``make_agent``); the builders behind it take the
    parsed value only, so a spec is never parsed twice."""
    from allfours.agents.evaluation.matches import build_agent
    from allfours.agents.players.guided import GuidedAgent, guide_network
    from allfours.agents.players.neural import load_network
    from allfours.agents.registry import search_playout
    from allfours_env import make_rules

    for call in (lambda: load_network("bot:seven_up"), lambda: guide_network("seven_up"),
                 lambda: search_playout("bot:yorkshire"), lambda: build_agent("random", make_rules("seven_up")),
                 lambda: GuidedAgent(bot="seven_up"), lambda: GuidedAgent(playout="heuristic")):
        with pytest.raises(TypeError, match="takes a parsed AgentSpec"):
            call()
    # the parsed values work, and the nested ones come parsed from the grammar
    spec = AgentSpec.parse("guided:bot=seven_up,playout=heuristic")
    assert isinstance(spec.get("bot"), AgentSpec) and isinstance(spec.get("playout"), AgentSpec)
    assert load_network(AgentSpec.parse("bot:seven_up")).name == "bot:seven_up"
    assert search_playout(AgentSpec.parse("heuristic")) is None
