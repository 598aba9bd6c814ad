"""The reference opponents of docs/benchmark.md, ``heuristic`` and ``search`` (default budget), are frozen.

Published figures against them stay comparable only if they keep playing as they did. This test
replays fixed positions of every preset (and player count) and compares both agents' moves, and
search's value of every legal action, with the fingerprint in ``data/frozen_references.json``.
A change to either agent (or to what search is built from: the world sampler, the playouts,
the match equity tables) fails it: ship the changed player under a new name and leave the
reference as it was.

The positions are stored as the actions that lead to them (from seeded matches the heuristic
mostly plays, a random move now and then, so that the positions are not only the heuristic's
own), so they do not depend on the agents under test. Regenerate the file only when the rules
engine changes what those positions are, never to absorb a change to an agent:

    python tests/agents/test_frozen_references.py --write

A new case (a line of ``CASES``) is added without touching the recorded ones (published figures rest
on them; the command writes only the cases the file lacks, and checks the others are left as they were):

    python tests/agents/test_frozen_references.py --write --add
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest

from allfours.agents.base import Agent
from allfours.agents.evaluation import derive_seed
from allfours.agents.players.random_agent import RandomAgent
from allfours.agents.registry import make_agent
from allfours_env import GameState, IllegalActionError, action_name

DATA = Path(__file__).resolve().parent / "data" / "frozen_references.json"
FORMAT = 1
# name -> (preset, options): every preset, traditional and pitch at each player count (pitch_4p is each for
# themselves, pitch's default; pitch_partners and setback are two partnerships)
CASES = {"yorkshire": ("yorkshire", {}), "seven_up": ("seven_up", {}), "traditional": ("traditional", {}),
         "traditional_2p": ("traditional", {"players": 2}), "traditional_3p": ("traditional", {"players": 3}),
         "pitch": ("pitch", {"players": 2}), "pitch_3p": ("pitch", {"players": 3}), "pitch_4p": ("pitch", {}),
         "pitch_partners": ("pitch", {"partnerships": True}), "setback": ("setback", {})}
MATCHES = 2  # seeded matches per case: every decision in them is a heuristic position
MORE_MATCHES = {"pitch": 3}  # two-player matches to 7 are short: over 100 positions with a choice for bot:pitch
SEARCH_POSITIONS = 8  # per case, spread over those matches (about 0.07 s a move at the default budget)
DRIVE_RANDOM = 0.2  # share of random moves on the way to the positions
REGENERATE = "python tests/agents/test_frozen_references.py --write"
NEW_NAME = ("the reference opponents are frozen (docs/benchmark.md): ship the changed player under a new name "
            "(a new spec, e.g. {name}_v2) and keep {name!r} playing as recorded (only if the rules engine itself "
            f"changed, regenerate the fingerprint: {REGENERATE})")


def _replay(case: str, match: dict) -> list[GameState]:
    """The state before each recorded action of ``match`` (a copy each)."""
    preset, options = CASES[case]
    state = GameState.new(preset, seed=match["seed"], **options)
    states = []
    for i, action in enumerate(match["actions"]):
        states.append(state.clone())
        try:
            state.apply(action)
        except IllegalActionError as e:
            pytest.fail(f"{case} match {match['seed']}: recorded action {i} is no longer legal ({e}): the engine "
                        f"changed the positions; regenerate them: {REGENERATE}")
    return states


def _search(state: GameState) -> Agent:
    return make_agent("search", preset=state.rules.preset, players=state.rules.players)


def _search_values(state: GameState, seed: int, agent: Agent | None = None) -> tuple[int, dict[int, float]]:
    """The move search plays under ``seed``, and its value of every legal action (the same worlds)."""
    agent = agent or _search(state)
    agent.seed(seed)
    move = agent(state, state.current)
    agent.seed(seed)
    return move, agent.action_values(state, state.current)


def _search_seed(case: str, match: int, decision: int) -> int:
    return derive_seed("frozen", case, match, decision)


def generate_case(case: str) -> dict:
    """One case's recorded matches and search positions (see the module doc)."""
    preset, options = CASES[case]
    heuristic = make_agent("heuristic")
    matches, choices = [], []
    for m in range(MORE_MATCHES.get(case, MATCHES)):
        drive = random.Random(f"drive:{case}:{m}")
        rnd = RandomAgent(seed=drive.getrandbits(32))
        state = GameState.new(preset, seed=m, **options)
        actions, moves = [], []
        while not state.done:
            heuristic.seed(0)
            h = heuristic(state, state.current)
            if len(state.legal_actions()) > 1:
                choices.append((m, len(actions)))
            a = rnd(state, state.current) if drive.random() < DRIVE_RANDOM else h
            actions.append(a)
            moves.append(h)
            state.apply(a)
        matches.append({"seed": m, "actions": actions, "heuristic": moves})
    states = [_replay(case, match) for match in matches]
    search = _search(states[0][0])
    positions = []
    for k in range(SEARCH_POSITIONS):  # spread over the matches, each the first from there with unequal values
        for m, d in choices[k * len(choices) // SEARCH_POSITIONS:]:
            move, values = _search_values(states[m][d], _search_seed(case, m, d), search)
            if len(set(values.values())) > 1:
                break
        positions.append({"match": m, "decision": d, "move": move,
                          "values": {str(a): round(v, 4) for a, v in sorted(values.items())}})
    return {"matches": matches, "search": positions}


def generate(cases: list[str] | None = None) -> dict:
    """The fingerprint of today's references on ``cases`` (all of them unless given)."""
    return {"format": FORMAT, "cases": {case: generate_case(case) for case in (CASES if cases is None else cases)}}


def _text(data: dict) -> str:
    # one line per match and position, so that a diff shows what moved
    lines = ["{", f' "format": {data["format"]},', ' "cases": {']
    for ci, (case, c) in enumerate(data["cases"].items()):
        lines.append(f'  "{case}": {{')
        lines.append('   "matches": [')
        lines += [f"    {json.dumps(m)}," for m in c["matches"]]
        lines[-1] = lines[-1].rstrip(",")
        lines.append("   ],")
        lines.append('   "search": [')
        lines += [f"    {json.dumps(p)}," for p in c["search"]]
        lines[-1] = lines[-1].rstrip(",")
        lines.append("   ]")
        lines.append("  }" + ("," if ci < len(data["cases"]) - 1 else ""))
    lines += [" }", "}"]
    return "\n".join(lines) + "\n"


def write(path: Path = DATA, add: bool = False) -> list[str]:
    """Write the fingerprint: of every case, or with ``add`` of the cases ``path`` lacks only, the recorded
    ones kept exactly (their lines too). The cases written."""
    if add:
        old = json.loads(path.read_text())
        if old["format"] != FORMAT or _text(old) != path.read_text():
            raise ValueError(f"{path.name} is not in this writer's format: regenerate it whole (--write)")
        missing = [case for case in CASES if case not in old["cases"]]
        data = {"format": FORMAT, "cases": {**old["cases"], **generate(missing)["cases"]}}
    else:
        missing, data = list(CASES), generate()
    text = _text(data)
    if add:
        assert text.startswith(_text(old).rsplit("\n  }\n", 1)[0])  # the recorded cases' lines, unchanged
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    assert json.loads(path.read_text()) == json.loads(json.dumps(data))
    return missing


@pytest.fixture(scope="module")
def recorded() -> dict:
    data = json.loads(DATA.read_text())
    assert data["format"] == FORMAT, f"{DATA} is stale: regenerate it ({REGENERATE})"
    assert set(data["cases"]) == set(CASES), (f"{DATA.name} records {sorted(data['cases'])}, CASES names "
                                              f"{sorted(CASES)}: add a new case with {REGENERATE} --add")
    return data["cases"]


@pytest.mark.parametrize("case", CASES)
def test_heuristic_plays_as_recorded(case, recorded):
    heuristic = make_agent("heuristic")
    changed, total = [], 0
    for match in recorded[case]["matches"]:
        for i, state in enumerate(_replay(case, match)):
            heuristic.seed(0)
            now = heuristic(state, state.current)
            total += 1
            if now != match["heuristic"][i]:
                changed.append(f"match {match['seed']} decision {i}: recorded {action_name(match['heuristic'][i])}, "
                               f"now {action_name(now)}")
    assert total > 100
    assert not changed, (f"heuristic plays differently on {case} at {len(changed)} of {total} positions "
                         f"({'; '.join(changed[:3])}): " + NEW_NAME.format(name="heuristic"))


@pytest.mark.parametrize("case", CASES)
def test_search_plays_as_recorded(case, recorded):
    states = [_replay(case, m) for m in recorded[case]["matches"]]
    search = _search(states[0][0])
    changed = []
    for p in recorded[case]["search"]:
        state = states[p["match"]][p["decision"]]
        move, values = _search_values(state, _search_seed(case, p["match"], p["decision"]), search)
        want = {int(a): v for a, v in p["values"].items()}
        off = sorted(a for a in set(want) | set(values) if a not in want or a not in values
                     or abs(values[a] - want[a]) > 1e-3)
        if move != p["move"] or off:
            what = (f"plays {action_name(move)} for {action_name(p['move'])}" if move != p["move"]
                    else f"same move {action_name(move)}")
            changed.append(f"match {p['match']} decision {p['decision']}: {what}, values of "
                           f"{[action_name(a) for a in off]} changed")
    assert not changed, (f"search (default budget) plays differently on {case} at {len(changed)} of "
                         f"{len(recorded[case]['search'])} positions ({'; '.join(changed[:3])}): "
                         + NEW_NAME.format(name="search"))


def test_search_is_reproducible_from_its_seed(recorded):
    """Same seed, same worlds: a fresh agent and one that has played other moves agree; another seed
    samples other worlds (so the comparison above pins down the worlds, not only the move)."""
    states = [_replay("yorkshire", m) for m in recorded["yorkshire"]["matches"]]
    used = _search(states[0][0])
    p, *others = recorded["yorkshire"]["search"][:3]
    state = states[p["match"]][p["decision"]]
    for q in others:
        _search_values(states[q["match"]][q["decision"]], 5, used)
    seed = _search_seed("yorkshire", p["match"], p["decision"])
    assert _search_values(state, seed, used) == _search_values(state, seed)
    assert _search_values(state, seed + 1)[1] != _search_values(state, seed)[1]


def test_adding_a_case_keeps_the_recorded_ones_byte_for_byte(tmp_path):
    """``--write --add`` writes only the cases the file lacks: drop the last case, add it back, and the file is
    exactly what it was (the other cases' lines untouched, the dropped one generated again as recorded)."""
    text = DATA.read_text()
    data = json.loads(text)
    last = list(data["cases"])[-1]
    del data["cases"][last]
    path = tmp_path / DATA.name
    path.write_text(_text(data))
    assert write(path, add=True) == [last]
    assert path.read_text() == text
    path.write_text(text.replace(f'"format": {FORMAT},', f'"format":  {FORMAT},'))
    with pytest.raises(ValueError, match="not in this writer's format"):
        write(path, add=True)


if __name__ == "__main__":
    if sys.argv[1:] not in (["--write"], ["--write", "--add"]):
        sys.exit(f"usage: python {sys.argv[0]} --write [--add]   (rewrites {DATA.name}, or with --add writes only "
                 "the cases it lacks; see the module doc first)")
    try:
        written = write(add="--add" in sys.argv)
    except ValueError as e:
        sys.exit(str(e))
    print(f"wrote {DATA}: " + (", ".join(written) or "no case was missing"))
