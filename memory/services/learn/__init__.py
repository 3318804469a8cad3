"""The learn pipeline (docs/design.md §4).

1. ``lesson_learn`` (the API's service, in the request's transaction):
   validate parents, write the belief with its provenance and the learn
   request, and enqueue its processing once that commits.
2. ``learn_request_process`` (the worker; by default the only one working
   on this tenant, under an advisory lock — "single flight"): claim a batch
   of the tenant's pending requests (SKIP LOCKED, then a lease), embed them in one
   batch (a helper thread claims and embeds the next batch meanwhile), then
   for each: read candidates and run the judge **outside any transaction**,
   and apply the verdict in one short snapshot-isolated transaction that
   reads only the scope's version row and rows by primary key, and always
   writes the version row. If the version moved since the
   candidate read, back to the candidate read and the judge (bounded; after
   the bound, insert as novel). 40001/40P01 → retry with jittered backoff.

Applying twice is harmless: the apply transaction re-reads the request by
primary key and does nothing unless it is still pending, and two
transactions applying the same request conflict and one retries into that
check. The lease only saves duplicated work.
"""

from memory.services.learn.request import learn_request_enqueue, lesson_learn
from memory.services.learn.worker import (
    learn_batch_apply,
    learn_pending_drain,
    learn_request_apply,
    learn_request_process,
    requeue_stale_learn_requests,
)

__all__ = [
    "learn_batch_apply",
    "learn_pending_drain",
    "learn_request_apply",
    "learn_request_enqueue",
    "learn_request_process",
    "lesson_learn",
    "requeue_stale_learn_requests",
]
