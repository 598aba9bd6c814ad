"""Property tests of the rules engine over every preset and player count (hypothesis).

Random legal play is checked against an independent model of the rules (docs/rules.md sections 2-5): the legal
actions, where every card is, who wins each trick, the four categories, turn-up points and take-one,
and how the score moves, hand after hand until the match ends.
"""

from __future__ import annotations

import copy
import random
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from allfours_env import engine
from allfours_env.engine import GameState
from allfours_env.rules import make_rules

FULL = (1 << 52) - 1
VALUE = {8: 10, 9: 1, 10: 2, 11: 3, 12: 4}  # rank index -> Game value: T J Q K A
KICKS = {"yorkshire": {}, "traditional": {12: 1, 4: 2, 9: 3}, "seven_up": {9: 1}}
STAND, BEG, GIVE_ONE, RUN_PACK, THROW_IN = 52, 53, 54, 55, 56
MAX_STEPS = 20_000  # a match of random legal play must end well within this

CONFIGS = [
    ("yorkshire", {}),
    ("yorkshire", {"must_follow_suit": True}),
    ("yorkshire", {"throw_in": False}),
    ("traditional", {"players": 2}),
    ("traditional", {"players": 3}),
    ("traditional", {"players": 4}),
    ("traditional", {"players": 4, "must_follow_suit": True}),
    ("traditional", {"players": 4, "throw_in": True}),
    ("traditional", {"players": 3, "throw_in": True, "target": 7}),
    ("seven_up", {}),
    ("seven_up", {"low_cut_deals": True, "must_follow_suit": True}),
]


