"""Lessons, learn requests, embeddings, the judge, recall (the learn/recall issue)."""
