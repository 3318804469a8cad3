"""The judge: is a new lesson a duplicate of, a contradiction of, or novel
with respect to its nearest existing lessons?

Public names: :class:`Relation`, :class:`Candidate`, :class:`Verdict`,
:class:`Judge` (the protocol), :class:`OfflineJudge` (the deterministic
rules), :func:`offline_judge` (the default: those rules with their learned
layer, :mod:`memory.judge.learned`, where its weights fit the embedding
model), :func:`get_judge` and :func:`judge_for` (a tenant's judge: offline,
or an LLM judge with optional tiering, from settings and the tenant's
``judge_config``).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from django.conf import settings

from memory.judge.base import Candidate, Judge, Relation, Verdict
from memory.judge.offline import OfflineJudge

__all__ = [
    "Candidate", "Judge", "OfflineJudge", "Relation", "Verdict", "get_judge", "judge_for",
    "offline_judge",
]  # fmt: skip


def get_judge() -> Judge:
    """The judge the settings configure, without tenant overrides."""
    return judge_for({})


def judge_for(config: dict[str, Any]) -> Judge:
    """The judge for a tenant: ``settings.TRIBUTARY_JUDGE`` and its models,
    overridden by the tenant's ``judge_config`` (``tiering``,
    ``escalate_below``, ``model``, ``strong_model``)."""
    if settings.TRIBUTARY_JUDGE == "offline":
        return offline_judge()
    if not isinstance(config, dict):  # edited by hand in the admin
        config = {}
    model = str(config.get("model") or settings.TRIBUTARY_JUDGE_MODEL)
    strong = config.get("strong_model") or settings.TRIBUTARY_JUDGE_STRONG_MODEL
    tiering = config.get("tiering", True) is not False and bool(strong)
    below = _threshold(config.get("escalate_below"), settings.TRIBUTARY_JUDGE_ESCALATE_BELOW)
    return _llm(
        settings.TRIBUTARY_JUDGE, model, str(strong) if tiering else "", below,
        settings.TRIBUTARY_JUDGE_BASE_URL or "", settings.TRIBUTARY_JUDGE_API_KEY or "",
        settings.TRIBUTARY_JUDGE_TIMEOUT, settings.TRIBUTARY_JUDGE_ATTEMPTS,
    )  # fmt: skip


def _threshold(value: Any, default: float) -> float:
    """A tenant's threshold if it is a number in [0, 1] (the config is
    edited by hand in the admin), else the setting."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return default
    return number if 0.0 <= number <= 1.0 else default


@cache
def offline_judge() -> Judge:
    """The offline judge: the rules, and their learned layer where its
    weights belong to the embedding model in use (they read its similarity)."""
    from memory.judge.learned import LearnedJudge, weights

    fitted = weights()
    return OfflineJudge() if fitted is None else LearnedJudge(fitted)


@cache
def _llm(
    provider: str, model: str, strong: str, escalate_below: float, base_url: str, api_key: str,
    timeout: float, attempts: int,
) -> Judge:  # fmt: skip
    # Cached per configuration: one SDK client (and its connection pool) each.
    from memory.judge.llm import AnthropicJudge, LLMJudge, OpenAIJudge, TieredJudge

    kind: type[LLMJudge] = OpenAIJudge if provider == "openai" else AnthropicJudge

    def make(name: str) -> LLMJudge:
        return kind(
            model=name, api_key=api_key, base_url=base_url or None, timeout=timeout,
            attempts=attempts,
        )  # fmt: skip

    if strong:
        return TieredJudge(make(model), make(strong), escalate_below=escalate_below)
    return make(model)
