"""Every command's ``--help`` is plain text: no reStructuredText marks, lines that fit a terminal."""

import pytest

from allfours.cli import main

COMMANDS = ["train", "eval", "exploit", "play", "serve", "bot", "export", "bench"]


@pytest.mark.parametrize("cmd", COMMANDS)
def test_help_is_plain_text(cmd, capsys):
    try:
        rc = main([cmd, "--help"])
    except SystemExit as e:  # argparse's exit, where a command lets it through
        rc = e.code
    assert rc in (0, None)
    text = capsys.readouterr().out
    assert text.startswith(f"usage: allfours {cmd}")
    assert "``" not in text and ":class:" not in text and ":func:" not in text, text
    long = [line for line in text.splitlines() if len(line) > 100]
    assert not long, long


@pytest.mark.parametrize("command", ["serve", "bot"])
def test_the_server_commands_without_the_serve_extra_say_what_to_install(command, monkeypatch, capsys):
    """The environment and trainer install lean (pip install .); the server is the [serve] extra."""
    import sys

    for name in [m for m in sys.modules if m.startswith(("allfours.serve", "allfours.cli.serve", "allfours.cli.bot"))]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "fastapi", None)  # as if not installed: import fastapi fails
    monkeypatch.setitem(sys.modules, "pydantic", None)
    assert main([command, "--help"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"allfours {command}: error: the server's packages are not installed")
    assert "pip install 'allfours[serve]'" in err[0]
