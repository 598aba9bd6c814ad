"""The ``ismcts`` agent (agents/players/ismcts.py): OpenSpiel's ISMCTS on python_allfours behind the Agent interface,
reproducible from its seed, optional in the registry, and playable by ``allfours eval``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pyspiel")

from allfours.agents.evaluation import play_match  # noqa: E402
from allfours.agents.players.ismcts import ISMCTSAgent  # noqa: E402
from allfours.agents.players.random_agent import RandomAgent  # noqa: E402
from allfours.agents.registry import make_agent  # noqa: E402
from allfours.agents.spec import AgentSpec  # noqa: E402
from allfours.cli import main  # noqa: E402
from allfours_env import GameState  # noqa: E402
from allfours_env.cards import NUM_CARDS, STAND, card_code, parse_card  # noqa: E402


def test_spec_builds_the_agent():
    spec = AgentSpec.parse("ismcts:simulations=30,uct=2,episode=match")
    assert (spec.name, spec.options) == ("ismcts", {"simulations": 30, "uct": 2.0, "episode": "match"})
    a = make_agent("ismcts:simulations=30", preset="seven_up", seed=1)
    assert isinstance(a, ISMCTSAgent) and a.simulations == 30 and a.episode == "hand"
    with pytest.raises(ValueError, match="unknown parameter 'worlds'"):
        make_agent("ismcts:worlds=3")
    with pytest.raises(ValueError, match="episode must be"):
        make_agent("ismcts:episode=trick")
    with pytest.raises(ValueError, match="positive int"):
        make_agent("ismcts:simulations=0")


@pytest.mark.parametrize("preset", ["seven_up", "yorkshire", "traditional"])
def test_moves_are_legal_and_reproducible_from_the_seed(preset):
    state = GameState.new(preset, seed=11)
    moves = []
    for _ in range(12):
        if state.done:
            break
        a, b = ISMCTSAgent(simulations=12, seed=5), ISMCTSAgent(simulations=12, seed=5)
        action, shares = a.act_with_policy(state, state.current)
        assert b.act_with_policy(state, state.current) == (action, shares)  # same seed, same search
        assert set(shares) == set(state.legal_actions()) and abs(sum(shares.values()) - 1) < 1e-9
        best = max(shares.values())
        assert action == min(x for x, p in shares.items() if p == best)  # most visited, lowest id on ties
        moves.append(action)
        state.apply(action)
    assert len(moves) >= 6


def test_the_search_trumps_the_ten():
    """Seven Up, hearts trump, seat 1 leads the ten of clubs. Seat 0 may follow with the two of clubs or
    trump with the jack of hearts: the jack takes the ten's 10 towards Game and loses nothing (seat 1 has no
    trump), so the search trumps."""
    hands = [["JH", "2C", "2S", "3S", "4S", "5S"], ["TC", "3D", "4D", "5D", "6D", "7D"]]
    used = {parse_card(c) for h in hands for c in h} | {parse_card("2H")}
    stock = ["2H"] + [card_code(c) for c in range(NUM_CARDS) if c not in used]  # hearts turned up
    state = GameState.new("seven_up", seed=0, deal={"dealer": 0, "hands": hands, "stock": stock})
    state.apply(STAND)
    state.apply(parse_card("TC"))
    assert state.current == 0 and state.legal_actions() == [parse_card("2C"), parse_card("JH")]
    for seed in range(3):
        action, shares = ISMCTSAgent(simulations=200, seed=seed).act_with_policy(state, 0)
        assert action == parse_card("JH") and shares[action] > 0.5


def test_plays_a_whole_match_through_the_harness():
    agent = make_agent("ismcts:simulations=10", preset="seven_up")
    result = play_match([agent, RandomAgent()], preset="seven_up", seed=3, options={"target": 3})
    assert result["winner"] in (0, 1) and max(result["scores"]) >= 3
    again = play_match([make_agent("ismcts:simulations=10", preset="seven_up"), RandomAgent()], preset="seven_up",
                       seed=3, options={"target": 3})
    assert again == result  # reseeded by the harness: the same match


def test_allfours_eval_runs_it(capsys):
    assert main(["eval", "--preset", "seven_up", "--agents", "ismcts:simulations=5", "random", "--matches", "2",
                 "--workers", "1", "--rule", "target=2", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "| ismcts:simulations=5 | random | 2 |" in out


@pytest.mark.subprocess
def test_openspiel_is_imported_only_for_the_spec_and_its_absence_names_the_extra():
    code = ("import sys\nfrom allfours.agents.registry import make_agent\nmake_agent('search')\n"
            "assert 'pyspiel' not in sys.modules and 'open_spiel' not in sys.modules\n"
            "sys.modules['pyspiel'] = None  # as if OpenSpiel were not installed\n"
            "try:\n    make_agent('ismcts')\nexcept ValueError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], check=True, timeout=120, capture_output=True, text=True).stdout
    assert out.count("\n") == 1 and "pip install 'allfours[openspiel]'" in out


@pytest.mark.subprocess
def test_the_example_runs():
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, str(root / "examples" / "openspiel_ismcts.py"), "--simulations", "5",
                          "--matches", "2", "--target", "2", "--positions", "4"], check=True, timeout=300,
                         capture_output=True, text=True).stdout
    assert out.startswith("python_allfours(") and out.count("match ") == 2
    assert "won" in out and "(4 positions of heuristic self-play with a choice)" in out
