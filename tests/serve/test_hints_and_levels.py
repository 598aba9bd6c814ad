"""Levels of the network bots on offer (GET /v1/bots, a hosted seat, POST /v1/act) and hints for the seat to move
(GET /v1/matches/{id}/hint): docs/protocol.md, "Levels" and "Hints"."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from allfours.agents.registry import make_agent
from allfours.agents.spec.levels import TOP, WORDS
from allfours.serve.app import create_app
from allfours.serve.hosted import Limits
from allfours_env import GameState, make_rules, parse_action
from allfours_env.cards import NUM_ACTIONS

BOT = "bot:seven_up"


@pytest.fixture(scope="module")
def client():
    unlimited = Limits(client_rate=0, token_rate=0)  # a whole match of requests back to back
    with TestClient(create_app([BOT, "heuristic"], limits=unlimited), base_url="http://127.0.0.1") as c:
        c.get("/v1/bots")  # builds the bot once, outside the timed tests
        yield c


def auth(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def the_state(client, match_id: str) -> GameState:
    """The match as the server holds it, rebuilt from its seed and actions (the server's own record)."""
    record = client.app.state.matches.record(match_id)
    options = {k: v for k, v in record["rules"].items() if k != "preset"}
    state = GameState.new(make_rules(record["preset"], **options), seed=record["seed"])
    for seat, action in record["actions"]:
        assert state.current == seat
        state.apply(parse_action(action))
    return state


def test_the_bots_list_the_levels_of_each_network_bot(client):
    cards = {b["name"]: b for b in client.get("/v1/bots").json()["bots"]}
    assert cards[BOT]["levels"] == [{"level": n, "word": w, "spec": f"{BOT}:level={n}"} for n, w in WORDS.items()]
    assert [x["word"] for x in cards[BOT]["levels"]] == ["Beginner", "Casual", "Club", "Strong", "Expert"]
    assert cards[BOT]["levels"][-1]["level"] == TOP
    assert cards["heuristic"]["levels"] == []  # only a network has levels
    described = client.get("/openapi.json").json()["components"]["schemas"]["BotCard"]["properties"]["levels"]
    assert "empty for the other bots" in described["description"]


def test_the_match_schema_offers_the_levels_of_the_bots_that_play_the_table(client):
    schema = client.get("/openapi.json").json()["components"]["schemas"]
    branches = {b["title"]: b["properties"]["seats"]["items"]["enum"] for b in schema["CreateMatchRequest"]["anyOf"]}
    levels = [f"{BOT}:level={n}" for n in WORDS]
    assert branches["seven_up, 2 players"] == ["human", BOT, "heuristic", *levels]
    assert not any(s.startswith(BOT) for s in branches["yorkshire, 4 players"])  # seven_up's bot plays no other table
    assert schema["ActRequest"]["properties"]["bot"]["anyOf"][0]["enum"] == [BOT, "heuristic", *levels]


def test_a_match_with_a_bot_at_a_level_plays_out_and_every_hint_is_the_shipped_bots_move(client):
    made = client.post("/v1/matches", json={"preset": "seven_up", "seats": ["human", f"{BOT}:level=2"], "seed": 11})
    assert made.status_code == 201, made.text
    match_id, token = made.json()["match_id"], made.json()["tokens"][0]["token"]
    assert made.json()["seats"][1]["player"] == f"{BOT}:level=2"
    shipped = make_agent(BOT, preset="seven_up", players=2)
    hints = 0
    view = client.get(f"/v1/matches/{match_id}", headers=auth(token)).json()
    assert view["hint_bot"] == BOT
    while not view["view"]["done"]:
        assert view["your_turn"]
        got = client.get(f"/v1/matches/{match_id}/hint", headers=auth(token))
        assert got.status_code == 200, got.text
        hint = got.json()
        legal = view["view"]["legal_actions"]
        assert hint["seat"] == 0 and hint["seq"] == view["seq"] and hint["bot"]["name"] == BOT
        assert hint["action"] in legal and hint["legal_actions"] == legal
        assert 0 < hint["probability"] <= 1 and hint["probability"] == hint["probabilities"][hint["action"]]
        state = the_state(client, match_id)
        assert parse_action(hint["action"]) == shipped(state, 0)  # the shipped bot's own move in that position
        # what POST /v1/act answers for the seat's view: the hint knows what the seat sees, nothing more
        asked = client.post("/v1/act", json={**view["view"], "bot": BOT}).json()
        assert (asked["action"], asked["probabilities"]) == (hint["action"], hint["probabilities"])
        hints += 1
        view = client.post(f"/v1/matches/{match_id}/moves", headers=auth(token),
                           json={"action": legal[-1], "since": view["seq"]}).json()
    record = client.app.state.matches.record(match_id)
    assert record["done"] and any(seat == 1 for seat, _ in record["actions"]) and hints > 10
    over = client.get(f"/v1/matches/{match_id}/hint", headers=auth(token)).json()["error"]
    assert (over["status"], over["type"]) == (409, "match_over")


def test_a_hint_is_only_for_the_seat_to_move_with_its_token(client):
    made = client.post("/v1/matches", json={"preset": "seven_up", "seats": ["human", "human"], "seed": 5}).json()
    match_id, tokens = made["match_id"], {t["seat"]: t["token"] for t in made["tokens"]}
    to_move = made["to_move"]
    waiting = client.get(f"/v1/matches/{match_id}/hint", headers=auth(tokens[1 - to_move])).json()["error"]
    assert (waiting["status"], waiting["type"]) == (409, "not_your_turn")
    assert waiting["message"] == (f"it is seat {to_move}'s turn, not seat {1 - to_move}'s: a hint is for the seat "
                                  "to move")
    for headers in ({}, auth("not-a-token"), auth(made["joins"][0]["code"])):
        refused = client.get(f"/v1/matches/{match_id}/hint", headers=headers)
        assert refused.status_code == 403 and refused.json()["error"]["type"] == "forbidden"
    assert client.get(f"/v1/matches/{match_id}/hint", headers=auth(tokens[to_move])).status_code == 200
    assert client.get("/v1/matches/nosuchmatch/hint", headers=auth(tokens[to_move])).status_code == 404


def test_a_table_without_its_shipped_bot_on_offer_has_no_hints(client):
    made = client.post("/v1/matches", json={"preset": "traditional", "options": {"players": 2},
                                            "seats": ["human", "heuristic"], "seed": 2}).json()
    token = made["tokens"][0]["token"]
    assert client.get(f"/v1/matches/{made['match_id']}", headers=auth(token)).json()["hint_bot"] is None
    refused = client.get(f"/v1/matches/{made['match_id']}/hint", headers=auth(token)).json()["error"]
    assert refused == {"status": 409, "type": "no_hint_bot", "message": "no hints at this table: no shipped bot plays "
                       "traditional with 2 players on this server (GET /v1/bots)"}


def test_pitch_in_partnerships_hints_with_bot_pitch_partners_where_bot_pitch_4p_learnt_each_for_themselves():
    unlimited = Limits(client_rate=0, token_rate=0)
    with TestClient(create_app(["bot:pitch_4p", "heuristic"], limits=unlimited), base_url="http://127.0.0.1") as c:
        for options, hint in [({"players": 4}, "bot:pitch_4p"), ({"players": 4, "partnerships": True}, None)]:
            made = c.post("/v1/matches", json={"preset": "pitch", "options": options, "seed": 3,
                                               "seats": ["human", "heuristic", "heuristic", "heuristic"]}).json()
            token = made["tokens"][0]["token"]
            assert c.get(f"/v1/matches/{made['match_id']}", headers=auth(token)).json()["hint_bot"] == hint, options
        # a server that does not offer bot:pitch_partners has no hint at the partnership table
        refused = c.get(f"/v1/matches/{made['match_id']}/hint", headers=auth(token)).json()["error"]
        assert refused == {"status": 409, "type": "no_hint_bot", "message": "no hints at this table: no shipped bot "
                           "plays pitch with 4 players in partnerships on this server (GET /v1/bots)"}
    offered = ["bot:pitch_partners", "heuristic"]
    with TestClient(create_app(offered, limits=unlimited), base_url="http://127.0.0.1") as c:
        made = c.post("/v1/matches", json={"preset": "pitch", "options": {"players": 4, "partnerships": True},
                                           "seed": 3, "seats": ["human", "heuristic", "heuristic", "heuristic"]}).json()
        token = made["tokens"][0]["token"]
        view = c.get(f"/v1/matches/{made['match_id']}", headers=auth(token)).json()
        assert view["hint_bot"] == "bot:pitch_partners" and view["your_turn"]
        hint = c.get(f"/v1/matches/{made['match_id']}/hint", headers=auth(token)).json()
        assert hint["bot"]["name"] == "bot:pitch_partners" and hint["action"] in view["view"]["legal_actions"]


@pytest.mark.parametrize("seat, message", [
    (f"{BOT}:level=9", f"bot '{BOT}:level=9' is not on offer here: option level of '{BOT}' must be a level from 1 to "
                       "5 (1 Beginner, 2 Casual, 3 Club, 4 Strong, 5 Expert), got 9"),
    (f"{BOT}:level=two", f"bot '{BOT}:level=two' is not on offer here: option level of '{BOT}' must be a level from "
                         "1 to 5 (1 Beginner, 2 Casual, 3 Club, 4 Strong, 5 Expert), got 'two'"),
    ("bot:traditional_2p:level=2", "bot 'bot:traditional_2p:level=2' is not on offer here: a level is of a network "
                                   f"bot on offer, {BOT} (GET /v1/bots)"),
    ("heuristic:level=2", "bot 'heuristic:level=2' is not on offer here: unknown parameter 'level' for agent "
                          "'heuristic': valid are seed")])
def test_a_bad_level_or_a_level_of_a_bot_not_on_offer_is_one_line(client, seat, message):
    preset = {"preset": "traditional", "options": {"players": 2}} if "traditional" in seat else {"preset": "seven_up"}
    refused = client.post("/v1/matches", json={**preset, "seats": ["human", seat]})
    assert refused.status_code == 422
    assert refused.json()["error"] == {"status": 422, "type": "unknown_bot", "message": message}
    view = {"preset": "seven_up", "seat": 1, "dealer": 0, "hand": ["2C", "5C", "TD", "JH", "3S", "AS"],
            "turnups": ["9H"]}
    if "traditional" not in seat:
        assert client.post("/v1/act", json={**view, "bot": seat}).json()["error"]["message"] == message


def test_the_bot_api_plays_a_level(client):
    view = {"preset": "seven_up", "seat": 1, "dealer": 0, "hand": ["2C", "5C", "TD", "JH", "3S", "AS"],
            "turnups": ["9H"]}
    answers = {n: client.post("/v1/act", json={**view, "bot": f"{BOT}:level={n}", "seed": 4}).json() for n in WORDS}
    for n, got in answers.items():
        assert got["bot"]["name"] == f"{BOT}:level={n}" and got["action"] in ("STAND", "BEG")
        # the probabilities are the network's at every level: a level changes the move played, not the policy
        assert got["probabilities"] == answers[TOP]["probabilities"]
    full = client.post("/v1/act", json={**view, "bot": BOT, "seed": 4}).json()
    assert full["action"] == answers[TOP]["action"] and len(full["probabilities"]) < NUM_ACTIONS
