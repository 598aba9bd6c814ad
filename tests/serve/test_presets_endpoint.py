"""GET /v1/presets: the presets' table (allfours_env.rules) as a frontend reads it, in the OpenAPI description."""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from allfours.serve.app import create_app
from allfours.serve.models import PresetsResponse, match_options_schema
from allfours_env.rules import ALL_PRESETS, ALLOWED_PLAYERS, PLAYED_PRESETS, make_rules

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"
STATIC = Path(__file__).resolve().parents[2] / "allfours" / "serve" / "static"


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app(["random"]), base_url="http://127.0.0.1") as c:
        yield c


@pytest.fixture(scope="module")
def listed(client):
    r = client.get("/v1/presets")
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/json")
    return r.json()["presets"]


def test_every_played_preset_in_the_tables_order(listed):
    assert [p["name"] for p in listed] == list(PLAYED_PRESETS)
    assert "mini2" not in {p["name"] for p in listed}  # a solvable tier is no match to host


def test_each_preset_is_its_rules(listed):
    for p in listed:
        rules = ALL_PRESETS[p["name"]]
        assert p["players"] == list(ALLOWED_PLAYERS[p["name"]])
        assert p["default_players"] == rules.players and rules.players in p["players"]
        assert (p["family"] == "auction") == rules.auction and p["family"] == rules.family
        assert p["partnerships"] == rules.partnerships and p["throw_in"] == rules.throw_in
        assert p["target"] == rules.target
        assert p["options"] == match_options_schema(p["name"])


def test_what_the_page_branched_on_by_name_is_there(listed):
    """The play page's former name branches, now read from the list: the fixed counts, the auctions, four players
    each for themselves, the throw-in."""
    by = {p["name"]: p for p in listed}
    assert {n: p["default_players"] for n, p in by.items() if len(p["players"]) == 1} == {
        "yorkshire": 4, "seven_up": 2, "setback": 4}
    assert {n for n, p in by.items() if p["family"] == "auction"} == {"pitch", "setback"}
    assert {n for n, p in by.items() if not p["partnerships"]} == {"pitch"}
    assert {n for n, p in by.items() if p["throw_in"]} == {"yorkshire"}
    assert {n for n, p in by.items() if len(p["players"]) > 1} == {"traditional", "pitch"}


def test_the_listed_counts_and_options_are_what_a_match_takes(client, listed):
    """Every count listed hosts a match (options.players where more than one), and a count not listed is refused."""
    for p in listed:
        for players in p["players"]:
            options = {"players": players} if len(p["players"]) > 1 else {}
            body = {"preset": p["name"], "options": options, "seats": ["human"] + ["random"] * (players - 1)}
            r = client.post("/v1/matches", json=body)
            assert r.status_code == 201, r.text
            assert r.json()["rules"]["players"] == players
            client.delete(f"/v1/matches/{r.json()['match_id']}",
                          headers={"Authorization": f"Bearer {r.json()['tokens'][0]['token']}"})
        for players in sorted({2, 3, 4} - set(p["players"])):
            with pytest.raises(ValueError, match="allows players"):
                make_rules(p["name"], players=players)
            body = {"preset": p["name"], "options": {"players": players}, "seats": ["human"] * players}
            assert client.post("/v1/matches", json=body).status_code == 422


def test_it_is_in_the_openapi_description(client, listed):
    spec = client.get("/openapi.json").json()
    op = spec["paths"]["/v1/presets"]["get"]
    assert op["summary"] and "frontend" in op["description"]
    assert op["responses"]["200"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/PresetsResponse"}
    card = spec["components"]["schemas"]["PresetCard"]
    assert set(card["required"]) == set(listed[0])
    assert card["properties"]["name"]["enum"] == list(PLAYED_PRESETS)
    assert PresetsResponse.model_validate({"presets": listed}).presets[0].name == PLAYED_PRESETS[0]


def test_no_token_and_no_body_needed_and_only_get(client):
    assert client.get("/v1/presets", headers={"Authorization": "Bearer nonsense"}).status_code == 200
    r = client.post("/v1/presets", json={})
    assert r.status_code == 405 and r.json()["error"]["type"] == "method_not_allowed"


def test_the_documented_example_is_what_the_server_lists(listed):
    """docs/protocol.md's abridged answer: every field it shows but the options is the server's."""
    text = DOC.read_text()
    block = re.search(r"`GET /v1/presets`:.*?```json\n(.*?)\n```", text, re.S).group(1)
    shown = json.loads(block)["presets"]
    by = {p["name"]: p for p in listed}
    assert len(shown) >= 2
    for p in shown:
        assert {k: v for k, v in p.items() if k != "options"} == {k: v for k, v in by[p["name"]].items()
                                                                  if k != "options"}


def test_the_play_page_names_no_preset():
    """The page reads the presets from GET /v1/presets: no preset's name is in its code."""
    js = (STATIC / "play.js").read_text()
    assert "/v1/presets" in js
    # "pitch" is also a word of the game: the first lead's rule, and what a seat does ("pitches")
    js = js.replace('ruleWords("pitch")', "").replace('"pitch" : "pitches"', "")
    for name in PLAYED_PRESETS:
        assert not re.search(rf"['\"`]{name}['\"`]|[{{,]\s*{name}\s*:", js), name
