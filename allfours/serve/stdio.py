"""The JSON-lines bot protocol over stdin/stdout, for programs that run the bot as a subprocess.

One request per line in (the same JSON object as ``POST /v1/act``), one answer per line out, in
order, flushed after each line. An error is a line too: ``{"error": {"status", "type",
"message"}, "id": ...}`` with the status the HTTP server would give; the process keeps going.
Blank lines are skipped; end of input ends the process (exit status 0). Nothing else is ever
written to stdout; diagnostics go to stderr.

    $ allfours bot --preset seven_up --bot heuristic
    {"seat": 1, "dealer": 0, "scores": [0, 0], "hand": ["2C", ...], "turnups": ["JS"], "id": 1}
    {"action": "BEG", "action_id": 53, "probabilities": null, ..., "id": 1}
"""

from __future__ import annotations

import json
import sys
import traceback

from .core import BotPool, RequestError, answer

MAX_LINE_BYTES = 64 * 1024


def handle_line(line: bytes | str, pool: BotPool, defaults: dict | None = None) -> dict:
    """The answer (or error) object for one request line."""
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError) as e:
        return RequestError(400, "invalid_json", f"the line is not valid JSON: {str(e)[:200]}").body()
    rid = obj.get("id") if isinstance(obj, dict) else None
    if isinstance(rid, bool) or not isinstance(rid, (str, int)):
        rid = None
    try:
        return answer(obj, pool, defaults)
    except RequestError as e:
        return e.body(rid)
    except Exception as e:  # a bug, not a bad request: say so and keep serving
        traceback.print_exc(file=sys.stderr)
        return RequestError(500, "internal", f"internal error: {type(e).__name__}: {e}").body(rid)


def serve_lines(inp, out, pool: BotPool, defaults: dict | None = None, max_line_bytes: int = MAX_LINE_BYTES) -> int:
    """Answer every line of the binary stream ``inp`` on the text stream ``out``; returns the lines answered."""
    answered = 0
    while True:
        raw = inp.readline(max_line_bytes + 1)
        if not raw:
            return answered
        if len(raw) > max_line_bytes and not raw.endswith(b"\n"):
            while raw and not raw.endswith(b"\n"):  # skip the rest of the long line
                raw = inp.readline(max_line_bytes + 1)
            resp = RequestError(413, "too_large", f"the request line is longer than {max_line_bytes} bytes").body()
        else:
            if not raw.strip():
                continue
            resp = handle_line(raw, pool, defaults)
        out.write(json.dumps(resp, separators=(",", ":")) + "\n")
        out.flush()
        answered += 1
