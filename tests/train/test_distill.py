"""allfours.train.lab.distill: search labels of the student's positions, and fitting a network to them."""

import numpy as np
import pytest
import torch

from allfours.agents.network import PolicyNet
from allfours.agents.network.checkpoint import atomic_save, checkpoints_dir, load_checkpoint
from allfours.agents.players.neural import load_agent
from allfours.train.lab import distill
from allfours.train.ship import ship
from allfours_env import OBS_SIZE
from allfours_env.cards import NUM_ACTIONS
from allfours_env.observation import V1_SIZE

ARGS = ["--student", "heuristic", "--search", "search:worlds=4", "--games", "2", "--seed", "123", "--no-progress"]


@pytest.fixture(scope="module")
def labels(tmp_path_factory):
    out = tmp_path_factory.mktemp("labels")
    distill.main(["label", *ARGS, "--workers", "2", "--out", str(out)])
    return out, len(distill._load([out])["obs"])


@pytest.mark.slow  # the labels fixture: 5 s
def test_labels_do_not_depend_on_the_worker(labels):
    out, n = labels
    threads = torch.get_num_threads()
    distill._init("yorkshire", "heuristic", "search:worlds=4", 123)  # a worker's set-up, in this process
    torch.set_num_threads(threads)
    games = [distill._label_game(g) for g in (0, 1, 1)]
    assert sum(len(g["obs"]) for g in games[:2]) == n
    for k in games[1]:
        assert np.array_equal(np.array(games[1][k]), np.array(games[2][k]), equal_nan=k == "values")
    files = distill._load([out])
    stored = {r.tobytes() for r in files["obs"]}
    assert all(o.tobytes() in stored for g in games[:2] for o in g["obs"])


@pytest.mark.slow
def test_label_rows_are_the_students_decisions_with_search_values(labels):
    out, n = labels
    data = distill._load([out])
    assert len(data["obs"]) == n > 0
    mask, values, action = data["mask"], data["values"], data["action"]
    assert (mask.sum(1) >= 2).all()  # only decisions with a choice
    assert mask[np.arange(n), action].all()  # the student's move, legal
    labelled = ~np.isnan(values).all(1)
    # search valued every legal action of a card play, nothing else
    assert (np.isfinite(values[labelled]) == mask[labelled]).all()
    assert labelled.sum() > 20
    # the pitches (a Yorkshire hand's first decision) are kept unlabelled, to anchor the policy there
    assert 0 < (~labelled).sum() < labelled.sum()
    assert (np.abs(values[labelled][mask[labelled]]) <= 1000).all()  # match equity
    assert distill._presets([out]) == {"yorkshire"}  # meta.json: what made the labels


@pytest.mark.slow
def test_fit_moves_the_policy_towards_the_labels(labels, tmp_path):
    out, _ = labels
    src = tmp_path / "src"
    src.mkdir()
    data = distill._load([out])
    # relabel: the lowest legal action id is worth 200 more than the rest
    values = np.where(data["mask"], 0.0, np.nan).astype(np.float32)
    first = data["mask"].argmax(1)
    values[np.arange(len(first)), first] = 200.0
    labelled = ~np.isnan(data["values"]).all(1)
    values[~labelled] = np.nan
    np.savez(src / "labels_0_0000.npz", obs=data["obs"], mask=data["mask"], values=values, action=data["action"])
    torch.manual_seed(0)
    # a valid checkpoint of encoding 1, as the shipped bot is, with a small untrained net: it reads the
    # first 951 columns and 57 actions of the labels, which are today's (997 and 63)
    assert data["obs"].shape[1] == OBS_SIZE and data["mask"].shape[1] == data["values"].shape[1] == NUM_ACTIONS
    net = PolicyNet(V1_SIZE, 57, [32, 32], canonical=True)
    ck = load_checkpoint(checkpoints_dir() / "yorkshire.pt")
    assert ck["encoding_version"] == 1
    ck["arch"], ck["model"] = net.arch(), net.state_dict()
    init = tmp_path / "init.pt"
    atomic_save(ck, init)

    def agreement(state_dict):
        net.load_state_dict(state_dict)
        with torch.no_grad():
            logits, _ = net(torch.from_numpy(data["obs"].astype(np.float32)), torch.from_numpy(data["mask"]),
                            value=False)
        return float((logits.argmax(1).numpy() == first)[labelled].mean())

    before = agreement(ck["model"])
    distill.main(["fit", str(src), "--init", str(init), "--out", str(tmp_path / "fit.pt"), "--lr", "3e-3",
                        "--epochs", "30", "--batch", "16", "--anchor", "0", "--threads", "1"])
    after = agreement(torch.load(tmp_path / "fit.pt", weights_only=True)["model"])
    assert before < 0.6 and after > 0.9, (before, after)
    agent = load_agent(tmp_path / "fit.pt")  # the fitted checkpoint loads as an agent, with its settings
    assert agent.net.hidden == [32, 32] and agent.meta["path"].endswith("fit.pt")
    assert agent.net.arch() == net.arch()  # still a network of encoding 1
    saved = torch.load(tmp_path / "fit.pt", weights_only=True)
    assert (saved["encoding_version"], saved["obs_size"], len(saved["action_ids"])) == (1, V1_SIZE, 57)
    assert saved["distill"]["lr"] == 3e-3 and saved["distill"]["labels"] == [str(src)]
    assert saved["distill"]["end"]["search_move"] > saved["distill"]["start"]["search_move"]
    assert "optimizer" not in saved
    shipped = ship(tmp_path / "fit.pt", "yorkshire", out_dir=tmp_path / "ship")  # provenance survives shipping
    assert torch.load(shipped, weights_only=True)["distill"] == saved["distill"]


