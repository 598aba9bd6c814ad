"""Training configs for ``allfours train --config NAME``: ``<name>.yaml``. Package data."""
