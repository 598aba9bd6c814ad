"""The HTTP bot server: every endpoint, every preset, and bad input of every kind (never a 5xx)."""

from __future__ import annotations

import copy
import json
import os
import random
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from allfours.agents.network.checkpoint import checkpoints_dir
from allfours_env import GameState, action_name, card_code, seat_view
from allfours_env.replay import REQUEST_KEYS, state_from_request

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from allfours.serve.app import create_app
from allfours.serve.core import BotPool
from allfours.serve.models import ACTION_PATTERN, ActRequest

REPO_CHECKPOINTS = checkpoints_dir()
CASES = [("yorkshire", {}), ("traditional", {}), ("traditional", {"players": 2}), ("traditional", {"players": 3}),
         ("seven_up", {})]
# ALLFOURS_FUZZ_EXAMPLES=5000 for a longer campaign than the default run.
FUZZ = settings(max_examples=int(os.environ.get("ALLFOURS_FUZZ_EXAMPLES", 120)), deadline=None,
                suppress_health_check=list(HealthCheck))


def views(preset, options, seed, every=0.25):
    rng = random.Random(seed)
    s = GameState.new(preset, seed=seed, **options)
    out = []
    while not s.done and s.hand_no < 2:
        if rng.random() < every:
            out.append(seat_view(s, s.current))
        s.apply(rng.choice(s.legal_actions()))
    return out


VIEWS = [v for preset, options in CASES for seed in range(3) for v in views(preset, options, seed)]


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app(["heuristic", "random", "search:worlds=2"]), base_url="http://127.0.0.1") as c:
        yield c


def post(client, body):
    """POST any body as JSON (Infinity and NaN included, as Python writes them)."""
    return client.post("/v1/act", content=json.dumps(body).encode(), headers={"content-type": "application/json"})


def error_of(r, status=422):
    assert r.status_code == status, r.text
    body = r.json()
    assert set(body["error"]) == {"status", "type", "message"} and body["error"]["status"] == status
    return body["error"]


# ---------------------------------------------------------------------- endpoints
def test_health(client):
    r = client.get("/v1/health")
    assert r.status_code == 200
    body = r.json()
    assert body["status"] == "ok" and body["encoding_version"] >= 1
    assert body["bots"] == ["heuristic", "random", "search:worlds=2"]


def test_bots_have_model_cards(client):
    body = client.get("/v1/bots").json()
    assert body["default"] == "heuristic"
    cards = {b["name"]: b for b in body["bots"]}
    assert set(cards) == {"heuristic", "random", "search:worlds=2"}
    for b in cards.values():
        assert b["version"] and b["description"]
        assert b["presets"] == ["yorkshire", "traditional", "seven_up", "pitch", "setback"]  # rules.md section 8
    assert cards["random"]["has_policy"] and not cards["heuristic"]["has_policy"]
    assert cards["search:worlds=2"]["kind"] == "search" and cards["heuristic"]["kind"] == "scripted"


def test_openapi_describes_the_api(client):
    spec = client.get("/openapi.json").json()
    assert {"/v1/act", "/v1/health", "/v1/bots"} <= set(spec["paths"])
    act = spec["paths"]["/v1/act"]["post"]
    assert "ActRequest" in json.dumps(act["requestBody"]) and {"200", "400", "413", "422"} <= set(act["responses"])
    assert "ActRequest" in spec["components"]["schemas"]


def _walk(x):
    yield x
    for y in (x.values() if isinstance(x, dict) else x if isinstance(x, list) else ()):
        yield from _walk(y)


