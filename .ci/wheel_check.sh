#!/usr/bin/env bash
# The wheel works anywhere: build it from the checkout, install it (no extras) into a fresh venv
# and run the documented commands from an empty folder that holds a user's own train.py and
# agents.py, so nothing can lean on the repository layout or import the user's modules.
# One line per check; on the first failure it prints the command's output and exits non-zero.
# Usage: .ci/wheel_check.sh [WORK_DIR]   (kept afterwards; default: a temporary folder, removed)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
keep="${1:-}"
work="${keep:-$(mktemp -d)}"
mkdir -p "$work" && work="$(cd "$work" && pwd)"
start=$SECONDS
log="$work/check.log"
server_pid=""
cleanup() {
    if [[ -n $server_pid ]]; then kill "$server_pid" 2>/dev/null || true; fi
    if [[ -z $keep ]]; then rm -rf "$work"; fi
}
trap cleanup EXIT

ok() { printf 'wheel check: ok    %-9s %s\n' "$1" "$2"; }
fail() {
    printf 'wheel check: FAIL  %-9s %s\n' "$1" "$2" >&2
    if [[ -s $log ]]; then echo "---- its output (last 60 lines) ----" >&2; tail -n 60 "$log" >&2; fi
    exit 1
}
# run NAME CMD...: CMD's output goes to $log; a non-zero exit fails check NAME.
run() {
    local name="$1" rc=0
    shift
    "$@" >"$log" 2>&1 || rc=$?
    [[ $rc == 0 ]] || fail "$name" "exit $rc: $*"
}

# Build from a copy of the tracked and untracked (not ignored) files: setuptools would also ship
# whatever a stale build/ in the checkout still holds.
copy_tree() {
    python3 - "$repo" "$work/src" <<'PY'
import shutil, subprocess, sys
from pathlib import Path

repo, dst = map(Path, sys.argv[1:])
out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=repo,
                     check=True, capture_output=True).stdout.decode()
for name in filter(None, out.split("\0")):
    if (repo / name).is_file():  # a tracked file deleted in the checkout stays out
        (dst / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(repo / name, dst / name)
PY
}
rm -rf "$work/src" "$work/dist" "$work/venv" "$work/user"
run copy copy_tree
run build python3 -m pip wheel -q --no-deps -w "$work/dist" "$work/src"
whl="$(ls "$work"/dist/allfours-*.whl)"
run contents python3 - "$whl" "$work/src" <<'PY'
import sys, zipfile
from pathlib import Path

names = set(zipfile.ZipFile(sys.argv[1]).namelist())
tops = {n.split("/")[0] for n in names if ".dist-info/" not in n}
assert tops == {"allfours", "allfours_env"}, f"top-level names in the wheel: {sorted(tops)}"
bots = ("yorkshire", "traditional", "traditional_2p", "seven_up")
want = ([f"allfours/checkpoints/{b}.{x}" for b in bots for x in ("pt", "md")]
        + [f"allfours/configs/{c}.yaml" for c in bots + ("smoke",)])
# Every file of the package folders ships (a data file that setuptools leaves out fails here),
# where pyproject.toml's package-dir puts its folder.
src = Path(sys.argv[2])
folders = {"allfours_env": "allfours_env", "allfours": "allfours", "agents": "allfours/agents",
           "train": "allfours/train", "checkpoints": "allfours/checkpoints", "configs": "allfours/configs"}
want += [f"{target}/{f.relative_to(src / folder).as_posix()}" for folder, target in folders.items()
         for f in sorted((src / folder).rglob("*")) if f.is_file()]
missing = [w for w in want if w not in names]
assert not missing, f"missing from the wheel: {missing}"
PY
ok build "$(basename "$whl"): allfours and allfours_env at the top, every file of their folders inside"

python3 -m venv "$work/venv"
py="$work/venv/bin/python"
run install "$py" -m pip install -q torch==2.13.0
run install "$py" -m pip install -q "$whl"
ok install "fresh venv: torch==2.13.0, then the wheel with its dependencies ($((SECONDS - start)) s so far)"

# The user's folder: their own train.py and agents.py must never be what gets imported.
user="$work/user"
mkdir -p "$user"
echo "raise SystemExit(\"the user's train.py was imported\")" >"$user/train.py"
echo "raise SystemExit(\"the user's agents.py was imported\")" >"$user/agents.py"
cd "$user"
export PATH="$work/venv/bin:$PATH"
unset PYTHONPATH PYTHONHOME
export PYTHONDONTWRITEBYTECODE=1

version="$("$py" -c 'from importlib.metadata import version; print(version("allfours"))')"
run version allfours --version
grep -qx "allfours $version" "$log" || fail version "printed '$(head -c 200 "$log")', not 'allfours $version'"
ok version "allfours $version"

run load_bot "$py" - <<'PY'
import sys

