"""Two installs of the project, A and B (say, before and after a change), timed in one alternating run.

    python benchmarks/ab_speed.py --a /tmp/before/bin/python:/tmp/before-src --b .venv/bin/python:. --rounds 3

Each side is ``PYTHON:SOURCE``: the interpreter of that install and the source tree whose
``benchmarks/vector_speed.py`` it runs. Every round runs, for A then B (B then A in odd rounds, so
neither always goes first), ``python -m allfours bench`` (env() and engine decisions per second) and
``benchmarks/vector_speed.py`` (engine, env(), the batched engine's masks and observations); the machine
load is shared alike. It prints, per figure, A's and B's medians over the rounds and B/A, and writes the
raw figures with ``--json``. A ratio within the rounds' own spread is noise.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

NUMBER = re.compile(r"^-?[\d,]+(\.\d+)?x?$")


def side(text: str) -> tuple[str, Path]:
    python, sep, source = text.partition(":")
    if not sep or not python or not source:
        raise argparse.ArgumentTypeError(f"expected PYTHON:SOURCE (an interpreter and its source tree), got {text!r}")
    if not Path(python).exists():
        raise argparse.ArgumentTypeError(f"no interpreter at {python!r}")
    if not (Path(source) / "benchmarks" / "vector_speed.py").exists():
        raise argparse.ArgumentTypeError(f"{source!r} has no benchmarks/vector_speed.py: give the project's source "
                                         "tree")
    return os.path.abspath(python), Path(source)  # absolute, not resolved: a venv's python is a link


def figures(output: str, prefix: str) -> dict[str, float]:
    """The rates of a benchmark's table rows, by '<prefix>/<section>/<row>/<column>' (no ratios, no memory)."""
    out, header, section = {}, None, ""
    for line in output.splitlines():
        words = line.split()
        if line.strip() in SECTIONS:
            section = SECTIONS[line.strip()]
        if not words or header is None and words[0] != "case":
            continue
        if words[0] == "case":
            header = header_columns(words[1:])
            continue
        numbers = [w for w in words if NUMBER.match(w)]
        label = " ".join(w for w in words if not NUMBER.match(w))
        for name, value in zip(header, numbers if label else []):
            if not value.endswith("x") and not name.startswith("MB") and name != "ratio":
                out["/".join(x for x in (prefix, section, label, name) if x)] = float(value.replace(",", ""))
    return out


PAIRS = {("env()", "dec/s"), ("engine", "dec/s"), ("MB", "masks"), ("MB", "obs")}  # names holding a space
SECTIONS = {"wall clock": "wall", "per CPU-second of this process": "cpu"}


def header_columns(header: list[str]) -> list[str]:
    """Column names of a table header ('env() dec/s' and 'MB masks' hold a space)."""
    cols, i = [], 0
    while i < len(header):
        if i + 1 < len(header) and (header[i], header[i + 1]) in PAIRS:
            cols.append(f"{header[i]} {header[i + 1]}")
            i += 2
        else:
            cols.append(header[i])
            i += 1
    return cols


def run(python: str, source: Path, seconds: float, num_envs: int) -> dict[str, float]:
    # from a neutral folder: ``python -m`` puts the working folder first on the path, and a source tree
    # there would shadow the install being timed
    with tempfile.TemporaryDirectory() as cwd:
        bench = subprocess.run([python, "-m", "allfours", "bench", "--seconds", str(seconds), "--repeats", "1"],
                               capture_output=True, text=True, check=True, cwd=cwd).stdout
        vector = subprocess.run([python, str(source.resolve() / "benchmarks" / "vector_speed.py"), "--seconds",
                                 str(seconds), "--repeats", "1", "--num-envs", str(num_envs)],
                                capture_output=True, text=True, check=True, cwd=cwd).stdout
    return {**figures(bench, "bench"), **figures(vector, "vector_speed")}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--a", type=side, required=True, metavar="PYTHON:SOURCE", help="the first install (before)")
    p.add_argument("--b", type=side, required=True, metavar="PYTHON:SOURCE", help="the second install (after)")
    p.add_argument("--rounds", type=int, default=3, help="alternating rounds (default 3); medians over them")
    p.add_argument("--seconds", type=float, default=1.0, help="length of each timed run (default 1)")
    p.add_argument("--num-envs", type=int, default=1024, help="games of the batched engine (default 1024)")
    p.add_argument("--json", default=None, help="also write the raw figures here")
    a = p.parse_args(argv)
    if a.rounds < 1 or a.seconds <= 0 or a.num_envs < 1:
        p.error("--rounds, --seconds and --num-envs must be positive")
    raw: dict[str, list[dict]] = {"a": [], "b": []}
    for r in range(a.rounds):
        for name in (("a", "b") if r % 2 == 0 else ("b", "a")):
            python, source = getattr(a, name)
            print(f"round {r + 1}/{a.rounds}: {name.upper()}", file=sys.stderr, flush=True)
            try:
                raw[name].append(run(python, source, a.seconds, a.num_envs))
            except subprocess.CalledProcessError as e:
                last = (e.stderr or "").strip().splitlines()[-1:] or ["(no message)"]
                p.exit(1, f"ab_speed: {name.upper()}'s benchmark failed: {last[0]}\n")
    keys = [k for k in raw["a"][0] if all(k in run_ for run_ in raw["a"] + raw["b"])]
    print(f"{'figure':<44}{'A':>12}{'B':>12}{'B/A':>7}{'A spread':>10}{'B spread':>10}")
    for k in keys:
        va, vb = ([x[k] for x in raw[s]] for s in ("a", "b"))
        ma, mb = statistics.median(va), statistics.median(vb)
        spread = [(max(v) - min(v)) / statistics.median(v) if statistics.median(v) else 0.0 for v in (va, vb)]
        print(f"{k:<44}{ma:>12,.0f}{mb:>12,.0f}{mb / ma if ma else float('nan'):>7.2f}"
              f"{spread[0]:>9.0%}{spread[1]:>10.0%}")
    if a.json:
        Path(a.json).write_text(json.dumps({"a": str(a.a), "b": str(a.b), "runs": raw}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
