"""Hosted matches (allfours/serve/hosted.py over HTTP): whole matches, secrecy, refusals, limits, bad input."""

from __future__ import annotations

import json
import os
import random
import re
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from allfours.serve.app import create_app
from allfours.serve.core import BotPool
from allfours.serve.hosted import Limits, MatchStore, take_events
from allfours_env import GameState, card_code, parse_action
from allfours_env.cards import RUN_PACK, THROW_IN, codes
from allfours_env.deal import TURN_UP, stock_layout

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

BOTS = ["heuristic", "random"]
NO_LIMITS = Limits(client_rate=0, token_rate=0, max_matches=100_000, max_matches_per_client=0)
ALL_CODES = [card_code(c) for c in range(52)]
DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"
DOC_STEPS = re.findall(r"<!-- hosted -->\n```\n(.*?)\n```\n\nanswer `(\d+)`(?::\n\n```json\n(.*?)\n```)?",
                       DOC.read_text(), re.S)
FUZZ = settings(max_examples=int(os.environ.get("ALLFOURS_FUZZ_EXAMPLES", 100)), deadline=None,
                suppress_health_check=list(HealthCheck))
CASES = [  # preset, options, seats
    ("yorkshire", {}, ["human", "heuristic", "random", "heuristic"]),
    ("yorkshire", {}, ["human"] * 4),
    ("traditional", {"players": 2}, ["human", "heuristic"]),
    ("traditional", {"players": 3}, ["random", "human", "human"]),
    ("traditional", {}, ["heuristic", "human", "heuristic", "human"]),
    ("seven_up", {}, ["heuristic", "human"]),
    ("pitch", {"players": 3}, ["human", "heuristic", "heuristic"]),  # docs/rules.md section 8: the auction
    ("setback", {"smudge": True}, ["heuristic", "human", "heuristic", "human"]),
]


class FakeClock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="module")
def app():
    return create_app(BOTS, limits=NO_LIMITS)


@pytest.fixture(scope="module")
def client(app):
    with TestClient(app, base_url="http://127.0.0.1") as c:
        yield c


