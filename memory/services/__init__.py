"""Writes over lessons. ``learn`` is the pipeline of DESIGN §4; ``lessons``
holds reinforce, retire and forget."""
