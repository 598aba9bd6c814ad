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
