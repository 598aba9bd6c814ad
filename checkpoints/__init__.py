"""The shipped bots: ``<name>.pt`` (weights and metadata) and ``<name>.md`` (its model card). Package data."""