def auth(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def create(client, preset, options, seats, seed=1) -> dict:
    r = client.post("/v1/matches", json={"preset": preset, "options": options, "seats": seats, "seed": seed})
    assert r.status_code == 201, r.text
    return r.json()


def error_of(r, status: int) -> dict:
    assert r.status_code == status, r.text
    err = r.json()["error"]
    assert err["status"] == status and err["type"] and err["message"]
    return err


def hidden_from(state: GameState, seat: int) -> set[str]:
    """Card codes ``seat`` may not see now: other hands, the stock, and its own hand while the rules hide it."""
    seen = state.hands[seat] if not state.hidden_hand(seat) else 0
    for m in state.played_by:
        seen |= m
    for c in state.turnups:
        seen |= 1 << c
    return set(codes(((1 << 52) - 1) & ~seen))


def cards_in(x) -> set[str]:
    text = json.dumps(x)
    return {c for c in ALL_CODES if f'"{c}"' in text}


class Witness:
    """The test's own replay of the moves the server reports, and every card made public so far by the engine."""

    def __init__(self, preset, options, seed):
        self.state = GameState.new(preset, seed=seed, **options)
        self.public = set(codes(sum(1 << c for c in self.state.turnups)))
        self.seq = 0

    def absorb(self, events) -> None:
        for e in events:
            if e["seq"] <= self.seq:
                continue
            self.seq = e["seq"]
            if e["type"] in ("play", "decision", "throw_in", "bid"):
                assert self.state.current == e["seat"]
                action, held = moves_of([e])[0], self.state.hands[e["seat"]]
                s, deals = self.state, self.state.deals
                stock, pos, layout = s.stock, s.stock_pos, stock_layout(s.n, s.eldest, 52)
                s.apply(action)  # the engine accepts it: the card (or the hand thrown in) is on the table
                self.public |= set(codes(held if action == THROW_IN else 1 << action if action < 52 else 0))
                if action == RUN_PACK and s.deals > deals:  # every turn-up of the run before the pack ran out
                    self.public |= {card_code(stock[i]) for i in range(pos, len(stock)) if layout[i] == TURN_UP}
                self.public |= {card_code(c) for c in self.state.turnups}

    def check(self, answer: dict, seat: int, server_state: GameState) -> None:
        """The view shows nothing ``seat`` may not see now; the events and results only public cards."""
        leaked = cards_in(answer["view"]) & hidden_from(server_state, seat)
        assert not leaked, f"seat {seat}'s view showed {leaked}"
        self.absorb(answer["events"])
        leaked = cards_in([answer["events"], answer["results"]]) - self.public
        assert not leaked, f"seat {seat}'s events showed {leaked}, never public"


def play_match(client, app, preset, options, seats, seed, pick=None):
    """Play a hosted match to its end through HTTP: every human seat moves ``pick(view)`` (default: random legal),
    checking every answer for secrecy. Returns (the creation answer, every event in order, the last view)."""
    rng = random.Random(seed)
    pick = pick or (lambda view: rng.choice(view["legal_actions"]))
    made = create(client, preset, options, seats, seed)
    mid, tokens = made["match_id"], {t["seat"]: t["token"] for t in made["tokens"]}
    assert sorted(tokens) == [s for s, p in enumerate(seats) if p == "human"]
    server = app.state.matches._matches[mid]
    witness = Witness(preset, options, seed)
    witness.absorb(made["events"])
    assert not cards_in(made) - witness.public
    events, seq, to_move, k = list(made["events"]), made["seq"], made["to_move"], 0
    while True:
        k += 1
        onlooker = sorted(tokens)[k % len(tokens)]  # besides the mover, one other seat reads its view each move
        answers = {s: client.get(f"/v1/matches/{mid}", params={"since": seq}, headers=auth(tokens[s]))
                   for s in {onlooker} | ({to_move} if to_move is not None else set())}
        for s, r in answers.items():
            assert r.status_code == 200, r.text
            witness.check(r.json(), s, server.state)
        view = answers[onlooker].json()["view"]
        if view["done"]:
            return made, events, view
        seat = view["to_move"]
        assert seats[seat] == "human" and seat == to_move, "the bots move on the server until a person is to move"
        mine = answers[seat].json()
        assert mine["your_turn"] and mine["events"] == [e for e in mine["events"] if e["seq"] > seq]
        r = client.post(f"/v1/matches/{mid}/moves", json={"action": pick(mine["view"])}, headers=auth(tokens[seat]))
        assert r.status_code == 200, r.text
        body = r.json()
        witness.check(body, seat, server.state)
        assert body["events"][0]["seq"] == seq + 1 and body["events"][0]["seat"] == seat  # from the move on
        events += body["events"]
        seq, to_move = body["seq"], body["view"]["to_move"]


def moves_of(events) -> list[int]:
    return [THROW_IN if e["type"] == "throw_in" else parse_action(e.get("card") or e["action"])
            for e in events if e["type"] in ("play", "decision", "throw_in", "bid")]


# ---------------------------------------------------------------------- whole matches
@pytest.mark.parametrize("preset,options,seats", CASES, ids=[f"{p}-{len(s)}-{s.count('human')}h" for p, _, s in CASES])
def test_a_whole_match_replays_to_the_same_score(client, app, preset, options, seats):
    made, events, view = play_match(client, app, preset, options, seats, seed=11)
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    replay = GameState.new(preset, seed=11, **options)
    for a in moves_of(events):
        replay.apply(a)
    assert replay.done and view["done"]
    assert view["scores"] == replay.scores and view["winner"] == replay.winner
    assert events[-1] == {"seq": len(events), "type": "match_over", "winner": replay.winner, "scores": replay.scores}
    results = [e for e in events if e["type"] == "hand_result"]
    keys = ("trump", "high", "low", "jack", "jack_points", "game", "game_totals", "points",
            *(("bidder", "bid", "made") if replay.rules.auction else ()))
    assert [{k: r[k] for k in keys} for r in results] == [{k: r[k] for k in keys} for r in replay.hand_results]
    record = app.state.matches.record(made["match_id"])
    assert [parse_action(a) for _, a in record["actions"]] == moves_of(events) and record["scores"] == replay.scores


def test_hand_results_name_the_cards_behind_high_low_and_jack(client, app):
    """Traditional text: 'High goes to the player or team that held the highest trump dealt. Low goes to the
    original holder of the lowest trump dealt'. Every dealt card is played by the end of a hand, so the
    highest and lowest trump played are the highest and lowest dealt."""
    _, events, _ = play_match(client, app, "traditional", {}, ["human", "heuristic", "heuristic", "heuristic"], 4)
    played, n = [], 0
    for e in events:
        if e["type"] == "deal":
            played = []
        elif e["type"] == "play":
            played.append(e["card"])
        elif e["type"] == "throw_in":
            played += e["cards"]
        elif e["type"] == "hand_result" and e["high"] is not None:
            n += 1
            trumps = sorted(parse_action(c) for c in played if c[1] == e["trump"])
            assert e["high_card"] == card_code(trumps[-1]) and e["low_card"] == card_code(trumps[0])
            jack = e["trump"] and "J" + e["trump"]
            assert e["jack_card"] == (jack if jack in played else None)
            assert (e["jack"] is None) == (e["jack_card"] is None)
    assert n >= 2


def test_a_hands_points_are_accounted_for_by_its_events():
    """docs/rules.md sections 3 and 5: the kicks of the turn-ups and the point for 'take one' count as
    they happen (a run of the pack that runs out keeps them), then High, Low, Jack and Game in that
    order, stopping the moment a side reaches the target. The events of a hand (turn-ups with their
    points, a GIVE_ONE with its point, the hand_result) say it all, so a frontend can show where every
    point of the hand came from."""
    seen = {"kick": 0, "gift": 0, "ran_out": 0, "cut_short": 0, "unplayed": 0}
    for preset, options in [("traditional", {"players": 2}), ("traditional", {"players": 3}), ("traditional", {}),
                            ("seven_up", {}), ("seven_up", {"target": 2}), ("traditional", {"players": 2, "target": 3}),
                            ("yorkshire", {})]:
        for seed in range(60):
            state = GameState.new(preset, seed=seed, record_events=True, **options)
            rng = random.Random(seed)
            events = take_events(state)
            while not state.done:
                state.apply(rng.choice(state.legal_actions()))
                events += take_events(state)
            hand = []
            for e in events:
                hand = [] if e["type"] == "deal" else hand + [e]
                if e["type"] != "hand_result":
                    continue
                sides, target = len(e["points"]), state.rules.target
                before = [s - p for s, p in zip(e["scores"], e["points"])]
                points = [0] * sides
                for x in hand:
                    if x.get("points") and x["type"] in ("turnup", "decision"):
                        points[x["side"]] += x["points"]
                        seen["kick" if x["type"] == "turnup" else "gift"] += 1
                seen["ran_out"] += any(x["type"] == "redeal" for x in hand) and points != [0] * sides
                played = any(x["type"] == "play" for x in hand)
                seen["unplayed"] += not played
                awards = [(e["high"], 1), (e["low"], 1), (e["jack"], e["jack_points"]), (e["game"], 1)]
                for side, p in awards if played else []:
                    if any(b + q >= target for b, q in zip(before, points)):
                        seen["cut_short"] += side is not None
                        continue
                    if side is not None:
                        points[side] += p
                assert points == e["points"], (preset, options, seed, hand)
    assert all(seen.values()), seen


def test_the_pitchers_partner_sees_no_card_of_its_own_before_the_lead(client, app):
    """Yorkshire text: 'The pitcher's partner must not look at their hand until that lead'."""
    for seed in range(3):
        made = create(client, "yorkshire", {}, ["human"] * 4, seed)
        tokens = {t["seat"]: t["token"] for t in made["tokens"]}
        first = client.get(f"/v1/matches/{made['match_id']}", headers=auth(tokens[0])).json()["view"]
        partner = (first["eldest"] + 2) % 4
        r = client.get(f"/v1/matches/{made['match_id']}", headers=auth(tokens[partner]))
        view = r.json()["view"]
        assert view["hand_hidden"] and view["hand"] == [] and view["hand_sizes"][partner] == 6
        assert not cards_in(view) & hidden_from(app.state.matches._matches[made["match_id"]].state, partner)
        pitch = client.get(f"/v1/matches/{made['match_id']}", headers=auth(tokens[first["eldest"]])).json()
        r = client.post(f"/v1/matches/{made['match_id']}/moves", json={"action": pitch["view"]["legal_actions"][0]},
                        headers=auth(tokens[first["eldest"]]))
        assert r.status_code == 200
        view = client.get(f"/v1/matches/{made['match_id']}", headers=auth(tokens[partner])).json()["view"]
        assert not view["hand_hidden"] and len(view["hand"]) == 6  # after the lead: its cards


def test_a_redeal_is_an_event(client):
    """Traditional text: 'If the deck runs out without producing a different suit, reshuffle and redeal; keep
    any points already earned from turned-up cards.'"""
    seed = next(k for k in range(2000) if _redeals(k))
    made = create(client, "traditional", {}, ["human"] * 4, seed)
    mid, tokens = made["match_id"], {t["seat"]: t["token"] for t in made["tokens"]}
    eldest = made["events"][0]["eldest"]
    r = client.post(f"/v1/matches/{mid}/moves", json={"action": "BEG"}, headers=auth(tokens[eldest]))
    assert r.status_code == 200
    dealer = (eldest + 3) % 4
    body = client.post(f"/v1/matches/{mid}/moves", json={"action": "RUN_PACK"}, headers=auth(tokens[dealer])).json()
    kinds = [e["type"] for e in body["events"]]
    assert kinds[:1] == ["decision"] and "redeal" in kinds and kinds[-1] == "turnup"
    assert body["events"][-1]["card"] == body["view"]["turnups"][0] and body["view"]["phase"] == "stand_or_beg"
    replay = GameState.new("traditional", seed=seed)
    for a in ("BEG", "RUN_PACK"):
        replay.apply(parse_action(a))
    assert body["view"]["scores"] == replay.scores


def _redeals(seed: int) -> bool:
    s = GameState.new("traditional", seed=seed)
    s.apply(parse_action("BEG"))
    s.apply(parse_action("RUN_PACK"))
    return s.deals > 1 and not s.done


def test_a_match_won_by_the_first_turn_up(client):
    seed = next(k for k in range(2000) if GameState.new("seven_up", seed=k, target=1).done)
    made = create(client, "seven_up", {"target": 1}, ["human", "heuristic"], seed)
    assert made["done"] and made["to_move"] is None
    assert [e["type"] for e in made["events"]] == ["deal", "turnup", "hand_result", "match_over"]
    result = made["events"][2]
    assert result["high"] is None and result["high_card"] is None and max(result["points"]) == 1


# ---------------------------------------------------------------------- tokens
def test_a_wrong_or_missing_token_gets_403_and_nothing_of_the_hand(client):
    made = create(client, "seven_up", {}, ["human", "heuristic"], 3)
    other = create(client, "seven_up", {}, ["human", "heuristic"], 4)
    mid, token = made["match_id"], made["tokens"][0]["token"]
    good = client.get(f"/v1/matches/{mid}", headers=auth(token)).json()
    assert len(good["view"]["hand"]) == 6
    headers = [{}, auth("x" * 32), auth(token[:-1]), auth(other["tokens"][0]["token"]),
               {"Authorization": f"Basic {token}"}, {"Authorization": token}, auth(token + " ")]
    for h in headers[:-1]:
        for r in (client.get(f"/v1/matches/{mid}", headers=h),
                  client.post(f"/v1/matches/{mid}/moves", json={"action": good["view"]["legal_actions"][0]},
                              headers=h),
                  client.delete(f"/v1/matches/{mid}", headers=h)):
            assert error_of(r, 403)["type"] == "forbidden"
            assert not any(f'"{c}"' in r.text or c in r.json()["error"]["message"] for c in ALL_CODES)
    assert client.get(f"/v1/matches/{mid}", headers=headers[-1]).status_code == 200  # spaces around it are fine
    assert client.get(f"/v1/matches/{mid}", headers=auth(token)).json()["seq"] == good["seq"]  # nothing moved
    assert error_of(client.get("/v1/matches/nosuchmatch", headers=auth(token)), 404)["type"] == "no_match"
    assert client.delete(f"/v1/matches/{mid}", headers=auth(token)).status_code == 204
    assert error_of(client.get(f"/v1/matches/{mid}", headers=auth(token)), 404)["type"] == "no_match"


def test_the_seed_chosen_by_the_server_is_never_shown(client):
    r = client.post("/v1/matches", json={"preset": "seven_up", "seats": ["human", "heuristic"]})
    assert r.status_code == 201 and "seed" not in r.text
    view = client.get(f"/v1/matches/{r.json()['match_id']}", headers=auth(r.json()["tokens"][0]["token"]))
    assert "seed" not in view.text


# ---------------------------------------------------------------------- refusals
def test_illegal_moves_are_refused_with_the_legal_ones_and_the_reason(client, app):
    """Traditional text: 'If a trump is led, you must play a trump if you have one. If a non-trump suit is led,
    you must either play a card of that suit or play a trump.'"""
    seen = set()
    for seed in range(40):
        made = create(client, "traditional", {"players": 2}, ["human", "human"], seed)
        mid, tokens = made["match_id"], {t["seat"]: t["token"] for t in made["tokens"]}
        rng = random.Random(seed)
        while True:
            body = client.get(f"/v1/matches/{mid}", headers=auth(tokens[0])).json()
            v = body["view"]
            if v["done"] or v["hand_no"] > 0:
                break
            seat = v["to_move"]
            mine = client.get(f"/v1/matches/{mid}", headers=auth(tokens[seat])).json()["view"]
            wrong = [c for c in mine["hand"] if c not in mine["legal_actions"]]
            if wrong and mine["current_trick"]["plays"]:
                led = mine["current_trick"]["plays"][0]["card"][1]
                kind = "trump" if led == mine["trump"] else "suit"
                r = client.post(f"/v1/matches/{mid}/moves", json={"action": wrong[0]}, headers=auth(tokens[seat]))
                err = error_of(r, 422)
                assert err["type"] == "illegal_move" and err["legal_actions"] == mine["legal_actions"]
                assert str(mine["legal_actions"]) in err["message"]
                assert ("follow with a trump" if kind == "trump" else "follow suit or trump") in err["message"]
                seen.add(kind)
            r = client.post(f"/v1/matches/{mid}/moves", json={"action": rng.choice(mine["legal_actions"])},
                            headers=auth(tokens[seat]))
            assert r.status_code == 200
        if seen == {"trump", "suit"}:
            break
    assert seen == {"trump", "suit"}


def test_other_refusals(client):
    made = create(client, "seven_up", {}, ["human", "human"], 5)
    mid, tokens = made["match_id"], {t["seat"]: t["token"] for t in made["tokens"]}
    to_move = made["to_move"]
    me, them = auth(tokens[to_move]), auth(tokens[1 - to_move])
    held = client.get(f"/v1/matches/{mid}", headers=me).json()["view"]["hand"]
    err = error_of(client.post(f"/v1/matches/{mid}/moves", json={"action": "STAND"}, headers=them), 409)
    assert err["type"] == "not_your_turn"
    err = error_of(client.post(f"/v1/matches/{mid}/moves", json={"action": held[0]}, headers=me), 422)
    assert err["type"] == "illegal_move" and "STAND (the turn-up's suit is trump) or BEG" in err["message"]
    assert err["legal_actions"] == ["STAND", "BEG"]
    err = error_of(client.post(f"/v1/matches/{mid}/moves", json={"action": "XX"}, headers=me), 422)
    assert err["type"] in ("invalid_move", "invalid_request") and "'XX'" in err["message"]  # one clear line
    err = error_of(client.post(f"/v1/matches/{mid}/moves", json={"action": "STAND", "expect_seq": 0}, headers=me), 409)
    assert err["type"] == "stale"
    assert client.post(f"/v1/matches/{mid}/moves", json={"action": "STAND"}, headers=me).status_code == 200
    v = client.get(f"/v1/matches/{mid}", headers=me).json()["view"]
    absent = next(c for c in ALL_CODES if c not in v["hand"])
    err = error_of(client.post(f"/v1/matches/{mid}/moves", json={"action": absent}, headers=me), 422)
    assert f"does not hold {absent}" in err["message"]
    err = error_of(client.post(f"/v1/matches/{mid}/moves", json={"action": "BEG"}, headers=me), 422)
    assert "time to play a card" in err["message"]


def test_a_finished_match_takes_no_more_moves(client, app):
    made, _, view = play_match(client, app, "seven_up", {"target": 1}, ["human", "random"], 2)
    r = client.post(f"/v1/matches/{made['match_id']}/moves", json={"action": "STAND"},
                    headers=auth(made["tokens"][0]["token"]))
    assert view["done"] and error_of(r, 409)["type"] == "match_over"


@pytest.mark.parametrize("body,fragment", [
    ({"preset": "seven_up", "seats": ["human", "heuristic", "random"]}, "needs 2 seats, got 3"),
    ({"preset": "yorkshire", "seats": ["heuristic"] * 4}, "at least one seat must be 'human'"),
    ({"preset": "traditional", "options": {"players": 5}, "seats": ["human"] * 4}, "allows players in"),
    ({"preset": "seven_up", "options": {"colour": 1}, "seats": ["human", "heuristic"]}, "unknown option"),
    ({"preset": "seven_up", "seats": ["human", "search:worlds=9999"]}, "not on offer"),
    ({"preset": "seven_up", "seats": ["human", "../../x.pt"]}, "not on offer"),
    ({"preset": "seven_up", "seats": ["human", "heuristic"], "seed": "1"}, "seed"),
    ({"preset": "seven_up", "seats": ["human", "heuristic"], "extra": 1}, "extra"),
    ({"preset": "chess", "seats": ["human", "heuristic"]}, "preset"),
])
def test_bad_matches_are_refused(client, body, fragment):
    err = error_of(client.post("/v1/matches", json=body), 422)
    assert fragment in err["message"], err


def test_a_trained_bot_for_other_rules_is_refused(tmp_path):
    class Trained:
        preset = "yorkshire"

        def __call__(self, state, seat):
            return state.legal_actions()[0]

    pool = BotPool(["heuristic", "bot:x"], make=lambda spec, preset, seed, players: Trained())
    with TestClient(create_app(pool=pool, limits=NO_LIMITS), base_url="http://127.0.0.1") as c:
        err = error_of(c.post("/v1/matches", json={"preset": "seven_up", "seats": ["human", "bot:x"]}), 422)
    assert err["type"] == "bot_unavailable" and "trained for preset 'yorkshire'" in err["message"]


# ---------------------------------------------------------------------- limits (an injected clock, no sleeping)
def limited(**limits) -> tuple[TestClient, MatchStore, FakeClock]:
    clock = FakeClock()
    store = MatchStore(BotPool(BOTS), Limits(**{"client_rate": 0, "token_rate": 0, **limits}), clock=clock)
    return TestClient(create_app(pool=store.pool, matches=store), base_url="http://127.0.0.1"), store, clock


def test_idle_matches_expire():
    c, store, clock = limited(idle_seconds=60)
    made = create(c, "seven_up", {}, ["human", "heuristic"])
    url, h = f"/v1/matches/{made['match_id']}", auth(made["tokens"][0]["token"])
    for _ in range(3):  # every request keeps it alive
        clock.now += 59
        assert c.get(url, headers=h).status_code == 200
    clock.now += 61
    err = error_of(c.get(url, headers=h), 404)
    assert "expired after 60 s idle" in err["message"] and len(store) == 0


def test_matches_per_server():
    c, store, clock = limited(max_matches=2, idle_seconds=60)
    a = create(c, "seven_up", {}, ["human", "heuristic"])
    create(c, "seven_up", {}, ["human", "heuristic"])
    err = error_of(c.post("/v1/matches", json={"preset": "seven_up", "seats": ["human", "heuristic"]}), 429)
    assert err["type"] == "server_full"
    assert c.delete(f"/v1/matches/{a['match_id']}", headers=auth(a["tokens"][0]["token"])).status_code == 204
    create(c, "seven_up", {}, ["human", "heuristic"])
    clock.now += 61  # idle matches make room
    create(c, "seven_up", {}, ["human", "heuristic"])
    assert len(store) == 1


def finish(c, made) -> None:
    """Play a hosted match (one human seat) to its end with the first legal move."""
    url, h = f"/v1/matches/{made['match_id']}", auth(made["tokens"][0]["token"])
    view = c.get(url, headers=h).json()["view"]
    while not view["done"]:
        r = c.post(f"{url}/moves", json={"action": view["legal_actions"][0]}, headers=h)
        assert r.status_code == 200, r.text
        view = r.json()["view"]


def test_live_matches_per_client():
    c, store, clock = limited(max_matches_per_client=2, idle_seconds=60)
    other = TestClient(c.app, client=("203.0.113.9", 4000), base_url="http://127.0.0.1")  # another address
    quick = {"preset": "seven_up", "options": {"target": 1}, "seats": ["human", "heuristic"], "seed": 3}
    a, b = create(c, **quick), create(c, **quick)
    assert not a["done"] and not b["done"]
    r = c.post("/v1/matches", json={"preset": "seven_up", "seats": ["human", "heuristic"]})
    err = error_of(r, 429)
    assert err["type"] == "too_many_matches" and "(2)" in err["message"] and "2 live matches" in err["message"]
    assert other.post("/v1/matches", json={"preset": "seven_up", "seats": ["human", "heuristic"]}).status_code == 201
    finish(c, a)  # a finished match no longer counts against its creator ...
    b2 = create(c, **quick)
    assert error_of(c.post("/v1/matches", json=quick), 429)["type"] == "too_many_matches"
    assert c.delete(f"/v1/matches/{b2['match_id']}", headers=auth(b2["tokens"][0]["token"])).status_code == 204
    create(c, **quick)  # ... nor does a deleted one
    clock.now += 61  # nor expired ones
    assert len([create(c, **quick) for _ in range(2)]) == 2 and len(store) == 2


def test_a_full_server_drops_a_finished_match_else_the_longest_without_a_move():
    c, store, clock = limited(max_matches=3, evict_after_seconds=600, idle_seconds=1800)
    quick = {"preset": "seven_up", "options": {"target": 1}, "seats": ["human", "heuristic"], "seed": 3}
    made = {}
    for name in "abc":
        made[name] = create(c, **quick)
        clock.now += 10
    created = {"a": 1000.0, "b": 1010.0, "c": 1020.0}

    def alive(name) -> bool:
        m = made[name]
        r = c.get(f"/v1/matches/{m['match_id']}", headers=auth(m["tokens"][0]["token"]))
        assert r.status_code in (200, 404), r.text
        return r.status_code == 200

    # Full, and every match has moved (or was created) within 600 s: refused, with when to come back.
    r = c.post("/v1/matches", json=quick)
    err = error_of(r, 429)
    assert err["type"] == "server_full" and "3 matches" in err["message"] and "600 s" in err["message"]
    assert int(r.headers["Retry-After"]) == created["a"] + 600 - clock.now
    # A move keeps a match in play; a request without one does not.
    clock.now = 1100
    a = made["a"]
    view = c.get(f"/v1/matches/{a['match_id']}", headers=auth(a["tokens"][0]["token"])).json()["view"]
    r = c.post(f"/v1/matches/{a['match_id']}/moves", json={"action": view["legal_actions"][0]},
               headers=auth(a["tokens"][0]["token"]))
    assert r.status_code == 200 and not r.json()["view"]["done"]
    clock.now = created["b"] + 600 - 10
    assert alive("c")  # c is read, not moved
    clock.now = created["b"] + 600
    made["d"] = create(c, **quick)  # b has had no move for 600 s, the longest of the three: it goes
    assert [alive(n) for n in "abcd"] == [True, False, True, True]
    clock.now = created["c"] + 600
    made["e"] = create(c, **quick)  # then c, though read 10 s ago
    assert [alive(n) for n in "acde"] == [True, False, True, True]
    # A finished match goes before any other, even one stalled for longer.
    clock.now = 1000 + 1700  # d and e have had no move for over 600 s, a had one at 1100 ...
    finish(c, made["a"])  # ... and now finishes
    made["f"] = create(c, **quick)
    assert [alive(n) for n in "adef"] == [False, True, True, True] and len(store) == 3


def test_request_rate_per_client_and_per_token():
    c, store, clock = limited(client_rate=1, client_burst=3)
    made = create(c, "seven_up", {}, ["human", "heuristic"])
    url, h = f"/v1/matches/{made['match_id']}", auth(made["tokens"][0]["token"])
    assert [c.get(url, headers=h).status_code for _ in range(3)] == [200, 200, 429]
    r = c.get(url, headers=h)
    assert error_of(r, 429)["type"] == "rate_limited" and int(r.headers["Retry-After"]) >= 1
    clock.now += 1
    assert c.get(url, headers=h).status_code == 200

    c, store, clock = limited(token_rate=1, token_burst=2)
    made = create(c, "traditional", {"players": 2}, ["human", "human"])
    url = f"/v1/matches/{made['match_id']}"
    a, b = (auth(t["token"]) for t in made["tokens"])
    assert [c.get(url, headers=a).status_code for _ in range(3)] == [200, 200, 429]
    assert "this token" in c.get(url, headers=a).json()["error"]["message"]
    assert c.get(url, headers=b).status_code == 200  # the other seat's token has its own allowance
    clock.now += 1
    assert c.get(url, headers=a).status_code == 200


def test_body_size_limit(client):
    body = {"preset": "seven_up", "seats": ["human", "heuristic"], "options": {"x" * 70_000: 1}}
    assert error_of(client.post("/v1/matches", json=body), 413)["type"] == "too_large"


# ---------------------------------------------------------------------- the page and the API description
def test_the_page_and_its_files_are_served(client):
    r = client.get("/play")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert "default-src 'self'" in r.headers["content-security-policy"]
    for name in ("play.js", "play.css"):
        assert f"/static/{name}" in r.text
        assert client.get(f"/static/{name}").status_code == 200
    assert "http" not in r.text.replace("http-equiv", "")  # nothing from another host
    for path in ("/static/../app.py", "/static/nothing.js"):
        assert client.get(path).status_code == 404


def test_openapi_describes_the_hosted_routes(client):
    spec = client.get("/openapi.json").json()
    assert {"/v1/matches", "/v1/matches/{match_id}", "/v1/matches/{match_id}/moves"} <= set(spec["paths"])
    moves = spec["paths"]["/v1/matches/{match_id}/moves"]["post"]
    assert {"200", "403", "404", "409", "422", "429"} <= set(moves["responses"])
    assert {"CreateMatchRequest", "MoveRequest", "MatchResponse"} <= set(spec["components"]["schemas"])


def agrees(doc, got) -> bool:
    """``got`` is what the doc shows; a dict with a ``"..."`` key shows only some of its keys."""
    if isinstance(doc, dict):
        keys = set(doc) - {"..."}
        return isinstance(got, dict) and (keys <= set(got) if "..." in doc else keys == set(got)) and all(
            agrees(doc[k], got[k]) for k in keys)
    if isinstance(doc, list):
        return isinstance(got, list) and len(doc) == len(got) and all(agrees(a, b) for a, b in zip(doc, got))
    return doc == got


def test_the_documented_session():
    assert len(DOC_STEPS) >= 5
    ids = {}
    with TestClient(create_app(["heuristic", "random", "search", "bot:seven_up"]), base_url="http://127.0.0.1") as c:
        for request, status, answer in DOC_STEPS:
            head, _, body = request.partition("\n\n")
            lines = head.split("\n")
            method, path = lines[0].split(" ", 1)
            headers = {"Authorization": f"Bearer {ids['<token>']}"} if len(lines) > 1 else {}
            r = c.request(method, path.replace("<match_id>", ids.get("<match_id>", "")), headers=headers,
                          json=json.loads(body) if body else None)
            assert r.status_code == int(status), (request, r.text)
            if answer:
                got = r.json()
                if "tokens" in got:
                    ids = {"<match_id>": got["match_id"], "<token>": got["tokens"][0]["token"],
                           "<code>": got["joins"][0]["code"]}
                text = r.text
                for placeholder, real in ids.items():
                    text = text.replace(real, placeholder)
                assert agrees(json.loads(answer), json.loads(text)), (request, text)


# ---------------------------------------------------------------------- fuzzing: never a 5xx
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2 ** 70, 2 ** 70) | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda c: st.lists(c, max_size=5) | st.dictionaries(st.text(max_size=8), c, max_size=4), max_leaves=12)
seat_values = st.sampled_from(["human", "heuristic", "random", "search", "bot:none", ""]) | st.text(max_size=6)
create_bodies = st.fixed_dictionaries(
    {"preset": st.sampled_from(["yorkshire", "traditional", "seven_up", "x"])},
    optional={"options": st.dictionaries(st.sampled_from(["players", "target", "throw_in", "episode",
                                                          "must_follow_suit", "reward", "zzz"]),
                                         st.integers(-3, 30) | st.booleans() | st.text(max_size=6), max_size=3),
              "seats": st.lists(seat_values, max_size=5), "seed": st.integers(-5, 2 ** 64) | json_values})


