"""Hosted matches kept in SQLite (allfours/serve/store.py): a restart rebuilds them, join links, bad files.

In process: a ``MatchStore`` over a ``MatchDB`` in a temporary folder, then a new one over the same file, as a
restarted server would make. The real process killed with SIGKILL is tests/serve/test_restart.py.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import sqlite3
import warnings

import pytest

from allfours.cli import serve as serve_cli
from allfours.serve.app import create_app
from allfours.serve.core import BotPool, RequestError
from allfours.serve.hosted import Limits, MatchStore
from allfours.serve.store import SCHEMA_VERSION, MatchDB, StoreError, default_path, digest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

BOTS = ["heuristic", "random"]
NO_LIMITS = Limits(client_rate=0, token_rate=0, max_matches=100_000, max_matches_per_client=0)


class Wall:
    """An injectable wall clock (what the file keeps) and monotonic clock (what the server counts with)."""

    def __init__(self):
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


def store_on(path, pool=None, limits=NO_LIMITS, wall=None) -> MatchStore:
    wall = wall or Wall()
    return MatchStore(pool or BotPool(BOTS), limits, clock=wall, db=MatchDB(path, clock=wall))


def snapshot(store: MatchStore, match_id: str, tokens: dict) -> dict:
    """Everything a seat, and the server, can see of a match."""
    return {"views": {s: store.view(match_id, t) for s, t in tokens.items()}, "record": store.record(match_id),
            "seq": store._matches[match_id].seq, "events": list(store._matches[match_id].events)}


def play(store: MatchStore, match_id: str, tokens: dict, moves: int, rng: random.Random) -> int:
    """Up to ``moves`` random legal moves by whichever person is to move; how many were made."""
    for k in range(moves):
        view = store.view(match_id, next(iter(tokens.values())))["view"]
        if view["done"]:
            return k
        seat = view["to_move"]
        mine = store.view(match_id, tokens[seat])["view"]
        store.move(match_id, tokens[seat], rng.choice(mine["legal_actions"]))
    return moves


@pytest.mark.parametrize("preset,options,seats", [
    ("yorkshire", {}, ["human", "heuristic", "random", "heuristic"]),
    ("traditional", {"players": 3}, ["random", "human", "human"]),
    ("seven_up", {"target": 3}, ["heuristic", "human"]),
    ("setback", {"dealer_privilege": "four", "smudge": True, "target": 3}, ["human", "heuristic", "human", "random"]),
])
def test_a_restart_rebuilds_every_match_with_the_same_state_log_and_tokens(tmp_path, preset, options, seats):
    path, rng = tmp_path / "m.db", random.Random(5)
    a = store_on(path)
    made = a.create(preset, seats, options, seed=21)
    mid, tokens = made["match_id"], {t["seat"]: t["token"] for t in made["tokens"]}
    play(a, mid, tokens, 25, rng)
    before = snapshot(a, mid, tokens)
    a.db.close()

    b = store_on(path)  # the restarted server
    assert b.rebuilt == 1 and not b.skipped
    assert snapshot(b, mid, tokens) == before
    # ... and the match goes on from there exactly as it would have without the restart.
    c = MatchStore(BotPool(BOTS), NO_LIMITS)
    twin = c.create(preset, seats, options, seed=21)
    twin_tokens = {t["seat"]: t["token"] for t in twin["tokens"]}
    for seat, action in before["record"]["actions"]:  # the people's moves: the bots answer as before
        if seats[seat] == "human":
            c.move(twin["match_id"], twin_tokens[seat], action)
    assert c.record(twin["match_id"])["actions"] == before["record"]["actions"]
    play(b, mid, tokens, 200, random.Random(9))
    play(c, twin["match_id"], twin_tokens, 200, random.Random(9))
    assert b.record(mid)["actions"] == c.record(twin["match_id"])["actions"]
    assert b.record(mid)["done"]


def test_the_file_holds_hashes_never_tokens_or_codes(tmp_path):
    path = tmp_path / "m.db"
    a = store_on(path)
    made = a.create("traditional", ["human", "human", "heuristic", "human"], {}, seed=3)
    secrets_ = [t["token"] for t in made["tokens"]] + [j["code"] for j in made["joins"]]
    assert [j["seat"] for j in made["joins"]] == [0, 1, 3]
    a.db.close()
    raw = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    for secret in secrets_:
        assert secret.encode() not in raw
        assert digest(secret).encode() in raw
    assert oct(path.stat().st_mode & 0o777) == "0o600"  # the seeds give away the deals


def test_join_codes_take_a_seat_once_and_survive_a_restart(tmp_path):
    path = tmp_path / "m.db"
    a = store_on(path)
    made = a.create("traditional", ["human", "human", "heuristic"], {"players": 3}, seed=8)
    mid = made["match_id"]
    old = {t["seat"]: t["token"] for t in made["tokens"]}
    code = made["joins"][1]["code"]
    assert [s["taken"] for s in made["seats"]] == [False, False, True]
    a.view(mid, old[0])  # the creator sits at seat 0: its first request takes it
    assert [s["taken"] for s in a.view(mid, old[0])["seats"]] == [True, False, True]
    with pytest.raises(RequestError) as e:
        a.join(mid, made["joins"][0]["code"])
    assert e.value.type == "seat_taken"
    a.db.close()

    b = store_on(path)
    joined = b.join(mid, code)
    assert joined["seat"] == 1 and joined["token"] != old[1] and [s["taken"] for s in joined["seats"]] == [True] * 3
    assert b.view(mid, joined["token"])["seat"] == 1
    with pytest.raises(RequestError) as e:  # the seat's token from the creation no longer works
        b.view(mid, old[1])
    assert e.value.status == 403
    with pytest.raises(RequestError) as e:
        b.join(mid, code)
    assert (e.value.status, e.value.type) == (409, "seat_taken") and "taken already" in e.value.message
    with pytest.raises(RequestError) as e:
        b.join(mid, "not-a-code")
    assert (e.value.status, e.value.type) == (403, "forbidden")
    with pytest.raises(RequestError) as e:
        b.join("nosuchmatch", code)
    assert (e.value.status, e.value.type) == (404, "no_match")
    b.db.close()
    c = store_on(path)  # the new token, and the seat taken, were kept
    assert c.view(mid, joined["token"])["seat"] == 1
    with pytest.raises(RequestError) as e:
        c.join(mid, code)
    assert e.value.type == "seat_taken"


def test_a_seat_whose_token_was_used_is_taken_and_a_finished_match_takes_no_join(tmp_path):
    a = store_on(tmp_path / "m.db")
    made = a.create("traditional", ["human", "human"], {"players": 2, "target": 1}, seed=2)
    mid, tokens = made["match_id"], {t["seat"]: t["token"] for t in made["tokens"]}
    a.view(mid, tokens[1])  # an API client seated both people itself
    with pytest.raises(RequestError) as e:
        a.join(mid, made["joins"][1]["code"])
    assert e.value.type == "seat_taken"
    made = a.create("traditional", ["human", "human"], {"players": 2, "target": 1}, seed=2)
    mid, tokens = made["match_id"], {made["tokens"][0]["seat"]: made["tokens"][0]["token"]}
    while not a.view(mid, tokens[0])["view"]["done"]:
        view = a.view(mid, tokens[0])["view"]
        if view["to_move"] != 0:
            break
        a.move(mid, tokens[0], view["legal_actions"][0])
    if not a.view(mid, tokens[0])["view"]["done"]:  # seat 1 is to move: it needs its own token
        mine = {t["seat"]: t["token"] for t in made["tokens"]}
        while not (v := a.view(mid, mine[0])["view"])["done"]:
            a.move(mid, mine[v["to_move"]], a.view(mid, mine[v["to_move"]])["view"]["legal_actions"][0])
    with pytest.raises(RequestError) as e:
        a.join(mid, made["joins"][1]["code"])
    assert (e.value.status, e.value.type) == (409, "match_over") and "over" in e.value.message


def test_expiry_deletion_and_eviction_delete_the_rows(tmp_path):
    wall = Wall()
    limits = Limits(client_rate=0, token_rate=0, idle_seconds=60, max_matches=2, max_matches_per_client=0)
    a = store_on(tmp_path / "m.db", limits=limits, wall=wall)
    quick = {"preset": "seven_up", "seats": ["human", "heuristic"], "options": {"target": 1}, "seed": 3}
    x, _y = a.create(**quick), a.create(**quick)
    assert a.db.count()[0] == 2
    a.delete(x["match_id"], x["tokens"][0]["token"])
    assert a.db.count()[0] == 1
    wall.now += 61  # idle: the next creation expires y
    z = a.create(**quick)
    rows = [r[0] for r in a.db.conn.execute("SELECT id FROM matches")]
    assert rows == [z["match_id"]] and a.db.count()[1] == len(a._matches[z["match_id"]].actions)
    a.db.close()
    wall.now += 61  # idle across a restart: gone from the file at the start
    b = store_on(tmp_path / "m.db", limits=limits, wall=wall)
    assert b.rebuilt == 0 and b.db.count() == (0, 0)


def test_a_restart_keeps_the_idle_clock_and_the_per_client_cap(tmp_path):
    wall = Wall()
    limits = Limits(client_rate=0, token_rate=0, idle_seconds=100, max_matches_per_client=1)
    a = store_on(tmp_path / "m.db", limits=limits, wall=wall)
    made = a.create("seven_up", ["human", "heuristic"], {}, seed=4, client="198.51.100.7")
    a.db.close()
    wall.now += 50
    b = store_on(tmp_path / "m.db", limits=limits, wall=wall)
    with pytest.raises(RequestError) as e:
        b.create("seven_up", ["human", "heuristic"], {}, seed=4, client="198.51.100.7")
    assert e.value.type == "too_many_matches"
    wall.now += 51  # 101 s since the last request, 51 of them after the restart: expired
    with pytest.raises(RequestError) as e:
        b.view(made["match_id"], made["tokens"][0]["token"])
    assert e.value.type == "no_match" and b.db.count()[0] == 0


def test_a_failed_commit_changes_nothing(tmp_path):
    a = store_on(tmp_path / "m.db")
    made = a.create("seven_up", ["human", "heuristic"], {}, seed=6)
    mid, token = made["match_id"], made["tokens"][0]["token"]
    before = a.view(mid, token)

    class Broken:
        def __getattr__(self, name):
            return getattr(real, name)

        def moved(self, *args):
            raise sqlite3.OperationalError("disk I/O error")

    real, a.db = a.db, Broken()
    with pytest.raises(RequestError) as e:
        a.move(mid, token, before["view"]["legal_actions"][0])
    assert (e.value.status, e.value.type) == (503, "storage_unavailable") and "nothing changed" in e.value.message
    assert a.view(mid, token) == before
    a.db = real
    a.move(mid, token, before["view"]["legal_actions"][0])
    assert a.view(mid, token)["seq"] > before["seq"]


def test_on_commit_is_called_inside_each_write_of_actions_and_after_its_commit(tmp_path):
    """``MatchDB(on_commit=...)``: ``in_commit`` with the rows written but not yet in the file for any other reader,
    ``after_commit`` once they are; only for a new match and a move (not a seat taken, not a deletion)."""
    path = tmp_path / "m.db"
    seen = []

    def on_commit(point: str) -> None:
        with contextlib.closing(sqlite3.connect(path)) as other:  # another reader sees only what is committed
            seen.append((point, other.execute("SELECT COUNT(*) FROM matches").fetchone()[0],
                         other.execute("SELECT COUNT(*) FROM actions").fetchone()[0]))

    wall = Wall()
    store = MatchStore(BotPool(BOTS), NO_LIMITS, clock=wall, db=MatchDB(path, clock=wall, on_commit=on_commit))
    made = store.create("seven_up", ["human", "heuristic"], {}, seed=6)
    mid, token = made["match_id"], made["tokens"][0]["token"]
    first = store.db.count()[1]
    assert seen == [("in_commit", 0, 0), ("after_commit", 1, first)]
    view = store.view(mid, token)["view"]  # the token's first use takes the seat: a write, without actions
    assert len(seen) == 2
    store.move(mid, token, view["legal_actions"][0])
    assert seen[2:] == [("in_commit", 1, first), ("after_commit", 1, store.db.count()[1])]
    assert store.db.count()[1] > first

    def refuse(point: str) -> None:
        if point == "in_commit":
            raise sqlite3.OperationalError("disk I/O error")

    store.db.on_commit = refuse  # an error inside the transaction: nothing of it is kept
    kept = store.db.count()
    with pytest.raises(sqlite3.OperationalError):
        store.db.moved(mid, kept[1], [(0, 1)])
    assert store.db.count() == kept
    store.delete(mid, token)
    assert store.db.count() == (0, 0)


def test_a_match_whose_bot_is_no_longer_on_offer_is_skipped_with_the_reason(tmp_path):
    a = store_on(tmp_path / "m.db")
    made = a.create("seven_up", ["human", "random"], {}, seed=6)
    a.db.close()
    b = store_on(tmp_path / "m.db", pool=BotPool(["heuristic"]))
    assert b.rebuilt == 0 and b.skipped and b.skipped[0][0] == made["match_id"]
    assert "'random' is not on offer" in b.skipped[0][1]
    assert b.db.count()[0] == 1  # kept: a server offering the bot again picks it up


# ---------------------------------------------------------------------- bad files: one clear line, status 2
def random_bytes(path):
    path.write_bytes(random.Random(1).randbytes(4096))


def foreign(path):
    with contextlib.closing(sqlite3.connect(path)) as c, c:  # closed here, not whenever the collector runs
        c.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")


def newer(path):
    MatchDB(path).close()
    with contextlib.closing(sqlite3.connect(path)) as c, c:  # closing it checkpoints the WAL: before the test reads
        c.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")


def truncated(path):
    db = MatchDB(path)
    MatchStore(BotPool(BOTS), NO_LIMITS, db=db).create("seven_up", ["human", "heuristic"], {}, seed=1)
    db.close()
    data = path.read_bytes()
    path.write_bytes(data[:100] + bytes(200) + data[300:])  # the header's page count and more, overwritten


BAD_FILES = {
    "random_bytes": (random_bytes, "is not an SQLite database"),
    "foreign": (foreign, "database of another program (tables: invoices)"),
    "newer": (newer, f"newer allfours (schema version {SCHEMA_VERSION + 1}; this one reads up to {SCHEMA_VERSION})"),
    "damaged": (truncated, "damaged"),
}


@pytest.mark.parametrize("kind", BAD_FILES)
def test_a_bad_file_gets_one_clear_error(tmp_path, kind):
    make, words = BAD_FILES[kind]
    path = tmp_path / "bad.db"
    make(path)
    with pytest.raises(StoreError) as e:
        MatchDB(path)
    assert words in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize("kind", ["random_bytes", "foreign", "newer"])
def test_serve_refuses_a_bad_file_with_one_line_and_status_2(tmp_path, capsys, kind):
    make, words = BAD_FILES[kind]
    path = tmp_path / "bad.db"
    make(path)
    before = path.read_bytes()
    rc = serve_cli.main(["--db", str(path), "--bot", "random", "--port", "1"])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith("allfours serve: error: argument --db: ") and words in err, err
    assert path.read_bytes() == before  # left as it was


def test_a_new_file_has_the_schema_version_and_wal(tmp_path):
    db = MatchDB(tmp_path / "deep" / "er" / "m.db")
    assert db.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert db.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert MatchDB.open(":memory:") is None and MatchDB.open(None) is None
    db.close()
    with pytest.raises(StoreError, match="is a folder"):
        MatchDB(tmp_path)


def test_a_second_server_on_the_same_file_is_refused(tmp_path):
    first = MatchDB(tmp_path / "m.db")
    with pytest.raises(StoreError, match="in use by another allfours server"):
        MatchDB(tmp_path / "m.db")
    first.close()
    MatchDB(tmp_path / "m.db").close()  # free again


def test_the_default_path_is_per_user_state(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    assert default_path() == tmp_path / "allfours" / "matches.db"
    monkeypatch.delenv("XDG_STATE_HOME")
    assert str(default_path()).endswith(os.path.join(".local", "state", "allfours", "matches.db"))


def test_create_app_keeps_matches_in_memory_unless_given_a_db(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    app = create_app(BOTS, limits=NO_LIMITS)
    assert app.state.matches.db is None
    with TestClient(app, base_url="http://127.0.0.1") as c:
        assert c.post("/v1/matches", json={"preset": "seven_up", "seats": ["human", "random"]}).status_code == 201
    assert list(tmp_path.iterdir()) == []  # no file anywhere


def test_join_over_http(tmp_path):
    app = create_app(BOTS, limits=NO_LIMITS, db=MatchDB(tmp_path / "m.db"))
    with TestClient(app, base_url="http://127.0.0.1") as c:
        made = c.post("/v1/matches", json={"preset": "traditional", "options": {"players": 2},
                                           "seats": ["human", "human"], "seed": 1}).json()
        url = f"/v1/matches/{made['match_id']}/join"
        r = c.post(url, json={"code": made["joins"][1]["code"]})
        assert r.status_code == 200 and r.json()["seat"] == 1
        token = r.json()["token"]
        assert c.get(f"/v1/matches/{made['match_id']}", headers={"Authorization": f"Bearer {token}"}).json()[
            "seat"] == 1
        err = c.post(url, json={"code": made["joins"][1]["code"]}).json()["error"]
        assert err["status"] == 409 and err["type"] == "seat_taken"
        assert c.post(url, json={"code": "x"}).status_code == 403
        assert c.post(url, json={"code": ""}).status_code == 422
        assert json.dumps(c.get("/openapi.json").json()["paths"]["/v1/matches/{match_id}/join"])
