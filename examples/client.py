"""A small All Fours bot client using only the Python standard library (see docs/protocol.md).

    allfours serve &                                   # HTTP server on 127.0.0.1:8000
    python examples/client.py                          # ask it for moves
    python examples/client.py --stdio                  # or run the bot as a subprocess (JSON lines)

A frontend keeps its own game; to get the bot's move it sends the seat's view: what that seat
has seen of the hand so far. The two functions below are all it needs.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import urllib.error
import urllib.request


def ask_http(url: str, view: dict, timeout: float = 30) -> dict:
    """POST the view to /v1/act; returns the answer, or {"error": {...}} for a refused view."""
    req = urllib.request.Request(url.rstrip("/") + "/v1/act", data=json.dumps(view).encode(),
                                 headers={"content-type": "application/json"}, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return json.load(r)
    except urllib.error.HTTPError as e:  # 4xx: the body says what is wrong with the view
        return json.load(e)


class SubprocessBot:
    """``allfours bot`` as a child process: one JSON line in, one JSON line out."""

    def __init__(self, *args: str, command=("allfours",)):
        self.proc = subprocess.Popen([*command, "bot", *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, bufsize=1)

    def ask(self, view: dict) -> dict:
        self.proc.stdin.write(json.dumps(view) + "\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(10)


# Seven Up: seat 0 (eldest) begged; the dealer (seat 1) decides: give one or run the pack.
SEVEN_UP = {"preset": "seven_up", "seat": 1, "dealer": 1, "scores": [3, 4],
            "hand": ["2C", "3C", "7C", "9H", "QH", "QS"], "turnups": ["6C"],
            "decisions": [{"seat": 0, "action": "BEG"}]}

# Yorkshire: trick 3 in progress; seat 1 threw its hand in; seat 2 to play (trump: clubs, the first lead).
YORKSHIRE = {"preset": "yorkshire", "seat": 2, "dealer": 1, "scores": [0, 0], "hand": ["JD", "6S", "9S"],
             "tricks": [
                 {"plays": [{"seat": 2, "card": "2C"}, {"seat": 3, "card": "9C"}, {"seat": 0, "card": "TD"},
                            {"seat": 1, "card": "5C"}]},
                 {"plays": [{"seat": 3, "card": "8D"}, {"seat": 0, "card": "KD"}, {"seat": 1, "card": "9D"},
                            {"seat": 2, "card": "2D"}]},
                 {"plays": [{"seat": 0, "card": "9H"}, {"seat": 1, "action": "THROW_IN",
                                                        "cards": ["5D", "2H", "8H", "3S"]},
                            {"seat": 2, "card": "6H"}, {"seat": 3, "card": "5H"}]},
                 {"plays": [{"seat": 0, "card": "KS"}]}]}

# Not possible: the seat claims to hold a card that was already played (9C, trick 1).
IMPOSSIBLE = {**YORKSHIRE, "hand": ["JD", "6S", "9C"]}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--url", default="http://127.0.0.1:8000")
    p.add_argument("--stdio", action="store_true", help="run `allfours bot` as a subprocess instead of HTTP")
    p.add_argument("--command", default="allfours", help="how to run the allfours command (with --stdio)")
    p.add_argument("--bot", default="heuristic")
    args = p.parse_args(argv)
    views = [("seven_up", SEVEN_UP), ("yorkshire", YORKSHIRE), ("impossible", IMPOSSIBLE)]
    if args.stdio:
        bot = SubprocessBot("--bot", args.bot, command=args.command.split())
        answers = [(name, bot.ask({**v, "id": name})) for name, v in views]
        bot.close()
    else:
        with urllib.request.urlopen(args.url.rstrip("/") + "/v1/bots", timeout=10) as r:
            offered = [b["name"] for b in json.load(r)["bots"]]
        print(f"bots on offer: {offered}")
        answers = [(name, ask_http(args.url, {**v, "bot": args.bot, "id": name})) for name, v in views]
    failed = 0
    for name, a in answers:
        if "error" in a:
            print(f"{name}: refused ({a['error']['status']} {a['error']['type']}): {a['error']['message']}")
            failed += name != "impossible"
        else:
            print(f"{name}: {a['bot']['name']} plays {a['action']} (legal: {', '.join(a['legal_actions'])})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
