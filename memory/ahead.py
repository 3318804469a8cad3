"""What an import's helper process does for a batch while the batch before
it is written (``manage.py import_lessons --screen-processes``): the rules'
screening of every record, then the embedding of each record the rules let
through that came without a vector — the learn pipeline's order
(``screen_and_embed``): quarantined text is never embedded.

The process is spawned (nothing of the command's connections or threads
goes with it) and imports this module, which needs neither Django nor the
model: a batch that brings its own vectors is only screened. The first
batch that needs embedding sets Django up and loads the model as ``spec``
says — the model directory, runtime and threads the command's own
provider is configured with (~250 MB more per helper process while the
import runs).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from memory.guard import Screening, screen_many, to_embed

if TYPE_CHECKING:
    from memory.embeddings import EmbeddingProvider

# The model directory, the runtime and its threads.
ModelSpec = tuple[str, str | None, int | None]


@dataclass(frozen=True)
class Ahead:
    """A batch's records screened, and embedded where they came without a
    vector. ``vectors[i]`` is None where record ``i`` brought its own, was
    blocked, or was left for the writer to embed."""

    screenings: list[Screening]
    vectors: list[list[float] | None]


_providers: dict[ModelSpec, EmbeddingProvider] = {}


def screen_and_embed_ahead(
    texts: list[tuple[str, str]], unembedded: list[bool], spec: ModelSpec | None
) -> Ahead:
    """``texts``: each record's (content, situation); ``unembedded``: which
    came without a vector; ``spec``: the model to embed them with (None:
    screen only)."""
    screenings = screen_many(texts)
    wanted = to_embed(screenings, unembedded)
    vectors: list[list[float] | None] = [None] * len(texts)
    if not wanted or spec is None:
        return Ahead(screenings, vectors)
    from django.apps import apps

    if not apps.ready:  # the first batch to embed, in the helper
        import django

        django.setup()
    from memory.embeddings import embed, lesson_text, load_provider

    if spec not in _providers:
        _providers[spec] = load_provider(*spec)
    made = embed([lesson_text(*texts[i]) for i in wanted], _providers[spec])
    for i, vector in zip(wanted, made, strict=True):
        vectors[i] = vector
    return Ahead(screenings, vectors)
