"""What the engine answers so that no other module restates a rule (issue 31): events, the deal in the
reset format, worlds with other hidden cards, refusals in words, hand sizes, the fields listed once."""

from __future__ import annotations

import random

import pytest
from helpers import random_positions

from allfours_env import GameState, make_rules, parse_action, parse_card, seat_view
from allfours_env.cards import BEG, GIVE_ONE, NUM_ACTIONS, RUN_PACK, STAND, SUITS, THROW_IN, card_code
from allfours_env.deal import make_deal, run_batches, stock_layout, used_stock
from allfours_env.engine import FIELDS, GIVE_OR_RUN, PLAY, STAND_OR_BEG
from allfours_env.events import EVENT_TYPES
from allfours_env.rules import PRESETS
from allfours_env.sampling import resample
from allfours_env.scoring import high_low_jack, trump_holders

CASES = [("yorkshire", {}), ("traditional", {"players": 2}), ("traditional", {"players": 3}), ("traditional", {}),
         ("seven_up", {}), ("yorkshire", {"must_follow_suit": True}), ("traditional", {"must_follow_suit": True})]
REDEAL_DEAL = {  # traditional, four players: spades turn up every time the pack is run, until it runs out
    "dealer": 0,
    "hands": [["2C", "3C", "4C", "5C", "6C", "7C"], ["8C", "9C", "TC", "JC", "QC", "KC"],
              ["AC", "2D", "3D", "4D", "5D", "6D"], ["7D", "8D", "9D", "TD", "JD", "QD"]],
    "stock": ["AS", "KD", "AD", "2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "TH", "JH", "6S", "QH", "KH", "AH",
              "2S", "3S", "4S", "5S", "7S", "8S", "9S", "TS", "QS", "JS", "KS"]}


def positions(preset, options, seed, every=0.4):
    """Clones of a randomly played match along the way (``helpers.random_positions``)."""
    return random_positions(preset, options, seed, every)


def play_recorded(preset, options, seed):
    rng = random.Random(seed)
    s = GameState.new(preset, seed=seed, record_events=True, **options)
    while not s.done:
        s.apply(rng.choice(s.legal_actions()))
    return s


# ---------------------------------------------------------------------- events
@pytest.mark.parametrize("preset,options", CASES)
def test_the_events_of_a_match_tell_its_story(preset, options):
    """docs/rules.md section 4: 'The highest trump wins the trick ... The winner leads the next trick.'
    Each trick event names its winner; each play follows the seat to move; each deal names its dealer."""
    for seed in range(6):
        rng = random.Random(seed)
        s = GameState.new(preset, seed=seed, **options)
        assert not s.done  # (a first turn-up that wins the match at once: its events are the start's)
        log = []
        while not s.done:
            seat, tricks = s.current, len(s.tricks)
            a = rng.choice(s.legal_actions())
            got = s.apply_with_events(a)
            log += got
            assert s.events is None  # recorded for that call only
            first = got[0]
            assert first["seat"] == seat and first["type"] in ("play", "throw_in", "decision")
            if first["type"] == "play":
                assert first["card"] == card_code(a)
            for e in got:
                assert e["type"] in EVENT_TYPES
                if e["type"] == "trick":
                    done = s.tricks[-1] if len(s.tricks) > tricks else s.last_hand["tricks"][-1]
                    assert e["winner"] == done[2]
                    assert [p["card"] for p in e["plays"]] == [card_code(c) for _, c in done[0]]
        results = [e for e in log if e["type"] == "hand_result"]
        assert [e["hand_no"] for e in results] == list(range(len(s.hand_results)))
        assert all(e == {**e, **s.hand_results[e["hand_no"]]} for e in results)
        deals = [e for e in log if e["type"] == "deal"]
        assert [e["hand_no"] for e in deals] == list(range(1, len(deals) + 1))
        assert log[-1] == {"type": "match_over", "winner": s.winner, "scores": s.scores}