@pytest.mark.slow
def test_labels_of_encoding_1_load_at_todays_widths(labels, tmp_path):
    """A label file written before the observation grew (951 columns, 57 actions) loads next to today's:
    the new columns 0 (as in All Fours' presets), the new actions illegal and unvalued."""
    out, n = labels
    data = distill._load([out])
    old = tmp_path / "old"
    old.mkdir()
    np.savez(old / "labels_00000.npz", obs=data["obs"][:, :V1_SIZE], mask=data["mask"][:, :57],
             values=data["values"][:, :57], action=data["action"])
    both = distill._load([out, old])
    assert both["obs"].shape == (2 * n, OBS_SIZE) and both["mask"].shape == both["values"].shape == (2 * n, NUM_ACTIONS)
    for k in ("obs", "mask", "action"):
        assert np.array_equal(both[k][n:], data[k])
    assert np.array_equal(both["values"][n:], data["values"], equal_nan=True)


@pytest.mark.slow
def test_bad_input_gets_a_clear_error(labels, tmp_path, capsys):
    def error(*argv):
        with pytest.raises(SystemExit) as e:
            distill.main(list(argv))
        assert e.value.code == 2
        return capsys.readouterr().err

    assert "no labels_*.npz in" in error("fit", str(tmp_path), "--out", str(tmp_path / "x.pt"))
    assert "unknown agent" in error("label", "--student", "hueristic", "--out", str(tmp_path / "l")).lower()
    assert "already holds labels" in error("label", *ARGS, "--out", str(labels[0]))
    assert "does not exist" in error("fit", str(labels[0]), "--init", str(tmp_path / "none.pt"),
                                     "--out", str(tmp_path / "x.pt"))
    (tmp_path / "l7").mkdir()
    for f in labels[0].iterdir():
        (tmp_path / "l7" / f.name).write_bytes(f.read_bytes())
    (tmp_path / "l7" / "meta.json").write_text('{"preset": "seven_up"}')
    out = str(tmp_path / "x.pt")
    assert "labels are for preset(s) ['seven_up']" in error("fit", str(tmp_path / "l7"), "--out", out)
    assert "--games and --workers must be at least 1" in error("label", *ARGS, "--workers", "0",
                                                             "--out", str(tmp_path / "l0"))
    bad = load_checkpoint(checkpoints_dir() / "yorkshire.pt")
    bad["arch"] = {**bad["arch"], "hidden": [32, 32]}  # weights of another shape than the arch says
    atomic_save(bad, tmp_path / "bad.pt")
    assert "weights do not fit" in error("fit", str(labels[0]), "--init", str(tmp_path / "bad.pt"), "--out", out)
    assert "--tau out of range" in error("fit", str(labels[0]), "--tau", "0", "--out", str(tmp_path / "x.pt"))
    assert not (tmp_path / "x.pt").exists()