def test_openapi_says_what_the_server_takes(client):
    """The description's enums, bounds and examples are the server's: what it admits is taken (or refused only
    by the game), what it refuses is refused."""
    spec = client.get("/openapi.json").json()
    schemas, paths = spec["components"]["schemas"], spec["paths"]
    act = schemas["ActRequest"]["properties"]
    assert {"type": "string", "enum": ["heuristic", "random", "search:worlds=2"]} in act["bot"]["anyOf"]
    assert {"type": "string", "enum": ["stand_or_beg", "give_or_run", "play", "over", "bid"]} in act["phase"]["anyOf"]
    assert act["preset"]["enum"] == ["yorkshire", "traditional", "seven_up", "pitch", "setback"]
    for node in _walk(spec):  # an integer's bounds are integers (FastAPI writes 3.0, which invites a 3.0)
        if isinstance(node, dict) and node.get("type") == "integer":
            assert all(isinstance(node[k], int) for k in ("minimum", "maximum") if k in node), node
    # the examples in the description are answered
    for example in schemas["ActRequest"]["examples"]:
        assert client.post("/v1/act", json=example).status_code == 200
    for example in schemas["CreateMatchRequest"]["examples"]:
        r = client.post("/v1/matches", json=example)
        assert r.status_code == 201, r.text
    # every route documents the errors it can answer
    statuses = {(p, m): set(op["responses"]) for p, ops in paths.items() for m, op in ops.items()}
    assert {"200", "400", "413", "422"} <= statuses[("/v1/act", "post")]
    assert {"201", "400", "413", "422", "429"} <= statuses[("/v1/matches", "post")]
    moves = statuses[("/v1/matches/{match_id}/moves", "post")]
    assert {"200", "400", "403", "404", "409", "413", "422", "429"} <= moves
    assert {"204", "403", "404", "422", "429"} <= statuses[("/v1/matches/{match_id}", "delete")]
    assert error_of(client.post("/v1/matches", content=b"\x00", headers={"content-type": "application/json"}),
                    400)["type"] == "invalid_json"


def test_openapi_links_lead_from_a_new_match_to_its_routes(client):
    spec = client.get("/openapi.json").json()
    links = spec["paths"]["/v1/matches"]["post"]["responses"]["201"]["links"]
    ops = {op["operationId"]: (path, method) for path, item in spec["paths"].items() for method, op in item.items()}
    assert {ops[link["operationId"]] for link in links.values()} == {
        ("/v1/matches/{match_id}", "get"), ("/v1/matches/{match_id}", "delete"),
        ("/v1/matches/{match_id}/moves", "post"), ("/v1/matches/{match_id}/join", "post"),
        ("/v1/matches/{match_id}/hint", "get")}
    made = client.post("/v1/matches", json={"preset": "seven_up", "seats": ["human", "random"], "seed": 3}).json()
    for name, link in links.items():  # evaluate the runtime expressions by hand: they name real fields
        params = link["parameters"]
        assert params["path.match_id"] == "$response.body#/match_id"
        if name == "JoinMatch":
            assert link["requestBody"] == {"code": "$response.body#/joins/0/code"} and made["joins"][0]["seat"] == 0
        else:
            assert params["header.authorization"] == "Bearer {$response.body#/tokens/0/token}"
    # From a join, the new token leads to the seat's view and moves.
    join = spec["paths"]["/v1/matches/{match_id}/join"]["post"]["responses"]["200"]["links"]
    assert {ops[link["operationId"]] for link in join.values()} == {
        ("/v1/matches/{match_id}", "get"), ("/v1/matches/{match_id}/moves", "post")}
    assert {link["parameters"]["header.authorization"] for link in join.values()} == {"Bearer {$response.body#/token}"}
    joined = client.post(f"/v1/matches/{made['match_id']}/join", json={"code": made["joins"][0]["code"]}).json()
    r = client.get(f"/v1/matches/{made['match_id']}", headers={"authorization": f"Bearer {joined['token']}"})
    assert r.status_code == 200 and r.json()["seat"] == 0


def test_hosted_match_fields_take_their_whole_schema_range(client):
    made = client.post("/v1/matches", json={"preset": "seven_up", "seats": ["human", "random"], "seed": 2 ** 53 - 1})
    assert made.status_code == 201, made.text
    made = made.json()
    url, h = f"/v1/matches/{made['match_id']}", {"authorization": f"Bearer {made['tokens'][0]['token']}"}
    err = error_of(client.post(url + "/moves", json={"action": "STAND", "expect_seq": 2 ** 53 - 1}, headers=h), 409)
    assert err["type"] == "stale"
    err = error_of(client.post(url + "/moves", json={"action": "STAND", "expect_seq": 2 ** 53}, headers=h))
    assert err["type"] == "invalid_request" and "expect_seq" in err["message"]
    assert client.get(url, params={"since": 2 ** 53 - 1}, headers=h).status_code == 200
    assert error_of(client.get(url, params={"since": 2 ** 53}, headers=h))["type"] == "invalid_request"
    err = error_of(client.post(url + "/moves", json={"action": "STAND!"}, headers=h))
    assert "'STAND!' is not a move" in err["message"] and "pattern" not in err["message"]
    for seats in (["", ""], ["random", "random"]):  # the schema says so too: an enum and 'contains human'
        err = error_of(client.post("/v1/matches", json={"preset": "seven_up", "seats": seats}))
        assert "at least one seat must be 'human'" in err["message"]