def post_raw(client, url, body, headers=None):
    return client.post(url, content=json.dumps(body).encode(), headers={"content-type": "application/json",
                                                                         **(headers or {})})


@FUZZ
@given(body=json_values | create_bodies)
def test_fuzz_create_is_never_a_5xx(client, body):
    r = post_raw(client, "/v1/matches", body)
    assert r.status_code in (201, 400, 422), r.text
    if r.status_code == 201:
        made = r.json()
        assert client.delete(f"/v1/matches/{made['match_id']}",
                             headers=auth(made["tokens"][0]["token"])).status_code == 204


@pytest.fixture(scope="module")
def fuzz_match(client):
    made = create(client, "traditional", {"players": 4}, ["human", "human", "human", "human"], 9)
    return made["match_id"], {t["seat"]: t["token"] for t in made["tokens"]}


move_bodies = st.fixed_dictionaries(
    {"action": st.sampled_from(ALL_CODES + ["STAND", "BEG", "GIVE_ONE", "RUN_PACK", "THROW_IN", "stand", "ts"])
     | json_values},
    optional={"since": json_values | st.integers(-2, 10), "expect_seq": json_values | st.integers(-2, 10)})


@FUZZ
@given(body=json_values | move_bodies, seat=st.integers(0, 3), match=st.sampled_from(["real", "other", ""]),
       since=st.none() | st.text(max_size=5) | st.integers(-3, 2 ** 64))
def test_fuzz_moves_and_views_are_never_a_5xx(client, fuzz_match, body, seat, match, since):
    mid, tokens = fuzz_match
    url = f"/v1/matches/{mid if match == 'real' else match or '%00'}"
    r = post_raw(client, url + "/moves", body, auth(tokens[seat]))
    assert r.status_code in (200, 400, 403, 404, 409, 422), r.text
    params = {} if since is None else {"since": since}
    r = client.get(url, params=params, headers=auth(tokens[seat]))
    assert r.status_code in (200, 404, 422), r.text
    if r.status_code == 200:
        assert r.json()["seat"] == seat
