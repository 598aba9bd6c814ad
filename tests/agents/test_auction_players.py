"""The players of the auction presets (docs/rules.md section 8): the heuristic's stated bidding rule, duplicate
matches of pitch and setback, and the one-line refusal of the players that do not play them yet."""

import json

import pytest

from allfours.agents import make_agent
from allfours.agents.evaluation import evaluate_pairing, make_tasks, play_match, seatings
from allfours.agents.players.heuristic import HeuristicAgent, expected_points
from allfours.agents.players.random_agent import RandomAgent
from allfours.cli import main
from allfours_env import GameState
from allfours_env.cards import PASS, action_name, mask_of, parse_card

SPADES = 3


def hand(*codes: str) -> int:
    return mask_of(parse_card(c) for c in codes)


def test_expected_points_is_the_stated_rule():
    """The count of allfours.agents.players.heuristic.expected_points, term by term."""
    # ace and two of spades, the jack under the ace, four spades, one ten: High 1, Low 0.9, Jack 0.5 + 0.15,
    # Game 0.2 + 0.1 * 2 + 0.15
    h = hand("AS", "JS", "5S", "2S", "TD", "3C")
    assert expected_points(h, SPADES) == 100 + 90 + 65 + 55
    assert expected_points(h, SPADES, low_to_capturer=True) == 100 + 60 + 65 + 55
    # the king on top, the four at the bottom, no jack, no ten: 50 + 35 + 20; to the capturer 35 * 2 // 3 = 23
    assert expected_points(hand("KS", "4S", "9H", "8H", "7D", "6C"), SPADES) == 105
    assert expected_points(hand("KS", "4S", "9H", "8H", "7D", "6C"), SPADES, low_to_capturer=True) == 93
    assert expected_points(hand("KH", "QH", "9H", "8H", "7D", "6C"), SPADES) == 0  # no spade: no count
    # Game is capped at 80 and Jack at 90
    long = hand("AS", "KS", "QS", "JS", "TS", "TD")
    assert expected_points(long, SPADES) == 100 + 0 + 90 + 80


def test_the_heuristic_bids_its_best_suits_count_and_pitches_that_suit():
    """It bids the highest legal bid up to its best suit's count rounded, else passes; as pitcher it leads that
    suit's ace."""
    strong, weak = ["AS", "JS", "5S", "2S", "TD", "3C"], ["KH", "7H", "9D", "8D", "4C", "6C"]
    s = GameState.new("pitch", players=2, deal={"dealer": 1, "hands": [strong, weak]})
    h = HeuristicAgent()
    assert max(expected_points(s.hands[0], su) for su in range(4)) == 310  # spades: 3.10 points
    assert action_name(h.act(s, 0)) == "BID_3"
    s.apply(h.act(s, 0))
    assert action_name(h.act(s, 1)) == "PASS"  # the weak dealer lets it go
    s.apply(h.act(s, 1))
    assert action_name(h.act(s, 0)) == "AS"
    stuck = GameState.new("pitch", players=2, deal={"dealer": 1, "hands": [strong, weak]})
    stuck.apply(PASS)  # the eldest passes; the dealer is stuck
    assert action_name(h.act(stuck, 1)) == "BID_2"


@pytest.mark.parametrize("preset, options", [("pitch", {}), ("pitch", {"players": 2}), ("pitch", {"players": 3}),
                                             ("pitch", {"partnerships": True}), ("setback", {"smudge": True})])
def test_the_heuristic_and_random_play_whole_matches(preset, options):
    """Every move legal (play_match checks), matches to the end, in every seat count."""
    s = GameState.new(preset, seed=0, **options)
    agents = [HeuristicAgent() if p % 2 else RandomAgent() for p in range(s.n)]
    out = play_match(agents, s.rules, seed=4, agent_seed=5)
    assert out["winner"] is not None and out["hands"] > 0 and len(out["points"]) == s.sides