@pytest.mark.parametrize("preset,options,words", [
    ("yorkshire", {}, ["THROW_IN"]),
    ("yorkshire", {"throw_in": False}, []),
    ("seven_up", {}, ["STAND", "BEG", "GIVE_ONE", "RUN_PACK"]),
    ("pitch", {}, ["PASS", "BID_2", "BID_3", "BID_4"]),
    ("pitch", {"min_bid": 1, "smudge": True}, ["PASS", "BID_1", "BID_2", "BID_3", "BID_4", "SMUDGE"]),
    ("setback", {}, ["PASS", "BID_2", "BID_3", "BID_4"]),
])
def test_not_a_move_names_the_words_of_the_game_played(client, preset, options, words):
    """Issue 51: the message listed All Fours' words in Pitch and Setback too. Now the words of the match's own
    game: its trump decisions only where there are turn-ups, the throw-in where it is played, the auction's
    calls (from its lowest bid, the smudge where it is played) only in the auction presets."""
    players = 2 if preset == "seven_up" else 4
    made = client.post("/v1/matches", json={"preset": preset, "options": options, "seed": 3,
                                            "seats": ["human"] + ["random"] * (players - 1)})
    assert made.status_code == 201, made.text
    made = made.json()
    url, h = f"/v1/matches/{made['match_id']}/moves", {"authorization": f"Bearer {made['tokens'][0]['token']}"}
    err = error_of(client.post(url, json={"action": "STAND!"}, headers=h))
    assert err["type"] == "invalid_request"
    tail = f", or {', '.join(words)}" if words else ""
    assert err["message"] == f"action: 'STAND!' is not a move in {preset}: a card code such as 'TH'{tail}"
    assert client.post(url, json={"action": "STAND!"}).status_code == 403  # the match's game only for its seats
    if preset in ("pitch", "setback"):  # a word of another game is a move the engine refuses, with its reason
        r = client.post(url, json={"action": "stand"}, headers=h)
        assert r.status_code == 422 and r.json()["error"]["type"] == "illegal_move", r.text


def test_the_schema_still_states_the_pattern_of_a_move(client):
    action = client.get("/openapi.json").json()["components"]["schemas"]["MoveRequest"]["properties"]["action"]
    assert action["pattern"] == ACTION_PATTERN and action["maxLength"] == 16


def test_hosted_options_may_name_their_preset(client):
    """seat_view's options carry 'preset': the same preset is fine, another is refused in one clear line."""
    r = client.post("/v1/matches", json={"preset": "seven_up", "options": {"preset": "seven_up", "target": 3},
                                         "seats": ["human", "random"]})
    assert r.status_code == 201 and r.json()["rules"]["target"] == 3
    err = error_of(client.post("/v1/matches", json={"preset": "seven_up", "options": {"preset": "yorkshire"},
                                                    "seats": ["human", "random"]}))
    assert err["message"] == "body: options.preset 'yorkshire' differs from preset 'seven_up'"
    err = error_of(client.post("/v1/matches", json={"preset": "seven_up", "options": {"preset": 1},
                                                    "seats": ["human", "random"]}))
    assert "differs from preset" in err["message"] and "make_rules" not in err["message"]


def test_whole_numbers_and_nulls_as_json_schema_reads_them(client):
    v = VIEWS[3]
    want = client.post("/v1/act", json={**v, "bot": "random", "seed": 5}).json()
    same = {**v, "bot": "random", "seed": 5.0, "seat": float(v["seat"]), "dealer": float(v["dealer"]),
            "scores": [float(x) for x in v["scores"]], "target": None, "players": None, "phase": None}
    assert client.post("/v1/act", json=same).json() == want
    err = error_of(client.post("/v1/act", json={**v, "seat": v["seat"] + 0.5}))
    assert err["type"] == "invalid_request" and "seat" in err["message"]
    assert error_of(client.post("/v1/act", json={**v, "phase": ""}))["type"] == "invalid_request"
    assert error_of(client.post("/v1/act", json={**v, "trump": ""}))["type"] == "invalid_request"
    assert error_of(client.post("/v1/act", json={**v, "bot": ""}))["type"] == "invalid_request"