def test_the_hand_result_event_names_the_cards_scoring_scores():
    """docs/rules.md section 5: 'High: the side originally dealt the highest trump ... Low: the side
    originally dealt the lowest trump'; the Jack is the jack of trumps; Game the larger card total."""
    n = 0
    for preset, options in CASES:
        for seed in range(4):
            rng = random.Random(seed)
            s = GameState.new(preset, seed=seed, **options)
            while not s.done:
                before = s.clone()
                got = s.apply_with_events(rng.choice(s.legal_actions()))
                for e in got:
                    if e["type"] != "hand_result" or e["high"] is None:
                        continue
                    hand = s.last_hand
                    trump = SUITS.index(e["trump"])
                    assert hand["trump"] == trump
                    cards = high_low_jack(hand["dealt"], trump)
                    seats = trump_holders(hand["dealt"], trump)
                    assert [None if x is None else x[0] for x in cards] == list(seats)
                    assert e["high_card"] == card_code(cards[0][1]) and e["low_card"] == card_code(cards[1][1])
                    assert e["jack_card"] == (None if cards[2] is None else card_code(cards[2][1]))
                    assert e["high"] == s.side(seats[0]) and e["low"] == s.side(seats[1])
                    assert e == {**e, **s.hand_results[e["hand_no"]]}
                    # the trumps dealt are exactly those between the two
                    dealt = [c for m in hand["dealt"] for c in range(52) if m >> c & 1 and c // 13 == trump]
                    assert (min(dealt), max(dealt)) == (cards[1][1], cards[0][1])
                    totals = e["game_totals"]
                    best = [side for side, t in enumerate(totals) if t == max(totals)]
                    tie = s.side(before.eldest) if s.rules.game_tie_to_elder else None
                    assert e["game"] == (best[0] if len(best) == 1 else tie)
                    n += 1
    assert n > 50


@pytest.mark.parametrize("preset, options", [("seven_up", {}), ("traditional", {"players": 3}), ("yorkshire", {})])
def test_counted_names_the_awards_scored_before_the_target(preset, options):
    """docs/rules.md section 5: "Points are scored in the order High, Low, Jack, Game ... the match ends the
    moment a side reaches the target", so a later award of that hand is not scored."""
    cut = 0
    for seed in range(60):
        rng = random.Random(seed)
        s = GameState.new(preset, seed=seed, record_events=True, **options)
        while not s.done:
            s.apply(rng.choice(s.legal_actions()))
        target = s.rules.target
        for e in (e for e in s.events if e["type"] == "hand_result"):
            if e["game_totals"] == [0] * len(e["game_totals"]):  # won before the first card: nothing to score
                assert e["counted"] == []
                continue
            awards = [("high", e["high"], 1), ("low", e["low"], 1), ("jack", e["jack"], e["jack_points"]),
                      ("game", e["game"], 1)]
            scored = [a for a in awards if a[1] is not None and a[2] > 0]
            assert e["counted"] == [name for name, _, _ in scored][:len(e["counted"])]  # a prefix, in order
            if len(e["counted"]) < len(scored):  # cut short: the last counted award reached the target
                cut += 1
                name, side, points = scored[len(e["counted"]) - 1]
                assert s.done and e["scores"][side] >= target > e["scores"][side] - points and s.winner == side
    assert cut > 0  # some matches end with an award left unscored


def test_recorded_events_match_the_calls_and_a_clone_records_nothing():
    s = play_recorded("traditional", {}, 3)
    rng = random.Random(3)
    t = GameState.new("traditional", seed=3)
    log = [e for e in GameState.new("traditional", seed=3, record_events=True).events]
    while not t.done:
        log += t.apply_with_events(rng.choice(t.legal_actions()))
    assert s.events == log
    assert log[0]["type"] == "deal" and log[1]["type"] == "turnup"
    c = GameState.new("traditional", seed=3, record_events=True).clone()
    assert c.events is None


def test_a_redeal_and_the_yorkshire_pitch_are_events():
    """docs/rules.md section 2: 'If the stock cannot supply a full round of three each plus a turn-up, the
    hand is redealt ... by the same dealer; points already scored from turn-ups stay.' Section 3: 'Yorkshire
    has no decision: the eldest's first card sets trump for the hand.'"""
    s = GameState.new("traditional", seed=4, deal=REDEAL_DEAL, record_events=True)
    assert [e["type"] for e in s.events] == ["deal", "turnup"]
    s.apply(BEG)
    got = s.apply_with_events(RUN_PACK)
    kinds = [e["type"] for e in got]
    assert kinds == ["decision", "turnup", "turnup", "redeal", "turnup"]
    assert [e["card"] for e in got[1:3]] == ["6S", "JS"] and [e["points"] for e in got[1:3]] == [2, 3]
    assert got[3] == {"type": "redeal", "dealer": 0} and got[4]["card"] == card_code(s.turnup)
    y = GameState.new("yorkshire", seed=1)
    lead = y.legal_actions()[0]
    assert y.apply_with_events(lead) == [{"type": "play", "seat": y.history[0][0], "card": card_code(lead),
                                          "trump": SUITS[lead // 13]}]
    take = GameState.new("seven_up", seed=2)
    take.apply(BEG)
    e = take.apply_with_events(GIVE_ONE)[0]
    assert e == {"type": "decision", "seat": take.dealer, "action": "GIVE_ONE", "points": 1,
                 "side": take.side(take.eldest)}


# ---------------------------------------------------------------------- the deal
@pytest.mark.parametrize("preset,options", CASES)
def test_the_current_deal_deals_the_same_hand_again(preset, options):
    """docs/rules.md section 6: reset(options={'deal': {'dealer', 'hands', 'stock'}}) fixes the first hand."""
    for seed in range(4):
        for s in positions(preset, options, seed):
            deal = s.current_deal()
            assert all(len(h) == 6 for h in deal["hands"]) and deal["dealer"] == s.dealer
            again = GameState.new(s.rules, seed=s.seed, deal=deal,
                                  scores=[a - b for a, b in zip(s.scores, s.hand_points)])
            if s.redeals:  # the replay starts at the redeal: the earlier deal's BEG and RUN_PACK are not in it
                continue
            for _, a in s.history:
                again.apply(a)
            for f in ("hands", "dealt", "stock", "stock_pos", "turnups", "tricks", "trick", "voids", "played_by",
                      "trump", "phase", "current", "hand_points", "scores", "runs"):
                assert getattr(again, f) == getattr(s, f), f


def test_make_deal_and_run_batches_invert_each_other():
    s = GameState.new("traditional", seed=4, deal=REDEAL_DEAL)
    s.apply(BEG)
    s2 = GameState.new("traditional", seed=4, deal={**REDEAL_DEAL, "stock": REDEAL_DEAL["stock"][:13]
                                                     + ["QH", "6S"] + REDEAL_DEAL["stock"][15:]})
    s2.apply(BEG)
    s2.apply(RUN_PACK)
    for state in (s, s2):
        batches = run_batches(state.stock, state.n, state.eldest, state.runs)
        assert batches == state.stock_batches()
        assert used_stock(state.n, state.eldest, state.turnups, batches) == state.stock[:state.stock_pos]
        cards = [[c for c in range(52) if (m & ~sum(1 << x for x in b)) >> c & 1] + b
                 for m, b in zip(state.dealt, batches)]
        assert make_deal(state.dealer, cards, state.turnups, state.stock[state.stock_pos:]) == state.current_deal()
    assert s2.runs == 1 and len(stock_layout(4, s2.eldest, 1)) == 14


# ---------------------------------------------------------------------- worlds
@pytest.mark.parametrize("preset,options", CASES)
def test_a_world_agrees_with_the_seats_view_and_replays_on_the_engine(preset, options):
    """A world (``resample``, built with ``with_hands``) shows the seat exactly its view, and is a state the
    engine reaches by dealing its ``current_deal`` and replaying the hand: every card in one place."""
    rng = random.Random(7)
    for seed in range(3):
        for s in positions(preset, options, seed):
            for seat in range(s.n):
                w = resample(s, seat, rng)
                assert seat_view(w, seat) == seat_view(s, seat)
                if s.redeals:
                    continue
                again = GameState.new(w.rules, seed=w.seed, deal=w.current_deal(),
                                      scores=[a - b for a, b in zip(w.scores, w.hand_points)])
                for _, a in w.history:
                    again.apply(a)
                assert again.hands == w.hands and again.dealt == w.dealt and again.stock == w.stock


def test_with_hands_changes_only_what_it_is_given():
    s = GameState.new("yorkshire", seed=5)
    s.apply(s.legal_actions()[0])
    seat = s.current
    other = (seat + 1) % 4
    swapped = {seat: s.hands[other], other: s.hands[seat]}
    w = s.with_hands(swapped, seed=11)
    assert w.hands[seat] == s.hands[other] and w.dealt[other] == s.hands[seat] | s.played_by[other]
    assert w.seed == 11 and w.stock is s.stock and w.legal_mask() == w.legal_from(w.hands[seat])
    assert s.hands[seat] != w.hands[seat]  # the original is untouched


def test_legal_from_is_the_legal_mask_of_that_hand():
    for preset, options in CASES:
        for s in positions(preset, options, 1):
            assert s.legal_from(s.hands[s.current]) == s.legal_mask()


# ---------------------------------------------------------------------- refusals in words
def test_why_illegal_is_none_exactly_for_the_legal_actions():
    for preset, options in CASES:
        for s in positions(preset, options, 2):
            legal = set(s.legal_actions())
            for a in range(NUM_ACTIONS):
                why = s.why_illegal(a)
                assert (why is None) == (a in legal), (a, why)
                assert why is None or (why and "\n" not in why and not why.endswith("."))


def _following(preset, options, want, max_seeds=400):
    """A position in play where a card is in the trick and ``want(state)`` holds."""
    for seed in range(max_seeds):
        for s in positions(preset, options, seed, every=1.0):
            if s.phase == PLAY and s.trick and want(s):
                return s
    raise AssertionError("no such position")


def test_why_illegal_names_the_rule_of_each_refusal():
    """docs/rules.md sections 3 and 4: 'The eldest chooses STAND ... or BEG.' 'After BEG the dealer chooses
    GIVE_ONE ... or RUN_PACK.' 'A trump led: follow with a trump if able, else play anything.' 'Another suit
    led: play that suit or a trump ...; only a player void in the suit led may play a third suit. With
    must_follow_suit, a player holding the suit led must play it.' 'Throw-in ...: legal for a player whose
    remaining hand holds no trump and no card above nine, when it is not leading.'"""
    s = GameState.new("seven_up", seed=5)
    assert s.phase == STAND_OR_BEG
    assert s.why_illegal(STAND, seat=1 - s.current) == f"it is seat {s.current}'s turn, not seat {1 - s.current}'s"
    assert "STAND (the turn-up's suit is trump) or BEG" in s.why_illegal(GIVE_ONE)
    assert "STAND" in s.why_illegal(next(c for c in range(52) if s.hands[s.current] >> c & 1))
    s.apply(BEG)
    assert s.phase == GIVE_OR_RUN and "the dealer decides: GIVE_ONE or RUN_PACK" in s.why_illegal(STAND)
    s.apply(GIVE_ONE)
    assert s.why_illegal(BEG) == "trump is settled: it is time to play a card"
    absent = next(c for c in range(52) if not s.hands[s.current] >> c & 1)
    assert s.why_illegal(absent) == f"seat {s.current} does not hold {card_code(absent)}"
    assert s.why_illegal(THROW_IN) == "throwing in is off in this match"
    assert "is not an action" in s.why_illegal(99)
    y = GameState.new("yorkshire", seed=3)
    assert "time to play a card" in y.why_illegal(STAND) and "first card led sets trump" in y.why_illegal(STAND)
    assert y.why_illegal(THROW_IN) == "a player may not throw in when leading"

    def refused(s):
        return [c for c in range(52) if s.hands[s.current] >> c & 1 and not s.is_legal(c)]

    t = _following("traditional", {}, lambda s: s.led == s.trump and refused(s))
    assert t.why_illegal(refused(t)[0]) == (f"trumps ({('clubs', 'diamonds', 'hearts', 'spades')[t.trump]}) were led:"
                                            " you must follow with a trump while holding one")
    t = _following("traditional", {}, lambda s: s.led != s.trump and refused(s))
    led = ("clubs", "diamonds", "hearts", "spades")[t.led]
    assert t.why_illegal(refused(t)[0]) == (f"{led} were led: you must follow suit or trump (a third suit only when"
                                            f" void in {led})")
    t = _following("traditional", {"must_follow_suit": True}, lambda s: s.led != s.trump and any(
        c // 13 == s.trump for c in refused(s)))
    trump_card = next(c for c in refused(t) if c // 13 == t.trump)  # trumping while holding the suit led
    assert t.why_illegal(trump_card) == f"{('clubs', 'diamonds', 'hearts', 'spades')[t.led]} were led: you must" \
                                        " follow suit while holding one"
    t = _following("yorkshire", {}, lambda s: not s.is_legal(THROW_IN))
    assert t.why_illegal(THROW_IN) == "a player may throw in only holding no trump and no card above nine"
    over = GameState.new("seven_up", seed=1, target=1)
    while not over.done:
        over.apply(over.legal_actions()[0])
    assert over.why_illegal(STAND) == "the match is over: nothing more to play"


# ---------------------------------------------------------------------- hand sizes
def test_hand_sizes_and_the_most_runs_come_from_the_rules():
    """docs/rules.md section 2: 'Six cards each ... Running the pack: three more cards to each player ... A
    player can therefore hold up to 12 cards with four players, 15 with three and 21 with two.'"""
    most = {4: 12, 3: 15, 2: 21}
    for preset, options in CASES:
        rules = make_rules(preset, **options)
        assert rules.hand_size() == 6 and rules.hand_size(1) == 9
        assert rules.hand_size(rules.max_runs) == most[rules.players]
        assert rules.stock_size == 52 - 6 * rules.players
        for s in positions(preset, options, 0, every=1.0):
            assert s.runs <= rules.max_runs
            assert all(m.bit_count() == rules.hand_size(s.runs) for m in s.dealt)
    s = GameState.new("traditional", seed=4, deal=REDEAL_DEAL)
    s.apply(BEG)
    s.apply(RUN_PACK)  # run twice (6S, JS), then the stock cannot give a third run: a redeal
    assert s.redeals == 1 and PRESETS["traditional"].max_runs == 2


# ---------------------------------------------------------------------- the fields, once
def test_the_fields_are_listed_once():
    names = [f for f, _, _ in FIELDS]
    assert tuple(names) == GameState.__slots__ and len(set(names)) == len(names)
    s = GameState.new("traditional", seed=9, record_events=True)
    s.apply(BEG)
    c = s.clone()
    for f, how, _ in FIELDS:
        if how == "drop":
            assert getattr(c, f) is None
        else:
            assert getattr(c, f) == getattr(s, f), f
            if how == "copy":
                assert getattr(c, f) is not getattr(s, f), f
    s.apply(parse_action("RUN_PACK") if s.is_legal(RUN_PACK) else GIVE_ONE)
    assert c.history == [(s.eldest, BEG)]  # the clone is independent


def event_cards(e: dict) -> list[str]:
    """The card codes an event must carry: a play's and a turn-up's card, every play of a trick, the hand a
    player throws in, and each of a hand's high, low and jack that was won (a hand the match ended before play
    has none)."""
    kind = e["type"]
    if kind in ("play", "turnup"):
        return [e["card"]]
    if kind == "trick":
        return [p["card"] for p in e["plays"]]
    if kind == "throw_in":
        return list(e["cards"])
    if kind == "hand_result":
        return [e[f"{point}_card"] for point in ("high", "low", "jack") if e[point] is not None]
    return []


@pytest.mark.parametrize("preset,options", CASES)
def test_events_carry_card_codes_that_parse(preset, options):
    s = play_recorded(preset, options, 5)
    kinds = {e["type"] for e in s.events}
    assert {"play", "trick", "hand_result"} <= kinds, kinds  # a match has all three, each checked below
    for e in s.events:
        for code in event_cards(e):
            assert isinstance(code, str) and card_code(parse_card(code)) == code, e
        if e["type"] == "trick":
            assert len(e["plays"]) >= 1, e
        if e["type"] == "hand_result":
            assert all(e[f"{point}_card"] is None for point in ("high", "low", "jack") if e[point] is None), e
    played = [e for e in s.events if e["type"] == "hand_result" and e["high"] is not None]
    assert played and all(e["high_card"] and e["low_card"] for e in played), played  # a hand played out has both