def test_duplicate_seatings_of_four_players_each_for_themselves():
    """Four players each for themselves (pitch's default): A takes each seat in turn against three copies of B."""
    assert seatings(4, partnerships=False) == [(0, 1, 1, 1), (1, 0, 1, 1), (1, 1, 0, 1), (1, 1, 1, 0)]
    assert seatings(4, partnerships=True) == [(0, 1, 0, 1), (1, 0, 1, 0)]
    tasks = make_tasks([("heuristic", "random")], "pitch", 8, 0)
    assert [t.seats for t in tasks[:4]] == seatings(4, partnerships=False) and len({t.game_seed for t in tasks}) == 2


@pytest.mark.parametrize("preset, options", [("pitch", {"players": 2}), ("setback", {})])
def test_the_heuristic_beats_random_over_duplicate_deals(preset, options):
    row = evaluate_pairing("heuristic", "random", preset=preset, matches=40, seed=0, options=options, workers=1,
                           progress=False)["results"][0]
    assert row["win_rate"] > 0.75 and row["points_per_hand"] > row["opponent_points_per_hand"]


@pytest.mark.parametrize("spec, words", [("bot:seven_up", "bot:seven_up is a network for seven_up: it does not play "
                                                         "setback"),
                                         ("checkpoints/yorkshire.pt", "trained on All Fours' 57 actions, without the "
                                                                      "auction's calls: it does not play setback"),
                                         ("guided", "does not play the auction presets"),
                                         ("search:playout=bot:seven_up", "heuristic playouts only")])
def test_players_that_do_not_bid_yet_are_refused_in_one_line(spec, words):
    with pytest.raises(ValueError, match=words) as e:
        make_agent(spec, preset="setback", players=4)
    assert "\n" not in str(e.value)


def test_search_bids_by_its_simulations():
    """search values each call of the auction by playing sampled worlds to the end of the hand, the contract
    scored by the engine: it passes a hand that cannot make a bid and bids a hand that makes three sure points (of
    equal values, the lowest bid)."""
    weak = ["2C", "3D", "4H", "5S", "7C", "8D"]
    top = ["AS", "KS", "QS", "JS", "TS", "9S"]
    other = ["QH", "9C", "TD", "6H", "KD", "8C"]
    search = make_agent("search:worlds=24", preset="pitch", players=2, seed=0)
    for mine, want in ((weak, {"PASS"}), (top, {"BID_2", "BID_3", "BID_4"})):
        s = GameState.new("pitch", players=2, deal={"dealer": 1, "hands": [mine, other]})
        values = search.action_values(s, 0)
        assert set(values) == {57, 59, 60, 61}
        assert action_name(search.act(s, 0)) in want, values
    assert max(values[59], values[60]) > values[57] + 2  # the top hand: bidding beats passing by points


def test_allfours_eval_plays_the_auction_presets(tmp_path, capsys):
    out = tmp_path / "e.json"
    rc = main(["eval", "--preset", "pitch", "--players", "2", "--rule", "min_bid=1", "--rule", "low_to=capturer",
               "--agents", "heuristic", "random", "--matches", "4", "--workers", "1", "--no-progress", "--json",
               str(out)])
    assert rc == 0, capsys.readouterr().err
    report = json.loads(out.read_text())
    assert report["preset"] == "pitch" and report["options"] == {"players": 2, "min_bid": 1, "low_to": "capturer"}
    assert report["results"][0]["matches"] == 4
    assert main(["eval", "--preset", "setback", "--rule", "min_bid=3", "--agents", "heuristic", "random"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "min_bid must be 1 or 2" in err[0]
    assert main(["eval", "--preset", "pitch", "--players", "3", "--agents", "search:worlds=2", "heuristic",
                 "--matches", "3", "--workers", "1", "--no-progress"]) == 0
    assert main(["exploit", "--method", "search", "--bot", "heuristic", "--preset", "pitch"]) == 2  # 4 players
    assert "br plays games of two sides" in capsys.readouterr().err

