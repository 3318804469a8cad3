"""Observations, beliefs, decisions and their edges (the provenance issue)."""