def test_405_allows_every_method_of_the_path(client):
    for path, allowed in (("/v1/matches/abc", "DELETE, GET"), ("/v1/act", "POST"), ("/v1/matches", "POST")):
        r = client.options(path)
        err = error_of(r, 405)
        assert r.headers["allow"] == allowed and err["type"] == "method_not_allowed"
        assert err["message"] == f"OPTIONS is not allowed here: use {allowed.replace(', ', ' or ')}"


def test_a_content_length_that_is_not_a_number_gets_a_json_400():
    """uvicorn refuses it before the app (plain text, docs/protocol.md); another server may pass it on."""
    import asyncio

    app = create_app(["random"])
    sent = []

    async def receive():
        return {"type": "http.request", "body": b"{}", "more_body": False}

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http",
             "path": "/v1/matches", "raw_path": b"/v1/matches", "query_string": b"", "root_path": "",
             "headers": [(b"host", b"127.0.0.1"), (b"content-type", b"application/json"),
                         (b"content-length", b"-1")],
             "client": ("127.0.0.1", 1), "server": ("127.0.0.1", 80)}
    asyncio.run(app(scope, receive, send))
    assert sent[0]["status"] == 400 and (b"content-type", b"application/json") in sent[0]["headers"]
    body = json.loads(sent[1]["body"])
    assert body["error"] == {"status": 400, "type": "invalid_request",
                             "message": "the Content-Length header must be a number of bytes, got '-1'"}


def test_the_page_may_not_be_framed(client):
    csp = client.get("/play").headers["content-security-policy"]
    assert "frame-ancestors 'none'" in csp and "default-src 'self'" in csp


@pytest.mark.parametrize("preset,options", CASES)
def test_act_every_preset(client, preset, options):
    for v in views(preset, options, 7, every=0.5)[:6]:
        for bot in ("heuristic", "random"):
            r = client.post("/v1/act", json={**v, "bot": bot, "id": "q1"})
            assert r.status_code == 200, r.text
            a = r.json()
            assert a["action"] in v["legal_actions"] and a["legal_actions"] == v["legal_actions"]
            assert a["seat"] == v["seat"] and a["id"] == "q1" and a["bot"]["name"] == bot and a["bot"]["version"]
            if bot == "random":
                assert set(a["probabilities"]) == set(v["legal_actions"])
                assert abs(sum(a["probabilities"].values()) - 1) < 1e-9
            else:
                assert a["probabilities"] is None


def test_act_is_stateless_and_deterministic(client):
    v = VIEWS[5]
    answers = {json.dumps(client.post("/v1/act", json={**v, "bot": "random", "seed": 3}).json()) for _ in range(3)}
    assert len(answers) == 1
    assert client.post("/v1/act", json={**v, "bot": "random", "want_policy": False}).json()["probabilities"] is None


def test_act_with_search_late_in_a_hand(client):
    rng = random.Random(2)
    s = GameState.new("seven_up", seed=2)
    while s.phase != 2 or s.hands[s.current].bit_count() > 3:
        s.apply(rng.choice(s.legal_actions()))
    r = client.post("/v1/act", json={**seat_view(s, s.current), "bot": "search:worlds=2"})
    assert r.status_code == 200 and r.json()["action"] in [card_code(c) for c in s.legal_actions()]


def test_minimal_request(client):
    req = {"preset": "seven_up", "seat": 1, "dealer": 0, "hand": ["2C", "5C", "TD", "JH", "3S", "AS"],
           "turnups": ["9H"]}
    r = client.post("/v1/act", json=req)
    assert r.status_code == 200 and r.json()["action"] in ("STAND", "BEG")


