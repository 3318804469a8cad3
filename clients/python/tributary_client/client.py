"""The sync and async clients.

Both expose one method per endpoint, built from the same request
specifications (:mod:`tributary_client.api`): the method takes the
builder's arguments, and :meth:`Tributary.send` /
:meth:`AsyncTributary.send` send the resulting :class:`~tributary_client.api.Call`
with retries and turn error answers into exceptions.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import json
import os
import time
from collections.abc import Awaitable, Callable
from types import TracebackType
from typing import Any, Generic, ParamSpec, Self, TypeVar, overload

import httpx

from tributary_client import api
from tributary_client._retry import RetryPolicy, retry_after
from tributary_client.api import Call
from tributary_client.errors import ConnectionFailed, TributaryError, error_from_response

P = ParamSpec("P")
T = TypeVar("T")

DEFAULT_URL = "http://127.0.0.1:8000"
VERSION = "0.1.0"

# Module attributes so that tests can observe the waits without waiting.
_sleep = time.sleep
_async_sleep = asyncio.sleep


API_SUFFIX = api.API


def _settings(base_url: str | None, api_key: str | None) -> tuple[str, str]:
    url = (base_url or os.environ.get("TRIBUTARY_URL") or DEFAULT_URL).rstrip("/")
    url = url.removesuffix(API_SUFFIX)
    key = api_key or os.environ.get("TRIBUTARY_API_KEY")
    if not key:
        raise ValueError("no API key: pass api_key= or set TRIBUTARY_API_KEY")
    return url, key


def _answer(call: Call[T], response: httpx.Response) -> T:
    """The parsed answer, or the exception for an error answer."""
    status = response.status_code
    if status >= 400 and status not in call.accept:
        raise error_from_response(response, retry_after=retry_after(response))
    if status == 204 or not response.content:
        data: Any = None
    else:
        try:
            data = response.json()
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise TributaryError(
                status, "malformed_response", f"the answer is not JSON: {response.text[:200]!r}"
            ) from exc
    try:
        return call.parse(data)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise TributaryError(
            status, "malformed_response", f"unexpected answer to {call.method} {call.path}: {exc}"
        ) from exc


def _unanswered(call: Call[Any], exc: httpx.TransportError) -> ConnectionFailed:
    return ConnectionFailed(
        None, "connection_error", f"{call.method} {call.path}: {type(exc).__name__}: {exc}"
    )


class _Base:
    def __init__(
        self,
        base_url: str | None,
        api_key: str | None,
        *,
        timeout: float,
        retries: int,
        backoff: float,
    ) -> None:
        self.base_url, api_key = _settings(base_url, api_key)
        self.timeout = float(timeout)
        self.retry_policy = RetryPolicy(retries=retries, backoff=backoff)
        self._headers = {
            "Authorization": f"Bearer {api_key}",
            "Accept": "application/json",
            "User-Agent": f"tributary-client/{VERSION} httpx/{httpx.__version__}",
        }

    def _request_args(self, call: Call[Any]) -> dict[str, Any]:
        timeout = self.timeout
        if call.min_timeout is not None:
            timeout = max(timeout, call.min_timeout)
        args: dict[str, Any] = {"params": call.params, "timeout": timeout}
        if call.json is not None:
            args["json"] = call.json
        return args

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.base_url!r})"


def _method_signature(build: Callable[..., Any]) -> inspect.Signature:
    """The builder's parameters with ``self`` in front (for ``help()``); the
    return annotation, a ``Call``, is the builder's, not the method's."""
    signature = inspect.signature(build)
    this = inspect.Parameter("self", inspect.Parameter.POSITIONAL_ONLY)
    return signature.replace(
        parameters=[this, *signature.parameters.values()],
        return_annotation=inspect.Signature.empty,
    )


def _bound_signature(build: Callable[..., Any]) -> inspect.Signature:
    return inspect.signature(build).replace(return_annotation=inspect.Signature.empty)


class _SyncEndpoint(Generic[P, T]):
    """A client method made from an :mod:`~tributary_client.api` builder:
    same name, signature and documentation; calls ``send``."""

    def __init__(self, build: Callable[P, Call[T]]) -> None:
        self._build = build
        self.__doc__ = build.__doc__
        self.__name__ = build.__name__
        self.__signature__ = _method_signature(build)

    def __call__(self, client: Tributary, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return client.send(self._build(*args, **kwargs))

    @overload
    def __get__(self, client: None, owner: type) -> Self: ...
    @overload
    def __get__(self, client: Tributary, owner: type) -> Callable[P, T]: ...
    def __get__(self, client: Tributary | None, owner: type) -> Self | Callable[P, T]:
        if client is None:
            return self
        build = self._build

        @functools.wraps(build)
        def method(*args: P.args, **kwargs: P.kwargs) -> T:
            return client.send(build(*args, **kwargs))

        method.__signature__ = _bound_signature(build)  # type: ignore[attr-defined]
        return method


class _AsyncEndpoint(Generic[P, T]):
    """The async twin of :class:`_SyncEndpoint`."""

    def __init__(self, build: Callable[P, Call[T]]) -> None:
        self._build = build
        self.__doc__ = build.__doc__
        self.__name__ = build.__name__
        self.__signature__ = _method_signature(build)

    async def __call__(self, client: AsyncTributary, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return await client.send(self._build(*args, **kwargs))

    @overload
    def __get__(self, client: None, owner: type) -> Self: ...
    @overload
    def __get__(self, client: AsyncTributary, owner: type) -> Callable[P, Awaitable[T]]: ...
    def __get__(
        self, client: AsyncTributary | None, owner: type
    ) -> Self | Callable[P, Awaitable[T]]:
        if client is None:
            return self
        build = self._build

        @functools.wraps(build)
        async def method(*args: P.args, **kwargs: P.kwargs) -> T:
            return await client.send(build(*args, **kwargs))

        method.__signature__ = _bound_signature(build)  # type: ignore[attr-defined]
        return method


class Tributary(_Base):
    """The synchronous client.

    ``base_url`` defaults to ``$TRIBUTARY_URL`` or ``http://127.0.0.1:8000``,
    ``api_key`` to ``$TRIBUTARY_API_KEY``. Retries 429 and 503 (honouring
    ``Retry-After``) and unanswered requests that are safe to repeat, up to
    ``retries`` times with exponential backoff and jitter. ``transport``
    replaces httpx's (for tests, proxies, ``httpx.MockTransport``).
    Use as a context manager, or call :meth:`close`.
    """

    def __init__(
        self,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        timeout: float = 30,
        retries: int = 3,
        backoff: float = 0.5,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        super().__init__(base_url, api_key, timeout=timeout, retries=retries, backoff=backoff)
        self._http = httpx.Client(
            base_url=self.base_url, headers=self._headers, timeout=self.timeout, transport=transport
        )

    def send(self, call: Call[T]) -> T:
        """Send one request specification; retry it where that is safe."""
        attempt = 0
        while True:
            try:
                response = self._http.request(call.method, call.path, **self._request_args(call))
            except httpx.TransportError as exc:
                delay = self.retry_policy.after_error(call, exc, attempt)
                if delay is None:
                    raise _unanswered(call, exc) from exc
            else:
                delay = self.retry_policy.after_response(call, response, attempt)
                if delay is None:
                    return _answer(call, response)
                response.close()
            _sleep(delay)
            attempt += 1

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    whoami = _SyncEndpoint(api.whoami)
    health = _SyncEndpoint(api.health)
    ready = _SyncEndpoint(api.ready)
    learn = _SyncEndpoint(api.learn)
    learn_request = _SyncEndpoint(api.learn_request)
    recall = _SyncEndpoint(api.recall)
    lessons = _SyncEndpoint(api.lessons)
    lesson = _SyncEndpoint(api.lesson)
    history = _SyncEndpoint(api.history)
    lineage = _SyncEndpoint(api.lineage)
    reinforce = _SyncEndpoint(api.reinforce)
    retire = _SyncEndpoint(api.retire)
    pin = _SyncEndpoint(api.pin)
    unpin = _SyncEndpoint(api.unpin)
    forget = _SyncEndpoint(api.forget)
    observe = _SyncEndpoint(api.observe)
    believe = _SyncEndpoint(api.believe)
    decide = _SyncEndpoint(api.decide)
    decisions = _SyncEndpoint(api.decisions)
    invalidate = _SyncEndpoint(api.invalidate)
    disputes = _SyncEndpoint(api.disputes)
    resolve_dispute = _SyncEndpoint(api.resolve_dispute)
    stats = _SyncEndpoint(api.stats)
    curation_state = _SyncEndpoint(api.curation_state)
    set_kind_policy = _SyncEndpoint(api.set_kind_policy)
    set_corroboration_policy = _SyncEndpoint(api.set_corroboration_policy)


class AsyncTributary(_Base):
    """The asynchronous client: the same methods as :class:`Tributary`, as
    coroutines. Use as an async context manager, or await :meth:`aclose`."""

    def __init__(
        self,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        timeout: float = 30,
        retries: int = 3,
        backoff: float = 0.5,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        super().__init__(base_url, api_key, timeout=timeout, retries=retries, backoff=backoff)
        self._http = httpx.AsyncClient(
            base_url=self.base_url, headers=self._headers, timeout=self.timeout, transport=transport
        )

    async def send(self, call: Call[T]) -> T:
        """Send one request specification; retry it where that is safe."""
        attempt = 0
        while True:
            try:
                response = await self._http.request(
                    call.method, call.path, **self._request_args(call)
                )
            except httpx.TransportError as exc:
                delay = self.retry_policy.after_error(call, exc, attempt)
                if delay is None:
                    raise _unanswered(call, exc) from exc
            else:
                delay = self.retry_policy.after_response(call, response, attempt)
                if delay is None:
                    return _answer(call, response)
                await response.aclose()
            await _async_sleep(delay)
            attempt += 1

    async def aclose(self) -> None:
        await self._http.aclose()

    close = aclose

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    whoami = _AsyncEndpoint(api.whoami)
    health = _AsyncEndpoint(api.health)
    ready = _AsyncEndpoint(api.ready)
    learn = _AsyncEndpoint(api.learn)
    learn_request = _AsyncEndpoint(api.learn_request)
    recall = _AsyncEndpoint(api.recall)
    lessons = _AsyncEndpoint(api.lessons)
    lesson = _AsyncEndpoint(api.lesson)
    history = _AsyncEndpoint(api.history)
    lineage = _AsyncEndpoint(api.lineage)
    reinforce = _AsyncEndpoint(api.reinforce)
    retire = _AsyncEndpoint(api.retire)
    pin = _AsyncEndpoint(api.pin)
    unpin = _AsyncEndpoint(api.unpin)
    forget = _AsyncEndpoint(api.forget)
    observe = _AsyncEndpoint(api.observe)
    believe = _AsyncEndpoint(api.believe)
    decide = _AsyncEndpoint(api.decide)
    decisions = _AsyncEndpoint(api.decisions)
    invalidate = _AsyncEndpoint(api.invalidate)
    disputes = _AsyncEndpoint(api.disputes)
    resolve_dispute = _AsyncEndpoint(api.resolve_dispute)
    stats = _AsyncEndpoint(api.stats)
    curation_state = _AsyncEndpoint(api.curation_state)
    set_kind_policy = _AsyncEndpoint(api.set_kind_policy)
    set_corroboration_policy = _AsyncEndpoint(api.set_corroboration_policy)
