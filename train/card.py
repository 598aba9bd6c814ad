"""Model card of a shipped bot: ``python -m allfours.train.card NAME RESULTS.json ... [--command CMD] [--note TEXT]``.

Writes ``checkpoints/NAME.md`` from what the checkpoint records (preset and rules, network,
training progress, encoding version, the config it was trained with) and from ``allfours eval
--json`` result files of the bot against its opponents (each row with the command that
reproduces it, rebuilt from the file's preset, players, matches and seed).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from allfours.agents.evaluation import eval_command as evaluation_command
from allfours.agents.network.checkpoint import checkpoints_dir, load_checkpoint
from allfours_env.rules import ALLOWED_PLAYERS


def eval_command(doc: dict, agent: str, opponent: str) -> str:
    """The command of one row: the file's preset, its rule options (``--rule partnerships=true`` in Pitch for
    four in partnerships), players where the preset has several counts, matches and seed."""
    options = dict(doc.get("options") or {})
    if len(ALLOWED_PLAYERS.get(doc.get("preset"), ())) > 1:
        options["players"] = doc["players"]
    else:
        options.pop("players", None)
    return evaluation_command([agent, opponent], doc["preset"], options, doc["matches_per_pairing"], doc["seed"])


def rows_for(name: str, paths: list[Path]) -> list[str]:
    rows = []
    for path in paths:
        doc = json.loads(Path(path).read_text())
        for r in doc["results"]:
            if r["agent"] != f"bot:{name}":
                continue
            lo, hi = r["ci95"]
            rows.append(f"| `{r['opponent']}` | {r['matches']} | {r['wins']} | {r['win_rate']:.3f} "
                        f"| {lo:.3f} - {hi:.3f} "
                        f"| {r['points_per_hand']:.3f} - {r['opponent_points_per_hand']:.3f} "
                        f"| `{eval_command(doc, r['agent'], r['opponent'])}` |")
    return rows


def write_card(name: str, results: list[Path], command: str = "", note: str = "", out_dir: Path | None = None):
    out_dir = checkpoints_dir() if out_dir is None else Path(out_dir)
    path = out_dir / f"{name}.pt"
    ck = load_checkpoint(path)
    cfg, prog, rules, arch = ck.get("config", {}), ck.get("progress", {}), ck["rules"], ck["arch"]
    opts = ", ".join(f"{k} {v}" for k, v in rules.items() if k != "preset")
    hidden = " -> ".join(str(h) for h in arch["hidden"])
    init = f"; warm-started from `{cfg['init_from']}`" if cfg.get("init_from") else ""
    lines = [
        f"# Model card: `bot:{name}` (`checkpoints/{name}.pt`)", "",
        "| field | value |", "| --- | --- |",
        f"| preset | `{rules['preset']}` ({opts}) |",
        f"| trained with | `{command or 'allfours train'}` (seed {ck.get('seed')}{init}) |",
        f"| network | shared MLP {arch['obs_size']} -> {hidden}, policy ({arch['num_actions']} masked logits) "
        f"and value heads{'; trump renamed to suit 0' if arch.get('canonical') else ''} |",
        f"| this checkpoint | after {prog.get('train_seconds', 0) / 60:.1f} min of training on this 2-core CPU, "
        f"{prog.get('steps', 0) / 1e6:.1f} M decisions, {prog.get('updates', 0):,} PPO updates "
        f"(budget {cfg.get('max_minutes')} min; optimizer state stripped by `python -m allfours.train.ship`) |",
        f"| play | greedy; the network's policy averaged over the relabellings of the non-trump suits "
        f"(`PolicyNet.averaged`; `bot:{name}:sym=0` plays the raw network); moves within 1e-4 of the best "
        f"logit tie, the lowest action id is played (docs/protocol.md, ONNX export) |",
        f"| observation encoding | version {ck['encoding_version']} ({ck['obs_size']} floats), action ids "
        f"0..{len(ck['action_ids']) - 1} |",
        f"| code | {code_text(ck.get('code_version'), ck.get('created'))} |",
        f"| size | {path.stat().st_size / 1e6:.1f} MB |", "",
        "## Evaluation (duplicate deals, Wilson 95% intervals)", "",
        "| opponent | matches | wins | win rate | 95% CI | points/hand (bot - opp) | command |",
        "| --- | ---: | ---: | ---: | --- | --- | --- |",
        *rows_for(name, results), "",
        "Raw results: " + ", ".join(f"`{p}`" for p in results) + ".",
    ]
    if note:
        lines += ["", note]
    card = out_dir / f"{name}.md"
    card.write_text("\n".join(lines) + "\n")
    return card


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m allfours.train.card", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("name", help="bot name: checkpoints/NAME.pt")
    p.add_argument("results", nargs="*", type=Path, help="allfours eval --json files")
    p.add_argument("--command", default="", help="the training command")
    p.add_argument("--note", default="", help="a closing paragraph")
    args = p.parse_args(argv)
    try:
        card = write_card(args.name, args.results, args.command, args.note)
    except (ValueError, OSError, KeyError) as e:
        print(f"card: {e}", file=sys.stderr)
        return 2
    print(f"wrote {card}")
    return 0


def code_text(version: str | None, created: str | None) -> str:
    """The card's code row in words: ``0.1.0+c7e74b1.dirty`` is package 0.1.0 at commit c7e74b1 with
    uncommitted changes (the commit alone does not give the code exactly)."""
    base, _, local = (version or "unknown").partition("+")
    sha, _, dirty = local.partition(".")
    where = f" at commit {sha}" + (" with uncommitted changes (`.dirty`: the commit alone does not hold that code)"
                                   if dirty else "") if sha else ""
    return (f"trained with allfours {base}{where}, {created}; the checkpoint records it as `{version}`; it plays "
            "under any release that reads its observation encoding")


if __name__ == "__main__":
    raise SystemExit(main())