# ---------------------------------------------------------------------- errors
def test_impossible_views_get_a_4xx_that_says_why(client):
    v = next(x for x in VIEWS if x["preset"] == "yorkshire" and len(x["tricks"]) >= 2)
    played = v["tricks"][0]["plays"][0]["card"]
    unseen = next(card_code(c) for c in range(52) if card_code(c) not in json.dumps(v))
    cases = [
        ({**v, "hand": v["hand"] + [unseen]}, "must hold"),  # one card too many
        ({**v, "hand": v["hand"][1:] + [played]}, "appears twice"),  # held and played
        ({**v, "seat": (v["seat"] + 1) % 4}, ""),  # someone else's view: its hand and plays do not fit
        ({**v, "scores": [11, 0]}, "target"),  # game over
        ({**v, "decisions": ["STAND"]}, "no trump decisions"),
    ]
    for body, fragment in cases:
        err = error_of(client.post("/v1/act", json=body))
        assert err["type"] == "invalid_view" and fragment in err["message"], err


def test_renege_in_history_is_refused(client):
    view = {"preset": "yorkshire", "seat": 3, "dealer": 3, "hand": ["5D", "6D", "7D", "8D", "9D"],
            "tricks": [{"plays": [{"seat": 0, "card": "AH"}, {"seat": 1, "card": "KH"}, {"seat": 2, "card": "KC"},
                                  {"seat": 3, "card": "QH"}]},
                       {"plays": [{"seat": 0, "card": "3C"}, {"seat": 1, "card": "8C"}, {"seat": 2, "card": "2H"}]}]}
    err = error_of(client.post("/v1/act", json=view))
    assert "seat 2 plays KC" in err["message"]


def test_malformed_requests(client):
    v = VIEWS[0]
    assert error_of(client.post("/v1/act", content=b"{not json", headers={"content-type": "application/json"}),
                    400)["type"] == "invalid_json"
    assert error_of(client.post("/v1/act", json=[v]))["type"] == "invalid_request"
    err = error_of(client.post("/v1/act", json={**v, "seat": "1"}))
    assert err["type"] == "invalid_request" and "seat" in err["message"]
    err = error_of(client.post("/v1/act", json={**v, "hand": [v["hand"][0].lower()[::-1]] + v["hand"][1:]}))
    assert err["type"] == "invalid_request" and "hand.0: " in err["message"] and "is not a card code" in err["message"]
    assert "pattern" not in err["message"]  # what a card code is, not the regex behind it
    assert "Field required" in error_of(client.post("/v1/act", json={"preset": "yorkshire"}))["message"]
    assert error_of(client.post("/v1/act", json={**v, "extra": 1}))["type"] == "invalid_request"
    err = error_of(client.post("/v1/act", json={**v, "bot": "../../etc/passwd.pt"}))
    assert err["type"] == "unknown_bot" and "heuristic" in err["message"]
    assert error_of(client.get("/v1/nothing"), 404)["type"] == "not_found"
    assert error_of(client.get("/v1/act"), 405)["type"] == "method_not_allowed"


def test_body_size_limit(client):
    big = {**VIEWS[0], "id": "x" * 70_000}
    assert error_of(client.post("/v1/act", json=big), 413)["type"] == "too_large"

    def chunks():  # no Content-Length: counted while it streams in
        for _ in range(100):
            yield b" " * 1000

    assert error_of(client.post("/v1/act", content=chunks(), headers={"content-type": "application/json"}),
                    413)["type"] == "too_large"


# ---------------------------------------------------------------------- property tests: never a 5xx
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2 ** 70, 2 ** 70) | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=8), c, max_size=4), max_leaves=12)
card_codes = st.sampled_from([card_code(c) for c in range(52)]) | st.text(max_size=3)


@FUZZ
@given(body=json_values)
def test_fuzz_any_json_is_never_a_5xx(client, body):
    r = post(client, body)
    assert 400 <= r.status_code < 500, r.text


@FUZZ
@given(i=st.integers(0, len(VIEWS) - 1), key=st.sampled_from(sorted({k for v in VIEWS for k in v} | {"bot", "seed"})),
       value=json_values)
def test_fuzz_one_field_of_a_real_view(client, i, key, value):
    body = {**VIEWS[i], key: value}
    r = post(client, body)
    assert r.status_code in (200, 400, 413, 422), r.text
    if r.status_code == 200:
        assert r.json()["action"] in r.json()["legal_actions"]