import allfours
import allfours_env
from allfours.agents import load_bot
from allfours_env import GameState

for mod in (allfours, allfours_env):
    assert "site-packages" in mod.__file__, f"{mod.__name__} imported from {mod.__file__}, not from the wheel"
bot = load_bot("yorkshire")
state = GameState.new("yorkshire", seed=3)
for _ in range(12):
    action = bot.act(state, state.current_player)
    assert action in state.legal_actions(), f"illegal action {action}"
    state.apply(action)
assert not {"agents", "train"} & set(sys.modules), "a top-level agents or train module was imported"
PY
ok load_bot 'load_bot("yorkshire") played 12 legal moves of a yorkshire game'

run eval allfours eval --preset yorkshire --agents bot:yorkshire random --matches 4 --json "$user/eval.json"
[[ -s $user/eval.json ]] || fail eval "no eval.json written"
ok eval "bot:yorkshire vs random, 4 matches: $(grep -m1 -i "bot:yorkshire" "$log" | tr -s ' ' | head -c 90)"

run train allfours train --config smoke max_minutes=0.1 progress_bar=false run_name=ci
[[ -f runs/ci/latest.pt ]] || fail train "no runs/ci/latest.pt under the working folder"
ok train "smoke config, 6 s: wrote runs/ci/latest.pt"

# The server is the [serve] extra: without it one line says what to install; with it the checks below run.
rc=0
allfours serve --port 1 >"$log" 2>&1 || rc=$?
[[ $rc == 2 ]] && grep -q "pip install 'allfours\[serve\]'" "$log" && [[ $(wc -l <"$log") == 1 ]] \
    || fail serve "without the [serve] extra: exit $rc, not one line naming the extra"
ok serve "without the [serve] extra: $(cut -c1-90 "$log")"
run serve "$py" -m pip install -q "$whl[serve]"

port="$("$py" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
allfours serve --port "$port" --db :memory: >"$work/serve.log" 2>&1 &
server_pid=$!
serve_check() {
    "$py" - "$port" "$server_pid" <<'PY' || { cat "$work/serve.log"; return 1; }
import json, os, sys, time, urllib.request

port, pid = sys.argv[1], int(sys.argv[2])
deadline = time.monotonic() + 120
while True:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/bots", timeout=10) as r:
            bots = [b["name"] for b in json.load(r)["bots"]]
        break
    except OSError:
        os.kill(pid, 0)  # raises once the server has exited
        if time.monotonic() > deadline:
            raise
        time.sleep(0.25)
want = ["bot:yorkshire", "bot:traditional", "bot:traditional_2p", "bot:seven_up"]
missing = [b for b in want if b not in bots]
assert not missing, f"GET /v1/bots lists {bots}: {missing} missing"
print(" ".join(bots))
PY
}
run serve serve_check
kill "$server_pid"
wait "$server_pid" 2>/dev/null || true
server_pid=""
ok serve "GET /v1/bots on 127.0.0.1:$port: $(cat "$log"); stopped"

request='{"seat": 1, "dealer": 1, "scores": [3, 4], "hand": ["2C", "3C", "7C", "9H", "QH", "QS"], '
request+='"turnups": ["6C"], "decisions": ["BEG"], "id": 1}'
run bot allfours bot --preset seven_up --bot bot:seven_up <<<"$request"
answer="$(cat "$log")"
run bot "$py" -c '
import json, sys
lines = sys.argv[1].splitlines()
assert len(lines) == 1, f"{len(lines)} lines: {lines}"
a = json.loads(lines[0])
assert a["action"] in ("GIVE_ONE", "RUN_PACK") and a["id"] == 1 and a["bot"]["name"] == "bot:seven_up", a
' "$answer"
ok bot "one JSON line: $(head -c 70 <<<"$answer")..."

# 'quit' leaves with exit status 0; input that ends before it would exit 1.
run play allfours play --preset yorkshire --seed 1 < <(printf '1\n1\n1\n1\nquit\n')
grep -q "Game abandoned (quit)" "$log" || fail play "did not end with 'Game abandoned (quit)'"
[[ $(grep -o "Your move: " "$log" | wc -l) -ge 5 ]] || fail play "asked for fewer than five moves"
ok play "against bot:yorkshire: four moves from stdin, then quit"

# ONNX is an extra: the checks above ran without it; it installs in a few seconds, then export runs.
run export "$py" -m pip install -q "$whl[onnx]"
run export allfours export bot:seven_up -o x.onnx
[[ -s x.onnx && -s x.card.json ]] || fail export "x.onnx or x.card.json not written"
grep -q "onnxruntime matches PyTorch" "$log" || fail export "onnxruntime did not check the golden vectors"
ok export "with the [onnx] extra: $(cat "$log")"

echo "wheel check: all passed in $((SECONDS - start)) s"