def profile(examples: int) -> settings:
    return settings(max_examples=examples, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ---------------------------------------------------------------------------- the model


def cards(m: int) -> list[int]:
    return [c for c in range(52) if m >> c & 1]


def pop(m: int) -> int:
    return bin(m).count("1")


def mask_of(cs) -> int:
    m = 0
    for c in cs:
        m |= 1 << c
    return m


def side(s: GameState, seat: int) -> int:
    return seat % 2 if s.n == 4 else seat


def model_legal(s: GameState) -> set[int]:
    """docs/rules.md sections 3-4, written out independently of the engine."""
    if s.done:
        return set()
    if s.phase == engine.STAND_OR_BEG:
        return {STAND, BEG}
    if s.phase == engine.GIVE_OR_RUN:
        return {GIVE_ONE, RUN_PACK}
    hand = cards(s.hands[s.current_player])
    if not s.trick:
        return set(hand)
    led = s.trick[0][1] // 13
    trumps = [c for c in hand if c // 13 == s.trump]
    follow = [c for c in hand if c // 13 == led]
    if led == s.trump:
        out = set(trumps or hand)
    elif follow:
        out = set(follow) if s.rules.must_follow_suit else set(follow + trumps)
    else:
        out = set(hand)
    if s.rules.throw_in and not trumps and all(c % 13 < 8 for c in hand):
        out.add(THROW_IN)
    return out


def trick_winner(plays, trump: int) -> int:
    led = plays[0][1] // 13

    def key(pc):
        c = pc[1]
        return 100 + c % 13 if c // 13 == trump else (c % 13 if c // 13 == led else -1)

    return max(plays, key=key)[0]


def check_cards(s: GameState) -> None:
    """Every card is in exactly one place: a hand, played (trick, thrown or captured), the stock, or
    turned up."""
    parts = list(s.hands) + list(s.played_by) + [mask_of(s.stock[s.stock_pos:]), mask_of(s.turnups)]
    union = 0
    for m in parts:
        union |= m
    assert union == FULL and sum(pop(m) for m in parts) == 52, "a card is missing or duplicated"
    for p in range(s.n):
        assert s.hands[p] & s.played_by[p] == 0
        assert s.hands[p] | s.played_by[p] == s.dealt[p]
    dealt = 0
    for m in s.dealt:
        assert dealt & m == 0
        dealt |= m
    assert mask_of(s.stock[:s.stock_pos]) == mask_of(s.turnups) | (mask_of(s.stock[:s.stock_pos]) & dealt)
    assert not dealt & mask_of(s.turnups)  # a turned-up card is never in a hand
    played = 0
    for m in s.played_by:
        played |= m
    in_trick = mask_of(c for _, c in s.trick)
    for _, m in s.thrown:
        in_trick |= m
    captured = 0
    for m in s.captured:
        assert captured & m == 0
        captured |= m
    assert captured & in_trick == 0 and captured | in_trick == played
    # a void the engine infers from play is real: the player holds no card of that suit
    for p in range(s.n):
        for suit in range(4):
            if s.voids[p] >> suit & 1:
                assert not any(c // 13 == suit for c in cards(s.hands[p])), "false void inference"
    # all players still in hold the same number of cards at the start of a trick
    if s.phase == engine.PLAY and not s.trick and not s.done:
        sizes = {pop(s.hands[p]) for p in range(s.n) if not s.out >> p & 1}
        assert len(sizes) == 1


def model_categories(s: GameState) -> dict:
    """High, Low, Jack, Game of a finished hand from the deal and the trick record (docs/rules.md section 5)."""
    trump, n = s.trump, s.n
    cap = [0] * s.sides
    for plays, thrown, winner in s.tricks:
        assert winner == trick_winner(plays, trump)
        m = mask_of(c for _, c in plays)
        for _, t in thrown:
            m |= t
        cap[side(s, winner)] |= m
    assert cap == s.captured
    dealt_all = 0
    for m in s.dealt:
        dealt_all |= m
    union = 0
    for m in cap:
        union |= m
    assert union == dealt_all, "captured cards differ from the dealt cards"
    trumps = sorted((c, seat) for seat in range(n) for c in cards(s.dealt[seat]) if c // 13 == trump)
    high = side(s, trumps[-1][1]) if trumps else None
    low = side(s, trumps[0][1]) if trumps else None
    jack, jack_points = None, 0
    jc = trump * 13 + 9
    holder = next((p for p in range(n) if s.dealt[p] >> jc & 1), None)
    if holder is not None:
        jack = next(sd for sd in range(s.sides) if cap[sd] >> jc & 1)
        jack_points = 3 if s.rules.preset == "traditional" and jack != side(s, holder) else 1
    totals = [sum(VALUE.get(c % 13, 0) for c in cards(m)) for m in cap]
    best = max(totals)
    game = totals.index(best) if totals.count(best) == 1 else (
        side(s, s.eldest) if s.rules.preset == "seven_up" else None)
    return {"trump": "CDHS"[trump], "high": high, "low": low, "jack": jack, "jack_points": jack_points,
            "game": game, "game_totals": totals}


def award(base: list[int], events, target: int):
    """Award (side, points) events in order, stopping when a side reaches the target."""
    scores, pts = base[:], [0] * len(base)
    for sd, p in events:
        if not p:
            continue
        scores[sd] += p
        pts[sd] += p
        if scores[sd] >= target:
            return pts, sd
    return pts, None


def kick(s: GameState, card: int) -> int:
    return KICKS[s.rules.preset].get(card % 13, 0)


def predict_run(s: GameState):
    """Cards turned up by RUN_PACK from this state, and whether the stock runs out (docs/rules.md section 2)."""
    n, pos, first = s.n, s.stock_pos, s.turnup // 13
    turned, batches = [], []
    while True:
        if len(s.stock) - pos < 3 * n + 1:
            return turned, batches, True
        batches.append([s.stock[pos + 3 * i:pos + 3 * i + 3] for i in range(n)])
        pos += 3 * n
        turned.append(s.stock[pos])
        pos += 1
        if s.stock[pos - 1] // 13 != first:
            return turned, batches, False


# ---------------------------------------------------------------------------- the checker


class MatchChecker:
    """Follows a match step by step and checks it against the model."""

    def __init__(self, s: GameState):
        self.s = s
        self.target = s.rules.target
        self.base = [a - b for a, b in zip(s.scores, s.hand_points)]
        self.events: list = []
        self.hands_checked = 0
        self._new_hand()

    def _new_hand(self) -> None:
        s = self.s
        self.events = [(side(s, s.dealer), kick(s, s.turnups[0]))] if s.rules.turnup else []
        self._check_pre_play()

    def _check_pre_play(self) -> None:
        s = self.s
        pts, winner = award(self.base, self.events, self.target)
        assert s.hand_points == pts
        assert s.scores == [b + p for b, p in zip(self.base, pts)]
        if winner is not None:
            assert s.done and s.winner == winner

    def step(self, a: int) -> None:
        s = self.s
        assert 0 <= s.current_player < s.n
        legal = s.legal_actions()
        assert legal, "no legal action for the player to move"
        assert set(legal) == model_legal(s)
        assert a in legal
        # docs/rules.md section 4: only the Yorkshire pitcher's partner, only before the first card is led
        hidden = [s.rules.preset == "yorkshire" and s.phase == engine.PLAY and not s.tricks and not s.trick
                  and p == (s.eldest + 2) % s.n for p in range(s.n)]
        assert [s.hidden_hand(p) for p in range(s.n)] == hidden
        prev = s.clone()
        if a == GIVE_ONE:
            self.events.append((side(s, s.eldest), 1))
        run = predict_run(s) if a == RUN_PACK else None
        s.apply(a)
        check_cards(s)
        if run is not None:
            turned, batches, runs_out = run
            self.events += [(side(s, prev.dealer), kick(s, c)) for c in turned]
            if s.redeals > prev.redeals:
                # the same dealer deals again: the same hand, unless a kick in it has just won the match
                assert runs_out and s.dealer == prev.dealer and (s.hand_no == prev.hand_no or s.done)
                self.events.append((side(s, s.dealer), kick(s, s.turnups[0])))
            elif not s.done:
                assert not runs_out
                assert s.turnups == prev.turnups + turned
                assert s.trump == turned[-1] // 13 != prev.turnup // 13
                for p in range(s.n):
                    extra = [c for b in batches for c in b[(p - s.eldest) % s.n]]
                    assert s.dealt[p] == prev.dealt[p] | mask_of(extra)
        ended = s.hand_no - prev.hand_no
        assert ended in (0, 1, 2)
        if not ended:
            self._check_pre_play()
            return
        # hand N ended during this action; a hand N+1 may have ended too (a turn-up winning the match)
        # replay the action on a one-hand copy, which keeps hand N's deal, tricks and result
        replay = prev.clone()
        replay.rules = replace(replay.rules, episode="hand")
        replay.apply(a)
        hr = replay.hand_result
        if ended == 1:
            assert s.hand_result == hr
        if prev.phase == engine.PLAY:
            expect = model_categories(replay)
            got = dict(hr)
            got.pop("points")
            assert got == expect
            for key in ("high", "low", "jack", "game"):
                self.events.append((hr[key], hr["jack_points"] if key == "jack" else 1) if hr[key] is not None
                                   else (0, 0))
        else:
            assert hr["high"] is None and hr["low"] is None and hr["jack"] is None and hr["game"] is None
        pts, winner = award(self.base, self.events, self.target)
        assert hr["points"] == pts
        self.base = [b + p for b, p in zip(self.base, pts)]
        self.hands_checked += 1
        if winner is not None:
            assert ended == 1 and s.done and s.winner == winner and s.scores == self.base
            return
        if s.rules.episode == "hand":
            assert s.done and s.winner is None and s.scores == self.base
            return
        assert s.dealer == (prev.dealer + 1) % s.n  # the deal passes to the next seat
        self._new_hand()
        if ended == 2:
            assert s.done and s.hand_result["points"] == s.hand_points
            self.base = list(s.scores)


def snapshot(s: GameState) -> dict:
    snap = {k: getattr(s, k) for k in GameState.__slots__ if k not in ("_legal", "rules")}
    snap["legal"] = s.legal_actions()
    return copy.deepcopy(snap)


def config_and_scores():
    def build(cfg):
        preset, opts = cfg
        rules = make_rules(preset, **opts)
        return st.tuples(st.just(cfg), st.one_of(
            st.none(), st.lists(st.integers(0, rules.target - 1), min_size=rules.sides, max_size=rules.sides)))
    return st.sampled_from(CONFIGS).flatmap(build)


# ---------------------------------------------------------------------------- properties


@profile(400)
@given(cs=config_and_scores(), seed=st.integers(0, 2**62), play_seed=st.integers(0, 2**32))
@example(cs=(("traditional", {"players": 4}), None), seed=8, play_seed=88580218)  # run out, redeal kick wins
def test_random_match_follows_the_rules_to_the_end(cs, seed, play_seed):
    """Random legal play: the legal actions are never empty and match the model; every card is
    accounted for at every step; each hand's result and points match the model (kicks, take-one,
    High, Low, Jack, Game, stopping at the target); scores advance by exactly the hand's points; the
    match ends within a bound with one winner at or over the target."""
    (preset, opts), scores = cs
    s = GameState.new(preset, seed=seed, scores=scores, **opts)
    check_cards(s)
    checker = MatchChecker(s)
    rng = random.Random(play_seed)
    steps = 0
    while not s.done:
        steps += 1
        assert steps < MAX_STEPS, "match did not end"
        checker.step(rng.choice(s.legal_actions()))
    assert s.legal_actions() == [] and s.current_player == -1
    assert s.winner is not None and s.scores[s.winner] >= s.rules.target
    assert all(v < s.rules.target for i, v in enumerate(s.scores) if i != s.winner)


@profile(200)
@given(cfg=st.sampled_from(CONFIGS), seed=st.integers(0, 2**62), play_seed=st.integers(0, 2**32))
def test_single_hand_episode(cfg, seed, play_seed):
    """episode="hand": one hand, then done; captured cards == dealt cards; the result matches the
    model; ``points`` sum the kicks, take-one and categories; the score is the start score plus them."""
    preset, opts = cfg
    s = GameState.new(preset, seed=seed, episode="hand", **opts)
    checker = MatchChecker(s)
    rng = random.Random(play_seed)
    steps = 0
    while not s.done:
        steps += 1
        assert steps < 200
        checker.step(rng.choice(s.legal_actions()))
    assert s.hand_no == 1 and checker.hands_checked == 1
    assert s.scores == s.hand_result["points"]


@profile(100)
@given(cfg=st.sampled_from(CONFIGS), seed=st.integers(0, 2**62), play_seed=st.integers(0, 2**32),
       cut=st.integers(0, 300))
def test_clone_is_independent_and_replays_identically(cfg, seed, play_seed, cut):
    """clone() gives an independent state: playing the clone on leaves the original untouched, and the
    same actions applied to the original reproduce the clone exactly."""
    preset, opts = cfg
    s = GameState.new(preset, seed=seed, **opts)
    rng = random.Random(play_seed)
    for _ in range(cut):
        if s.done:
            break
        s.apply(rng.choice(s.legal_actions()))
    before = snapshot(s)
    c = s.clone()
    actions = []
    while not c.done and len(actions) < 400:
        a = rng.choice(c.legal_actions())
        actions.append(a)
        c.apply(a)
    assert snapshot(s) == before
    for a in actions:
        s.apply(a)
    assert snapshot(s) == snapshot(c)


@profile(60)
@given(cfg=st.sampled_from(CONFIGS), seed=st.integers(0, 2**62), play_seed=st.integers(0, 2**32))
def test_same_seed_same_match(cfg, seed, play_seed):
    """docs/rules.md section 6: "the same seed gives the same match" — first dealer, every deal, every turn-up."""
    preset, opts = cfg
    runs = []
    for _ in range(2):
        s = GameState.new(preset, seed=seed, **opts)
        rng = random.Random(play_seed)
        trace = [(s.dealer, tuple(s.hands), tuple(s.stock))]
        while not s.done:
            a = rng.choice(s.legal_actions())
            trace.append((s.current_player, a, s.hand_no, s.redeals, tuple(s.hands), tuple(s.scores)))
            s.apply(a)
        runs.append((trace, s.scores, s.winner, s.hand_result))
    assert runs[0] == runs[1]


def test_different_seeds_give_different_deals():
    """The seed drives the deal: different seeds give different first hands."""
    for preset in ("yorkshire", "traditional", "seven_up"):
        deals = {tuple(GameState.new(preset, seed=sd).hands) for sd in range(20)}
        assert len(deals) == 20


# ---------------------------------------------------------------------------- a hand and a turn-up in one action

# seven_up, dealer 1: the elder (seat 0) takes High and Game, the dealer Low and Jack: 2 points each.
SPLIT = [["AH", "2C", "3C", "4C", "5C", "6C"], ["3H", "JH", "7D", "8D", "9D", "2S"]]
SPLIT_STOCK = ["2H"] + [r + u for u in "CDHS" for r in "23456789TJQKA"
                        if r + u not in {"2H", *SPLIT[0], *SPLIT[1]}]


def _play_split_hand(seed: int):
    """Play the SPLIT hand from 4-2; returns (state, scores before the hand's last card)."""
    s = GameState.new("seven_up", seed=seed, scores=[4, 2],
                      deal={"dealer": 1, "hands": SPLIT, "stock": SPLIT_STOCK})
    for a in (52, 38, 27, 0, 35):  # STAND, AH, 3H, 2C, JH (the dealer trumps with the jack)
        s.apply(a)
    before = None
    while s.hand_no == 0:
        before = list(s.scores)
        s.apply(s.legal_actions()[0])
    return s, before


def _seed_where_next_turn_up_wins() -> int:
    # The hand leaves the elder at 6; the next deal (dealer seat 0) turns up a jack for the 7th point.
    return next(sd for sd in range(3000) if _play_split_hand(sd)[0].hand_no == 2)


def test_next_deals_turned_up_jack_can_win_in_the_same_action():
    """docs/rules.md section 5: turn-up points are scored "before play" of the next hand, "stopping the moment a side
    reaches the target": the action ending one hand can deal the next, whose turn-up wins."""
    s, before = _play_split_hand(_seed_where_next_turn_up_wins())
    assert before == [4, 2]
    assert s.done and s.winner == 0 and s.scores == [7, 4]
    assert s.turnup % 13 == 9 and s.dealer == 0


def test_score_moves_by_the_reported_points_when_the_next_turn_up_wins():
    """docs/rules.md section 6: When a hand ends, every agent's info holds hand_result"" / "points counts everything
    the side scored in that hand" — every point added in one action is reported in a hand result:
    the played hand keeps its categories, and the turn-up hand that won the match follows it."""
    s, before = _play_split_hand(_seed_where_next_turn_up_wins())
    played, kicked = s.hand_results
    assert played["high"] == 0 and played["low"] == 1 and played["jack"] == 1 and played["game"] == 0
    assert played["points"] == [2, 2] and kicked["points"] == [1, 0] and kicked["high"] is None
    assert s.scores == [b + p + k for b, p, k in zip(before, played["points"], kicked["points"])]


def test_env_reports_both_hands_that_end_in_one_step():
    """The AEC env puts the played hand in "hand_result" and both hands in "hand_results"."""
    from allfours_env import raw_env
    sd = _seed_where_next_turn_up_wins()
    e = raw_env("seven_up", reward="points")
    e._seeder.seed(0)
    e.reset(options={"scores": [4, 2], "deal": {"dealer": 1, "hands": SPLIT, "stock": SPLIT_STOCK}})
    e.game.seed = sd  # the next deal comes from this seed, as in _play_split_hand
    total = {a: 0.0 for a in e.agents}
    for a in (52, 38, 27, 0, 35):
        e.step(a)
    while e.game.hand_no == 0:
        e.step(e.game.legal_actions()[0])
        for a in e.agents:
            total[a] += e.rewards[a]
    info = e.infos["player_0"]
    assert info["hand_result"]["points"] == [2, 2] and len(info["hand_results"]) == 2
    assert total == {"player_0": 1.0, "player_1": -1.0}  # points mode: (2 + 1) - 2 for the elder


@pytest.mark.parametrize("preset,options", [("yorkshire", {}), ("traditional", {"players": 3}), ("seven_up", {})])
def test_last_hand_keeps_the_played_hands_tricks_and_deal(preset, options):
    """The next deal wipes ``tricks`` and ``dealt``; ``last_hand`` keeps them for the hand just played."""
    rng = random.Random(4)
    s = GameState.new(preset, seed=9, **options)
    assert s.last_hand is None
    played_out = 0
    while s.hand_no < 3 and not s.done:
        before, action = s.clone(), rng.choice(s.legal_actions())
        s.apply(action)
        if s.last_hand is not before.last_hand:  # a hand was played out by this action
            last = s.last_hand
            assert last["dealt"] == tuple(before.dealt) and last["trump"] == before.trump
            assert last["tricks"][:-1] == tuple(before.tricks)
            plays, _thrown, winner = last["tricks"][-1]
            mine = [(before.current, action)] if action < 52 else []
            assert list(plays) == before.trick + mine
            played_out += 1
    assert played_out >= 2