def _paths(x, path=()):
    """Every path into a JSON tree."""
    yield path
    if isinstance(x, dict):
        for k, y in x.items():
            yield from _paths(y, path + (k,))
    elif isinstance(x, list):
        for i, y in enumerate(x):
            yield from _paths(y, path + (i,))


@FUZZ
@given(i=st.integers(0, len(VIEWS) - 1), pick=st.integers(0, 10 ** 6), value=json_values | card_codes,
       delete=st.booleans())
def test_fuzz_anywhere_in_a_real_view(client, i, pick, value, delete):
    body = copy.deepcopy(VIEWS[i])
    paths = [p for p in _paths(body) if p]
    path = paths[pick % len(paths)]
    parent = body
    for k in path[:-1]:
        parent = parent[k]
    if delete:
        del parent[path[-1]]
    else:
        parent[path[-1]] = value
    r = post(client, body)
    assert r.status_code in (200, 422), (path, r.text)
    if r.status_code == 200:
        assert r.json()["action"] in r.json()["legal_actions"]


def _mutate(v: dict, kind: str, rng: random.Random) -> dict:
    v = copy.deepcopy(v)
    text = json.dumps(v)
    unseen = [card_code(c) for c in range(52) if f'"{card_code(c)}"' not in text]
    played = [p["card"] for t in v["tricks"] + [v["current_trick"]] for p in t["plays"]]
    if kind == "extra_card":
        v["hand"].append(rng.choice(unseen))
    elif kind == "missing_card" and v["hand"]:
        v["hand"].pop(rng.randrange(len(v["hand"])))
    elif kind == "held_and_played" and played and v["hand"]:
        v["hand"][rng.randrange(len(v["hand"]))] = rng.choice(played)
    elif kind == "wrong_seat":
        v["seat"] = (v["seat"] + rng.randrange(1, v["players"])) % v["players"]
    elif kind == "over":
        v["scores"][rng.randrange(len(v["scores"]))] = v["target"]
    elif kind == "turnup_in_hand" and v["turnups"] and v["hand"]:
        v["hand"][0] = v["turnups"][0]
    elif kind == "duplicate_play" and len(played) >= 2:
        t = (v["tricks"] + [v["current_trick"]])[-1]
        if t["plays"]:
            t["plays"][-1]["card"] = played[0] if played[0] != t["plays"][-1]["card"] else played[1]
        else:
            v["hand"].append(v["hand"][0])
    else:
        v["hand"].append(v["hand"][0] if v["hand"] else "AS")
    return v


@FUZZ
@given(i=st.integers(0, len(VIEWS) - 1), seed=st.integers(0, 1000),
       kind=st.sampled_from(["extra_card", "missing_card", "held_and_played", "wrong_seat", "over", "turnup_in_hand",
                             "duplicate_play"]))
def test_fuzz_impossible_views_are_4xx(client, i, seed, kind):
    body = _mutate(VIEWS[i], kind, random.Random(seed))
    r = post(client, body)
    assert r.status_code == 422, (kind, r.text)
    assert r.json()["error"]["type"] == "invalid_view"


@st.composite
def made_up_views(draw):
    """Well-typed, plausibly shaped views with random cards: mostly impossible, some fine; never a 5xx."""
    preset = draw(st.sampled_from(["yorkshire", "traditional", "seven_up"]))
    n = draw(st.sampled_from([2, 3, 4])) if preset == "traditional" else (4 if preset == "yorkshire" else 2)
    deck = draw(st.permutations([card_code(c) for c in range(52)]))
    pos = 0
    body = {"preset": preset, "options": {"players": n} if preset == "traditional" else {},
            "dealer": draw(st.integers(0, n - 1)), "bot": draw(st.sampled_from(["random", "heuristic"]))}
    runs = 0
    if preset != "yorkshire":
        decisions = draw(st.sampled_from([[], ["STAND"], ["BEG"], ["BEG", "GIVE_ONE"], ["BEG", "RUN_PACK"]]))
        runs = draw(st.integers(1, 2)) if decisions[-1:] == ["RUN_PACK"] else 0
        body["decisions"], body["turnups"] = decisions, deck[:1 + runs]
        pos = 1 + runs
    tricks, leader = [], (body["dealer"] + 1) % n
    own = {s: 0 for s in range(n)}
    for _ in range(draw(st.integers(0, 4))):
        k = draw(st.integers(1, n))
        plays = []
        for j in range(k):
            seat = (leader + j) % n
            plays.append({"seat": seat, "card": deck[pos]})
            own[seat] += 1
            pos += 1
        tricks.append({"plays": plays})
        if k < n:
            break
        leader = draw(st.integers(0, n - 1))
    body["tricks"] = tricks
    seat = body["seat"] = draw(st.integers(0, n - 1))
    size = 6 + 3 * runs - own[seat] + draw(st.sampled_from([0, 0, 0, 0, 1, -1]))
    body["hand"] = deck[pos:pos + max(size, 0)]
    return body


