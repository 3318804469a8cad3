"""Writes over lessons. ``learn`` is the pipeline of docs/design.md §4; ``lessons``
holds reinforce, retire and forget."""
