"""Hosted matches under attack (issue 39): a deletion the file does not take changes nothing, an old token
cannot act once a join replaced it (even with the join landing mid-request), and a match file deleted or
replaced under a running server refuses every change (503) instead of losing it at the next start, and so does
its journal (``-wal``) deleted or replaced, with nothing acknowledged lost (issue 51)."""

from __future__ import annotations

import os
import shutil
import sqlite3
import warnings

import pytest

from allfours.serve.app import create_app
from allfours.serve.core import BotPool, RequestError
from allfours.serve.hosted import Limits, MatchStore
from allfours.serve.store import MatchDB

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

BOTS = ["heuristic", "random"]
NO_LIMITS = Limits(client_rate=0, token_rate=0, max_matches=100_000, max_matches_per_client=0)
LOCAL = "http://127.0.0.1"


def auth(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def two_people(c: TestClient) -> dict:
    r = c.post("/v1/matches", json={"preset": "traditional", "options": {"players": 2}, "seats": ["human", "human"],
                                    "seed": 5})
    assert r.status_code == 201, r.text
    return r.json()


# ---------------------------------------------------------------------- 1. DELETE the file cannot take
def test_a_deletion_the_file_cannot_take_is_503_and_the_match_stays_in_memory_and_in_the_file(tmp_path):
    path = tmp_path / "m.db"
    db = MatchDB(path)
    app = create_app(BOTS, limits=NO_LIMITS, db=db)
    with TestClient(app, base_url=LOCAL) as c:
        made = two_people(c)
        mid, token = made["match_id"], made["tokens"][0]["token"]
        url = f"/v1/matches/{mid}"
        before = c.get(url, headers=auth(token)).json()  # the token's first use takes the seat: written now
        db.conn.execute("PRAGMA query_only = ON")  # SQLite itself now refuses every write, as on a full disk
        r = c.delete(url, headers=auth(token))
        assert r.status_code == 503, r.text
        err = r.json()["error"]
        assert set(r.json()) == {"error"} and set(err) == {"status", "type", "message"}
        assert (err["status"], err["type"]) == (503, "storage_unavailable")
        assert err["message"].startswith("the server could not save the deletion (") and "nothing changed" in err[
            "message"] and "\n" not in err["message"]
        assert mid in app.state.matches._matches  # still here: the token still works
        assert c.get(url, headers=auth(token)).json() == before
        db.conn.execute("PRAGMA query_only = OFF")
    db.close()
    again = MatchStore(BotPool(BOTS), NO_LIMITS, db=MatchDB(path))  # and still in the file: rebuilt at a start
    assert again.rebuilt == 1 and again.view(mid, token)["seq"] == before["seq"]
    again.delete(mid, token)  # a deletion that is written is for good
    again.db.close()
    last = MatchStore(BotPool(BOTS), NO_LIMITS, db=MatchDB(path))
    assert last.rebuilt == 0 and last.db.count() == (0, 0)
    with pytest.raises(RequestError) as e:
        last.view(mid, token)
    assert e.value.status == 404
    last.db.close()


def test_making_room_the_file_cannot_take_is_503_and_drops_nothing(tmp_path):
    db = MatchDB(tmp_path / "m.db")
    store = MatchStore(BotPool(BOTS), Limits(client_rate=0, token_rate=0, max_matches=1, max_matches_per_client=0,
                                             evict_after_seconds=0), db=db)
    old = store.create("seven_up", ["human", "heuristic"], seed=1)["match_id"]
    db.conn.execute("PRAGMA query_only = ON")
    with pytest.raises(RequestError) as e:
        store.create("seven_up", ["human", "heuristic"], seed=2)  # the stalled match would go to make room
    assert (e.value.status, e.value.type) == (503, "storage_unavailable") and "nothing changed" in e.value.message
    assert list(store._matches) == [old] and db.count()[0] == 1
    db.conn.execute("PRAGMA query_only = OFF")
    new = store.create("seven_up", ["human", "heuristic"], seed=2)["match_id"]
    assert list(store._matches) == [new] and db.count()[0] == 1
    db.close()


# ---------------------------------------------------------------------- 2. the token is checked under the lock
class LandsFirst:
    """A match's lock whose next acquisition first runs ``then`` (a join or a deletion, itself under the lock):
    whatever a request looked up before taking the lock is exactly what such a race makes stale."""

    def __init__(self, lock, then):
        self.lock, self.then = lock, then

    def __enter__(self):
        then, self.then = self.then, None
        if then is not None:
            then()
        return self.lock.__enter__()

    def __exit__(self, *exc):
        return self.lock.__exit__(*exc)


def test_a_join_landing_mid_request_leaves_the_old_token_nothing(tmp_path):
    app = create_app(BOTS, limits=NO_LIMITS, db=MatchDB(tmp_path / "m.db"))
    store = app.state.matches
    with TestClient(app, base_url=LOCAL) as c:
        made = two_people(c)
        mid, seat = made["match_id"], made["to_move"]
        old, code = made["tokens"][seat]["token"], made["joins"][seat]["code"]
        record = store.record(mid)
        legal = store._matches[mid].state.legal_actions()
        assert legal
        joined = []
        match = store._matches[mid]
        match.lock = LandsFirst(match.lock, lambda: joined.append(store.join(mid, code)))
        r = c.post(f"/v1/matches/{mid}/moves", json={"action": "STAND" if 52 in legal else "2C"}, headers=auth(old))
        assert joined and joined[0]["seat"] == seat  # the join landed between the lookup of the match and the lock
        err = r.json()["error"]
        assert r.status_code == 403 and err["type"] == "forbidden", r.text
        assert store.record(mid) == record  # the move was not applied
        new = c.get(f"/v1/matches/{mid}", headers=auth(joined[0]["token"])).json()
        assert new["seat"] == seat and new["your_turn"] and new["seq"] == made["seq"]
        assert c.get(f"/v1/matches/{mid}", headers=auth(old)).status_code == 403
    store.db.close()


def test_a_deletion_landing_mid_request_leaves_the_move_a_404(tmp_path):
    app = create_app(BOTS, limits=NO_LIMITS, db=MatchDB(tmp_path / "m.db"))
    store = app.state.matches
    with TestClient(app, base_url=LOCAL) as c:
        made = two_people(c)
        mid, seat = made["match_id"], made["to_move"]
        other = made["tokens"][1 - seat]["token"]
        match = store._matches[mid]
        match.lock = LandsFirst(match.lock, lambda: store.delete(mid, other))
        r = c.post(f"/v1/matches/{mid}/moves", json={"action": "STAND"}, headers=auth(made["tokens"][seat]["token"]))
        assert r.status_code == 404 and r.json()["error"]["type"] == "no_match", r.text
        assert mid not in store._matches and store.db.count() == (0, 0)  # nothing written for a match gone
    store.db.close()


# ---------------------------------------------------------------------- 3. the file deleted under the server
def _replace(path):
    other = path.with_name("other.db")
    MatchDB(other).close()
    os.replace(other, path)


@pytest.mark.parametrize("how,words", [(os.unlink, "was deleted"), (_replace, "was replaced by another file")])
def test_a_match_file_gone_under_the_server_refuses_every_change_and_says_so_once(tmp_path, capfd, how, words):
    path = tmp_path / "m.db"
    app = create_app(BOTS, limits=NO_LIMITS, db=MatchDB(path))
    store = app.state.matches
    with TestClient(app, base_url=LOCAL) as c:
        made = two_people(c)
        mid, seat = made["match_id"], made["to_move"]
        token = made["tokens"][seat]["token"]
        url = f"/v1/matches/{mid}"
        before = c.get(url, headers=auth(token)).json()
        how(path)
        capfd.readouterr()
        for _ in range(2):
            r = c.post(url + "/moves", json={"action": before["view"]["legal_actions"][0]}, headers=auth(token))
            err = r.json()["error"]
            assert r.status_code == 503 and err["type"] == "storage_unavailable", r.text
            assert f"the match file {path} {words} while the server ran" in err["message"]
            assert "restarted" in err["message"] and "nothing changed" in err["message"]
        assert c.get(url, headers=auth(token)).json() == before  # nothing changed in memory
        assert c.post("/v1/matches", json={"preset": "seven_up", "seats": ["human", "random"]}).status_code == 503
        assert c.delete(url, headers=auth(token)).status_code == 503 and mid in store._matches
        logged = capfd.readouterr().err.splitlines()
        assert len([line for line in logged if words in line]) == 1, logged  # one line, the first time
        assert logged[0].startswith(f"allfours serve: error: the match file {path} {words} while the server ran")
        if not path.exists():  # a second server may take the path now: this one writes nothing into its file
            second = MatchDB(path)
            assert c.post(url + "/moves", json={"action": before["view"]["legal_actions"][0]},
                          headers=auth(token)).status_code == 503
            assert second.count() == (0, 0)
            second.close()
    store.db.close()


def test_a_file_gone_is_a_sqlite_error_like_any_failed_write(tmp_path):
    db = MatchDB(tmp_path / "m.db")
    os.unlink(db.path)
    with pytest.raises(sqlite3.OperationalError, match="was deleted while the server ran"):
        db.touch("x")
    db.close()


def _replace_journal(journal):
    journal.with_name("other-wal").write_bytes(b"")
    os.replace(journal.with_name("other-wal"), journal)


@pytest.mark.parametrize("how,words", [(os.unlink, "was deleted"), (_replace_journal, "was replaced by another file")])
def test_a_journal_gone_under_the_server_refuses_every_change_and_loses_nothing_acknowledged(tmp_path, capfd, how,
                                                                                           words):
    """The issue's case: the -wal file removed, more moves (once all 200), then the server killed: every match
    was gone at the next start. Now the moves after the removal are 503, and what was acknowledged is in the
    main file, which is all a kill -9 leaves (the journal deleted goes with the process)."""
    path = tmp_path / "m.db"
    journal = tmp_path / "m.db-wal"
    app = create_app(BOTS, limits=NO_LIMITS, db=MatchDB(path))
    store = app.state.matches
    with TestClient(app, base_url=LOCAL) as c:
        made = two_people(c)
        mid, tokens = made["match_id"], {t["seat"]: t["token"] for t in made["tokens"]}
        url = f"/v1/matches/{mid}"
        for _ in range(4):  # a few moves, acknowledged
            view = c.get(url, headers=auth(tokens[made["to_move"]])).json()["view"]
            seat = view["to_move"]
            mine = c.get(url, headers=auth(tokens[seat])).json()["view"]
            r = c.post(url + "/moves", json={"action": mine["legal_actions"][0]}, headers=auth(tokens[seat]))
            assert r.status_code == 200, r.text
        acknowledged = store.record(mid)
        seat = c.get(url, headers=auth(tokens[0])).json()["view"]["to_move"]
        before = c.get(url, headers=auth(tokens[seat])).json()
        assert journal.exists()
        how(journal)
        capfd.readouterr()
        for _ in range(3):
            r = c.post(url + "/moves", json={"action": before["view"]["legal_actions"][0]}, headers=auth(tokens[seat]))
            err = r.json()["error"]
            assert r.status_code == 503 and err["type"] == "storage_unavailable", r.text
            assert f"the match file's journal {journal} {words} while the server ran" in err["message"]
            assert "restarted" in err["message"] and "nothing changed" in err["message"]
        assert c.post("/v1/matches", json={"preset": "seven_up", "seats": ["human", "random"]}).status_code == 503
        assert c.delete(url, headers=auth(tokens[0])).status_code == 503
        assert store.record(mid) == acknowledged and c.get(url, headers=auth(tokens[seat])).json() == before
        logged = capfd.readouterr().err.splitlines()
        assert len([line for line in logged if words in line]) == 1, logged  # one line, the first time
        assert logged[0].startswith(f"allfours serve: error: the match file's journal {journal} {words} while")
        # What a kill -9 now leaves: the main file (the deleted journal dies with the process; a replaced one is
        # not this file's). Every acknowledged move is in it.
        shutil.copy(path, tmp_path / "after.db")
    store.db.close()
    again = MatchStore(BotPool(BOTS), NO_LIMITS, db=MatchDB(tmp_path / "after.db"))
    assert again.rebuilt == 1 and again.record(mid) == acknowledged
    assert again.view(mid, tokens[seat]) == store.view(mid, tokens[seat])
    again.db.close()


def _moves(store: MatchStore, mid: str, tokens: dict, n: int) -> None:
    for _ in range(n):
        seat = store.view(mid, tokens[0])["view"]["to_move"]
        store.move(mid, tokens[seat], store.view(mid, tokens[seat])["view"]["legal_actions"][0])


def test_a_read_notices_a_journal_gone_and_saves_what_it_held(tmp_path, capfd):
    """Any request for a match notices the journal gone, a read too, and copies what the journal held into the
    main file at once: a kill -9 right after loses nothing, though no write came."""
    store = MatchStore(BotPool(BOTS), NO_LIMITS, db=MatchDB(tmp_path / "m.db"))
    made = store.create("traditional", ["human", "human"], {"players": 2}, seed=5)
    mid, tokens = made["match_id"], {t["seat"]: t["token"] for t in made["tokens"]}
    _moves(store, mid, tokens, 3)
    acknowledged = store.record(mid)
    shutil.copy(store.db.path, tmp_path / "before.db")  # what a kill -9 would leave now: the moves in the journal
    before = MatchStore(BotPool(BOTS), NO_LIMITS, db=MatchDB(tmp_path / "before.db"))
    assert before.rebuilt == 0
    before.db.close()
    os.unlink(tmp_path / "m.db-wal")
    capfd.readouterr()
    assert store.view(mid, tokens[0])["seq"] > made["seq"]  # a read, answered as before
    logged = capfd.readouterr().err
    assert f"the match file's journal {tmp_path / 'm.db-wal'} was deleted while the server ran" in logged
    shutil.copy(store.db.path, tmp_path / "after.db")
    again = MatchStore(BotPool(BOTS), NO_LIMITS, db=MatchDB(tmp_path / "after.db"))
    assert again.rebuilt == 1 and again.record(mid) == acknowledged
    again.db.close()
    store.db.close()


def test_a_journal_deleted_during_a_commit_keeps_that_move(tmp_path, monkeypatch, capfd):
    """The journal deleted while a move commits: the move was acknowledged, so it is copied into the main file
    and stands; the next one is refused."""
    store = MatchStore(BotPool(BOTS), NO_LIMITS, db=MatchDB(tmp_path / "m.db"))
    made = store.create("traditional", ["human", "human"], {"players": 2}, seed=5)
    mid, tokens = made["match_id"], {t["seat"]: t["token"] for t in made["tokens"]}
    _moves(store, mid, tokens, 1)

    def delete_in_commit(where):
        if where == "in_commit":
            os.unlink(tmp_path / "m.db-wal")
    store.db.on_commit = delete_in_commit  # MatchDB(on_commit=...): inside the transaction of the next move
    _moves(store, mid, tokens, 1)  # answered: committed, and in the main file
    store.db.on_commit = None
    acknowledged = store.record(mid)
    with pytest.raises(RequestError) as e:
        _moves(store, mid, tokens, 1)
    assert (e.value.status, e.value.type) == (503, "storage_unavailable") and "journal" in e.value.message
    assert store.record(mid) == acknowledged
    assert capfd.readouterr().err.count("was deleted while the server ran") == 1
    shutil.copy(store.db.path, tmp_path / "after.db")
    again = MatchStore(BotPool(BOTS), NO_LIMITS, db=MatchDB(tmp_path / "after.db"))
    assert again.record(mid) == acknowledged and len(acknowledged["actions"]) >= 2
    again.db.close()
    store.db.close()