@FUZZ
@given(body=made_up_views())
def test_fuzz_made_up_views(client, body):
    r = post(client, body)
    assert r.status_code in (200, 422), r.text
    if r.status_code == 200:
        assert r.json()["action"] in r.json()["legal_actions"]


# ---------------------------------------------------------------------- a neural bot
@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    import torch

    from allfours.agents.network import PolicyNet
    from allfours.agents.network.checkpoint import atomic_save, metadata
    from allfours_env import NUM_ACTIONS, OBS_SIZE, make_rules
    torch.manual_seed(0)
    net = PolicyNet(OBS_SIZE, NUM_ACTIONS, (32,))
    path = tmp_path_factory.mktemp("ck") / "tiny.pt"
    atomic_save({**metadata(), "arch": net.arch(), "model": net.state_dict(), "preset": "seven_up",
                 "rules": make_rules("seven_up").to_dict(), "progress": {"steps": 1}}, path)
    return str(path)


def test_neural_bot_served_with_its_model_card(checkpoint):
    from allfours.agents.players.neural import load_agent
    with TestClient(create_app(pool=BotPool([checkpoint, "heuristic"])), base_url="http://127.0.0.1") as c:
        cards = {b["name"]: b for b in c.get("/v1/bots").json()["bots"]}
        card = cards[checkpoint]
        assert card["kind"] == "neural" and card["has_policy"] and card["presets"] == ["seven_up"]
        assert card["model_card"]["encoding_version"] == 2 and len(card["model_card"]["action_ids"]) == 63
        assert card["model_card"]["network"]["obs_size"] == 997 and card["model_card"]["network"]["num_actions"] == 63
        agent = load_agent(checkpoint)
        for v in views("seven_up", {}, 1, every=0.5)[:5]:
            a = c.post("/v1/act", json={**v, "bot": checkpoint}).json()
            state, seat = state_from_request(v)
            want = {action_name(x): p for x, p in agent.policy(state, seat).items()}
            assert a["action"] in v["legal_actions"] and set(a["probabilities"]) == set(want)
            assert all(abs(a["probabilities"][k] - p) < 1e-6 for k, p in want.items())
        yv = views("yorkshire", {}, 1)[0]
        err = error_of(c.post("/v1/act", json={**yv, "bot": checkpoint}))
        assert err["type"] == "bot_unavailable" and "seven_up" in err["message"]


def test_a_bot_that_cannot_be_built_is_listed_as_unavailable():
    with TestClient(create_app(["random", "/nonexistent/ck.pt"]), base_url="http://127.0.0.1") as c:
        cards = c.get("/v1/bots").json()["bots"]
        assert cards[0]["kind"] == "random" and cards[1]["kind"] == "unavailable"
        assert "not found" in cards[1]["description"]
        err = error_of(c.post("/v1/act", json={**VIEWS[0], "bot": "/nonexistent/ck.pt"}))
        assert err["type"] == "bot_unavailable"


