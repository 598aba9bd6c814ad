"""Where hosted matches are kept across restarts: an SQLite file (the standard library's ``sqlite3``, WAL mode).

``MatchDB(path)`` opens (or creates) the file; ``MatchDB.open(":memory:")`` is ``None``: no persistence.
What is kept is only what rebuilds a match exactly: its preset, options, seed, seats, the creating client's
address, the hashes of its seat tokens and join codes (never a token or a code) and every action in order,
the bots' included, each with its seat. The engine is deterministic given the seed and the actions, so
replaying them (``hosted.MatchStore`` does it on start) gives the same state, the same event log and ``seq``.

Each change is one transaction, committed before the server answers: a new match with the bots' first moves,
a person's move with the bots' replies, a join, a deletion. A process killed at any moment (``kill -9``)
therefore keeps every move it acknowledged, and a move cut off mid-write is there whole or not at all (SQLite's
atomic commit). ``synchronous=FULL``: a commit is on the disk, not only handed to the operating system, so a
power cut loses no acknowledged move either.

The schema has a version (``PRAGMA user_version``) and the file an owner (``PRAGMA application_id``), so that
a damaged file, another program's database or one written by a newer release each get one clear
``StoreError`` instead of a traceback, and a later release can migrate an older file (``MIGRATIONS``).

One server process owns one file (a second one opening it is refused: ``flock``), and writes to it only while
the file at its path, and its journal (``PATH-wal``), are still the ones it opened: a file deleted (or replaced)
under a running server would lose every later change at the next start, and a journal deleted would lose every
change it held, so each write is refused with ``FileGone`` instead. A journal gone is noticed at the next request
for a hosted match (``notice``), read or write, or at the commit it happens during, and what it held is then
copied into the main file at once (a checkpoint: the open connection still reads the journal deleted), so
nothing acknowledged is lost unless the server is killed before any request noticed it. Past one machine,
the same tables go into a shared SQL database (PostgreSQL, say) that every server process reaches: see
docs/protocol.md, "Keeping matches".
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

try:
    import fcntl
except ImportError:  # not on POSIX: no guard against a second server on the same file
    fcntl = None

SCHEMA_VERSION = 1
APPLICATION_ID = 0x41463448  # "AF4H": an allfours hosted-matches file
HEADER = b"SQLite format 3\x00"
MEMORY = ":memory:"

SCHEMA = """
CREATE TABLE matches (
    id TEXT PRIMARY KEY,
    preset TEXT NOT NULL,
    options TEXT NOT NULL,          -- JSON: the options given to make_rules
    seed INTEGER NOT NULL,
    seats TEXT NOT NULL,            -- JSON: "human" or a bot spec, per seat
    tokens TEXT NOT NULL,           -- JSON: {seat: sha256 of the seat's token}
    joins TEXT NOT NULL,            -- JSON: {seat: sha256 of its join code}
    taken TEXT NOT NULL,            -- JSON: the human seats a person holds (its token used, or its join link)
    client TEXT NOT NULL,           -- the address that created it (the per-client cap)
    created REAL NOT NULL,          -- wall-clock seconds
    touched REAL NOT NULL,          -- the latest request (idle expiry), updated at most once a minute on reads
    moved REAL NOT NULL             -- the latest move of a person, or the creation (eviction when full)
);
CREATE TABLE actions (
    match_id TEXT NOT NULL REFERENCES matches(id) ON DELETE CASCADE,
    n INTEGER NOT NULL,             -- 0, 1, 2, ...: the order of the match
    seat INTEGER NOT NULL,
    action INTEGER NOT NULL,        -- the action id, 0..56 (docs/rules.md section 6)
    PRIMARY KEY (match_id, n)
) WITHOUT ROWID;
"""
# A later schema version N adds MIGRATIONS[N]: the SQL that takes a file from version N - 1 to N.
MIGRATIONS: dict[int, str] = {}


class StoreError(Exception):
    """The match file cannot be used: the message says why, in one line, and what to do."""


class FileGone(sqlite3.OperationalError):
    """The file at the path is no longer the one this server opened (deleted, or another put in its place):
    nothing written now would be found at the next start. A ``sqlite3.Error``, as every other failed write."""


def digest(secret: str) -> str:
    """What is kept of a token or a join code: its SHA-256 (they are 192 random bits: no salt or stretching)."""
    return hashlib.sha256(secret.encode()).hexdigest()


def default_path() -> Path:
    """``$XDG_STATE_HOME/allfours/matches.db``, else ``~/.local/state/allfours/matches.db``."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "allfours" / "matches.db"


class MatchDB:
    """The hosted matches' file. Thread-safe: one connection, one writer at a time."""

    def __init__(self, path: str | os.PathLike, clock=time.time, on_commit: Callable[[str], None] | None = None):
        self.path, self.clock = Path(path), clock  # the wall clock: what is kept must mean the same after a restart
        # Called at two points of each write of actions (a new match, a move): ``"in_commit"`` with the rows
        # written but not committed, ``"after_commit"`` once committed, before the server answers.
        self.on_commit = on_commit
        self._lock = threading.Lock()
        self._owner = None  # an open descriptor of the file, holding its flock while this process uses it
        self.closed = False
        self.conn = self._connect()
        self.journal = self.path.with_name(self.path.name + "-wal")  # SQLite's WAL: it lives while the file is open
        # Which files these are (device, inode): the ones at the paths must stay them (``_check_file``).
        st = os.fstat(self._owner) if self._owner is not None else os.stat(self.path)
        self._identity, self.gone = (st.st_dev, st.st_ino), None
        try:
            st = os.stat(self.journal)
        except OSError as e:
            self.conn.close()
            self._release()
            raise StoreError(f"{self.path}: SQLite keeps no journal at {self.journal} ({e.strerror}): give --db a "
                             "file on a local disk") from None
        self._journal_identity = (st.st_dev, st.st_ino)

    @classmethod
    def open(cls, path: str | os.PathLike | None, clock=time.time,
             on_commit: Callable[[str], None] | None = None) -> MatchDB | None:
        """``None`` for ``None`` or ``":memory:"`` (matches in memory only), else the file at ``path``."""
        if path is None or str(path) == MEMORY:
            return None
        return cls(path, clock, on_commit)

    # ------------------------------------------------------------------ opening and checking the file
    def _connect(self) -> sqlite3.Connection:
        path = self.path
        if path.is_dir():
            raise StoreError(f"{path} is a folder: give --db a file (or :memory: to keep no matches)")
        try:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            if path.exists():
                with open(path, "rb") as f:
                    head = f.read(len(HEADER))
                if head and head != HEADER:
                    raise StoreError(f"{path} is not an SQLite database (damaged, or another kind of file): "
                                     "give --db another file, or move this one away")
            else:  # the seeds give away every deal: only the owner may read the file (WAL files get the same mode)
                os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
        except OSError as e:
            raise StoreError(f"cannot open {path}: {e.strerror}") from None
        self._claim()
        try:
            conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=10)
        except sqlite3.Error as e:
            self._release()
            raise StoreError(f"cannot open {path}: {e}") from None
        try:
            self._check(conn)
        except sqlite3.DatabaseError as e:
            conn.close()
            self._release()
            raise StoreError(f"{path} is damaged or not an allfours match file ({e}): give --db another file, "
                             "or move this one away") from None
        except StoreError:
            conn.close()
            self._release()
            raise
        return conn

    def _claim(self) -> None:
        """Hold the file's flock (SQLite's own locks are fcntl locks, which flock does not touch): a second
        server on the same file would not see the first one's matches, nor it the second's."""
        if fcntl is None:
            return
        try:
            fd = os.open(self.path, os.O_RDONLY)
        except OSError as e:
            raise StoreError(f"cannot open {self.path}: {e.strerror}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise StoreError(f"{self.path} is in use by another allfours server: give --db another file, or stop "
                             "that server first") from None
        self._owner = fd

    def _release(self) -> None:
        if self._owner is not None:
            os.close(self._owner)  # closing the descriptor drops the flock
            self._owner = None

    def _check(self, conn: sqlite3.Connection) -> None:
        path = self.path
        ok = conn.execute("PRAGMA quick_check").fetchone()[0]
        if ok != "ok":
            raise StoreError(f"{path} is damaged (SQLite's check says: {ok}): give --db another file, or move "
                             "this one away")
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        if app_id == 0 and not tables:  # a new (empty) file
            mode = conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if mode.lower() != "wal":
                raise StoreError(f"{path}: SQLite could not switch to WAL mode (got {mode!r})")
            conn.executescript(f"BEGIN; {SCHEMA} PRAGMA application_id = {APPLICATION_ID}; "
                               f"PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;")
            version = SCHEMA_VERSION
        elif app_id != APPLICATION_ID:
            shown = ", ".join(tables[:5]) + (" ..." if len(tables) > 5 else "")
            raise StoreError(f"{path} is an SQLite database of another program (tables: {shown or 'none'}), not "
                             "an allfours match file: give --db another file")
        if version > SCHEMA_VERSION:
            raise StoreError(f"{path} was written by a newer allfours (schema version {version}; this one reads "
                             f"up to {SCHEMA_VERSION}): upgrade allfours, or give --db another file")
        if version < 1:
            raise StoreError(f"{path} has no schema version (user_version {version}): not a file this allfours "
                             "wrote; give --db another file")
        mode = conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
        if mode.lower() != "wal":
            raise StoreError(f"{path}: SQLite could not switch to WAL mode (got {mode!r})")
        conn.execute("PRAGMA synchronous=FULL")
        conn.execute("PRAGMA foreign_keys=ON")
        for v in range(version + 1, SCHEMA_VERSION + 1):  # an older file: bring it up to date, one step each
            conn.executescript(f"BEGIN; {MIGRATIONS[v]} PRAGMA user_version = {v}; COMMIT;")

    def close(self) -> None:
        """Close the file (SQLite copies its journal in, a deleted one too); a second time does nothing."""
        with self._lock:
            if self.closed:
                return
            self._noticed()  # a journal deleted since the last request is said on stderr
            self.conn.close()
            self.closed = True
            self._release()

    def notice(self) -> None:
        """Check the file and its journal now (every request for a hosted match does): a change is noticed, said
        and the journal copied in at once, not at the next write. Raises nothing: the writes raise."""
        if self.gone is None and self._why() is not None:  # two stats, no lock: the reads do not wait on writes
            with self._lock:
                self._noticed()

    def _why(self) -> str | None:
        return (_changed(self.path, self._identity, f"the match file {self.path}")
                or _changed(self.journal, self._journal_identity, f"the match file's journal {self.journal}"))

    def _noticed(self) -> None:
        try:
            self._check_file()
        except FileGone:
            pass

    def _check_file(self) -> None:
        """``FileGone`` unless the file and its journal at their paths are still the ones opened; the first time,
        one line on stderr, and what the journal held copied into the main file (the open connection still
        reads the journal deleted or replaced at its path: its changes are acknowledged, they must not be lost)."""
        why = self._why()
        if why is None:
            return
        if self.gone is None:
            self._checkpoint()
            print(f"allfours serve: error: {why} while the server ran: every change to a hosted match is refused "
                  "(503 storage_unavailable) until the server is restarted", file=sys.stderr, flush=True)
        self.gone = why
        raise FileGone(f"{why} while the server ran: it keeps no more changes until the server is restarted")

    def _checkpoint(self) -> None:
        """Copy the committed changes from the journal into the main file. A failure leaves them in the journal,
        as committed as before: the write they belong to still stands."""
        try:
            self.conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        except sqlite3.Error as e:
            print(f"allfours serve: warning: the match file {self.path}: cannot copy its journal in ({e})",
                  file=sys.stderr, flush=True)

    # ------------------------------------------------------------------ writing (one transaction each)
    def _write(self, statements: list[tuple[str, tuple]], with_actions: bool = False) -> None:
        with self._lock:
            self._check_file()
            conn = self.conn
            conn.execute("BEGIN IMMEDIATE")
            try:
                for sql, args in statements:
                    conn.execute(sql, args)
                if with_actions and self.on_commit is not None:
                    self.on_commit("in_commit")
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
            self._noticed()  # the journal gone while this committed: copied in now, and this write stands
        if with_actions and self.on_commit is not None:
            self.on_commit("after_commit")

    @staticmethod
    def _action_rows(match_id: str, start: int, actions: list[tuple[int, int]]) -> list[tuple[str, tuple]]:
        return [("INSERT INTO actions (match_id, n, seat, action) VALUES (?, ?, ?, ?)", (match_id, start + k, s, a))
                for k, (s, a) in enumerate(actions)]

    def create(self, match_id: str, preset: str, options: dict, seed: int, seats: list[str], tokens: dict,
               joins: dict, taken: set, client: str, actions: list[tuple[int, int]]) -> None:
        now = self.clock()
        row = (match_id, preset, json.dumps(options, sort_keys=True), seed, json.dumps(seats), json.dumps(tokens),
               json.dumps(joins), json.dumps(sorted(taken)), client, now, now, now)
        self._write([("INSERT INTO matches (id, preset, options, seed, seats, tokens, joins, taken, client, created, "
                      "touched, moved) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", row),
                     *self._action_rows(match_id, 0, actions)], with_actions=True)

    def moved(self, match_id: str, start: int, actions: list[tuple[int, int]]) -> None:
        """The actions from number ``start`` on (a person's move and the bots' replies)."""
        now = self.clock()
        self._write([*self._action_rows(match_id, start, actions),
                     ("UPDATE matches SET touched = ?, moved = ? WHERE id = ?", (now, now, match_id))],
                    with_actions=True)

    def seated(self, match_id: str, tokens: dict, taken: set) -> None:
        """A seat was taken: by its token's first use, or by its join link (a new token)."""
        self._write([("UPDATE matches SET tokens = ?, taken = ?, touched = ? WHERE id = ?",
                      (json.dumps(tokens), json.dumps(sorted(taken)), self.clock(), match_id))])

    def touch(self, match_id: str) -> None:
        self._write([("UPDATE matches SET touched = ? WHERE id = ?", (self.clock(), match_id))])

    def delete(self, match_ids: list[str]) -> None:
        if match_ids:
            self._write([("DELETE FROM matches WHERE id = ?", (m,)) for m in match_ids])

    def delete_idle(self, idle_seconds: float) -> int:
        """Delete every match without a request for ``idle_seconds``; how many went."""
        with self._lock:
            self._check_file()
            cur = self.conn.execute("DELETE FROM matches WHERE touched < ?", (self.clock() - idle_seconds,))
            return cur.rowcount

    # ------------------------------------------------------------------ reading
    def load(self):
        """Every kept match, oldest first: dicts with the columns (JSON decoded) and ``actions`` [(seat, action)]."""
        with self._lock:
            rows = self.conn.execute("SELECT id, preset, options, seed, seats, tokens, joins, taken, client, "
                                     "created, touched, moved FROM matches ORDER BY created").fetchall()
            actions: dict[str, list[tuple[int, int]]] = {r[0]: [] for r in rows}
            for mid, seat, action in self.conn.execute("SELECT match_id, seat, action FROM actions "
                                                       "ORDER BY match_id, n"):
                if mid in actions:
                    actions[mid].append((seat, action))
        keys = ("id", "preset", "options", "seed", "seats", "tokens", "joins", "taken", "client", "created",
                "touched", "moved")
        for r in rows:
            m = dict(zip(keys, r))
            for k in ("options", "seats", "tokens", "joins", "taken"):
                m[k] = json.loads(m[k])
            m["taken"] = set(m["taken"])
            m["tokens"] = {int(s): h for s, h in m["tokens"].items()}
            m["joins"] = {int(s): h for s, h in m["joins"].items()}
            m["actions"] = actions[m["id"]]
            yield m

    def count(self) -> tuple[int, int]:
        """(matches, actions) in the file."""
        with self._lock:
            return (self.conn.execute("SELECT COUNT(*) FROM matches").fetchone()[0],
                    self.conn.execute("SELECT COUNT(*) FROM actions").fetchone()[0])


def _changed(path: Path, identity: tuple[int, int], what: str) -> str | None:
    """``what`` and how it changed (deleted, replaced), or None while ``path`` is still the file ``identity``."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return f"{what} was deleted"
    except OSError as e:
        return f"{what} cannot be checked ({e.strerror})"
    return None if (st.st_dev, st.st_ino) == identity else f"{what} was replaced by another file"


__all__ = ["MEMORY", "MIGRATIONS", "SCHEMA_VERSION", "FileGone", "MatchDB", "StoreError", "default_path",
           "digest"]
