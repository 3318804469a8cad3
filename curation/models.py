"""Policies, disputes, the gardener and the forgetting journal (the curation issue)."""
