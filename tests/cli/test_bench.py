"""``allfours bench`` with and without its peer, PettingZoo's connect_four_v3."""

import sys

from allfours.cli.bench import CASES, main


def _table(capsys, argv=("--seconds", "0.01", "--repeats", "1")) -> list[str]:
    assert main(list(argv)) == 0
    return capsys.readouterr().out.splitlines()


def test_bench_measures_every_case_against_the_peer(capsys):
    lines = _table(capsys)
    assert lines[0].split() == ["case", "env()", "dec/s", "connect_four", "ratio", "engine", "dec/s"]
    rows = lines[1:]
    assert len(lines) == 1 + len(CASES)
    assert [" ".join(row.split()[:-4]) for row in rows] == ["yorkshire", "traditional", "traditional 2p",
                                                             "traditional 3p", "seven_up", "pitch", "pitch 2p",
                                                             "setback"]
    for row in rows:
        *_, env_rate, peer, ratio, engine = row.split()
        env_rate, peer, engine = (float(x.replace(",", "")) for x in (env_rate, peer, engine))
        assert env_rate > 0 and peer > 0 and engine > 0
        assert abs(float(ratio) - env_rate / peer) < 0.01 + 0.01 * float(ratio)


def test_bench_without_the_peer_says_what_to_install_and_leaves_its_columns_out(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "pettingzoo.classic", None)  # import fails as if it were not installed
    lines = _table(capsys)
    assert "connect_four_v3, is not installed" in lines[0] and "pip install 'pettingzoo[classic]'" in lines[0]
    assert lines[1].split() == ["case", "env()", "dec/s", "engine", "dec/s"]
    assert len(lines) == 2 + len(CASES)
    assert not any("nan" in line for line in lines)
    assert all(float(row.split()[-1].replace(",", "")) > 0 for row in lines[2:])