def test_shipped_bots_are_offered_and_refuse_another_player_count():
    from allfours.agents.spec.bots import BOTS
    from allfours.serve.core import shipped_bots

    shipped = shipped_bots()
    assert shipped == [f"bot:{n}" for n in BOTS if (REPO_CHECKPOINTS / f"{n}.pt").exists()]
    if "bot:traditional" not in shipped:
        pytest.skip("bot:traditional is not shipped in this checkout")
    with TestClient(create_app(["bot:traditional", "heuristic"]), base_url="http://127.0.0.1") as c:
        cards = {b["name"]: b for b in c.get("/v1/bots").json()["bots"]}
        assert cards["bot:traditional"]["presets"] == ["traditional"]
        four = views("traditional", {}, 2)[0]
        assert c.post("/v1/act", json={**four, "bot": "bot:traditional"}).json()["action"] in four["legal_actions"]
        two = views("traditional", {"players": 2}, 2)[0]  # the 4-player bot is not for a 2-player table
        err = error_of(c.post("/v1/act", json={**two, "bot": "bot:traditional"}))
        assert err["type"] == "bot_unavailable" and "trained for 4 players, not 2" in err["message"]
        # a network of encoding 1, served in today's contract: it reads 951 of the 997 columns, 57 of the 63 actions
        model = cards["bot:traditional"]["model_card"]
        assert (model["encoding_version"], model["obs_size"], len(model["action_ids"])) == (2, 997, 63)
        assert (model["network"]["encoding_version"], model["network"]["obs_size"],
                model["network"]["num_actions"]) == (1, 951, 57)
        pitch = views("pitch", {}, 2)[0]  # nor for the auction, whose bids its head does not have
        err = error_of(c.post("/v1/act", json={**pitch, "bot": "bot:traditional"}))
        assert err["type"] == "bot_unavailable" and err["message"].count("\n") == 0


def test_the_auction_bots_are_served_for_their_own_game():
    """bot:pitch (two players) and the setback bot bid and play over HTTP in their game (docs/rules.md section 8),
    their model cards in the contract of encoding 2, and a table they were not trained for is one line."""
    if not all((REPO_CHECKPOINTS / f"{n}.pt").exists() for n in ("pitch", "setback")):
        pytest.skip("the auction bots are not shipped in this checkout")
    with TestClient(create_app(["bot:pitch", "bot:setback"]), base_url="http://127.0.0.1") as c:
        cards = {b["name"]: b for b in c.get("/v1/bots").json()["bots"]}
        assert cards["bot:pitch"]["presets"] == ["pitch"] and cards["bot:setback"]["presets"] == ["setback"]
        assert cards["bot:pitch"]["model_card"]["network"]["encoding_version"] == 2
        for bot, preset, options in (("bot:pitch", "pitch", {"players": 2}), ("bot:setback", "setback", {})):
            table = views(preset, options, 4, every=1.0)
            bids = [v for v in table if v["phase"] == "bid"]
            assert bids and len(bids) < len(table)
            for view in bids[:3] + table[-3:]:
                assert c.post("/v1/act", json={**view, "bot": bot}).json()["action"] in view["legal_actions"]
        err = error_of(c.post("/v1/act", json={**views("pitch", {}, 2)[0], "bot": "bot:pitch"}))
        assert err["type"] == "bot_unavailable" and err["message"].count("\n") == 0


def test_a_composite_bot_is_built_for_the_tables_player_count():
    """``search:playout=bot:traditional`` at a 2-player table plays out with the 2-player bot (as
    ``allfours eval`` builds it), and one built for a 4-player table is not reused there."""
    if not all((REPO_CHECKPOINTS / f"{n}.pt").exists() for n in ("traditional", "traditional_2p")):
        pytest.skip("the traditional bots are not shipped in this checkout")
    spec = "search:playout=bot:traditional"
    pool = BotPool([spec])
    two, _ = pool.get(spec, "traditional", 2)
    four, _ = pool.get(spec, "traditional", 4)
    assert (two.playout.players, four.playout.players) == (2, 4)
    assert pool.get(spec, "traditional")[0] is four  # the preset's own count
    with TestClient(create_app(pool=pool), base_url="http://127.0.0.1") as c:
        view = views("traditional", {"players": 2}, 2)[0]
        assert c.post("/v1/act", json={**view, "bot": spec}).json()["action"] in view["legal_actions"]


def test_the_request_model_takes_exactly_the_keys_the_replay_reads():
    """The two descriptions of a bot request (twins: ARCHITECTURE.md): the server's schema
    (``allfours.serve.models.ActRequest``) and the keys ``allfours_env.replay.state_from_request`` reads,
    checks, ignores or leaves to the service. A key in one only would be refused by one and taken by the other."""
    assert set(ActRequest.model_fields) == set(REQUEST_KEYS)
    assert len(REQUEST_KEYS) == len(set(REQUEST_KEYS))
