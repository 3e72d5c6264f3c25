"""The OpenAI-compatible chat client every LLM-driven stage goes through.

Public API (used by the predictor, the auditors, the rationale teacher and the LLM judge)::

    client = LLMClient(LLMConfig(base_url=..., model=...), allow_hosts=[...])
    c = client.complete_json(messages, schema)            # one call, blocking
    for i, c in client.map([ChatRequest(messages, schema), ...]):   # many, as each completes
        ...
    async for i, c in client.amap(requests): ...          # the same inside an event loop

Each :class:`Completion` has ``raw`` (the model's answer text, always kept), ``reasoning`` (its
thinking, kept apart and never parsed: :mod:`admitdx.llm.reasoning`), ``parsed`` (tolerantly decoded
JSON or list, or None), ``parse_error``, ``truncated`` (where a ``finish_reason: length`` cut the
output: ``thinking`` or ``answer``), ``usage``, ``latency_s`` and ``cached``.

The wire protocol is plain ``POST {base_url}/chat/completions`` over httpx, which keeps every
server-specific detail visible here or in the server's profile (:mod:`admitdx.llm.servers`): the
structured-output dialect (OpenAI's ``json_schema`` or llama-cpp-python's ``json_object`` +
``schema``), the token-limit field, the thinking switch, Azure's path and key header,
``Retry-After``, and what counts as a transient failure. Transient failures — 408, 409, 429,
5xx, timeouts, dropped connections, truncated or non-JSON response bodies — are retried with
exponential backoff and jitter (tenacity), honouring ``Retry-After`` when the server sends one.
A model answer that is valid HTTP but not parseable as the requested output is *not* retried: it
is the model's answer, kept with its parse error.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import queue
import ssl
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urlsplit

import httpx
from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt, wait_random_exponential

from admitdx.errors import UsageError
from admitdx.llm.cache import ResponseCache, cache_key
from admitdx.llm.config import LLMConfig
from admitdx.llm.egress import AllowedHost, check_egress, parse_allow_hosts
from admitdx.llm.messages import (
    connection_failure_hint,
    http_refusal,
    proxy_tunnel_refusal,
    redirect_refusal,
)
from admitdx.llm.parse import parse_output
from admitdx.llm.reasoning import Where, message_text, split_thinking, truncated_where, truncation_error
from admitdx.llm.redact import redact_text, redact_url, url_secrets
from admitdx.llm.urls import connect_url
from admitdx.llm.usage import TokenCounter, TokenTally

RETRY_STATUSES = frozenset({408, 409, 429})
POOL_SIZE = 8  # connections per httpx pool (see LLMClient.connection_pools)


class TransientError(Exception):
    """A failure worth retrying: an HTTP status in RETRY_STATUSES or 5xx, or an unreadable body."""

    def __init__(self, message: str, *, status: int | None = None, retry_after_s: float | None = None):
        super().__init__(message)
        self.status = status
        self.retry_after_s = retry_after_s


class LLMCallError(UsageError):
    """The server refused the request or kept failing after every retry."""


class CacheMissError(UsageError):
    """Cache-only mode met a request the cache does not hold."""


@dataclass(frozen=True)
class ChatRequest:
    """One chat call. ``key_extra`` (e.g. the prompt template's name and hash) enters the cache key."""

    messages: list[dict[str, str]]
    schema: dict[str, Any] | None = None
    key_extra: dict[str, Any] | None = None


@dataclass(frozen=True)
class Completion:
    raw: str
    parsed: Any
    parse_error: str | None
    usage: dict[str, Any] | None
    latency_s: float | None
    cached: bool
    finish_reason: str | None = None
    reasoning: str | None = None
    truncated: Where | None = None


@dataclass
class ClientStats:
    """Counters of one client's life: what a rerun from cache must show as ``model_calls == 0``."""

    model_calls: int = 0
    http_attempts: int = 0
    retries: int = 0
    cache_hits: int = 0
    parse_failures: int = 0
    dialect_switches: int = 0
    by_status: dict[str, int] = field(default_factory=dict)
    truncated: dict[str, int] = field(default_factory=dict)  # where -> count
    tokens: TokenTally = field(default_factory=TokenTally)


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header: delta-seconds or an HTTP date; None if absent or unreadable."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError):
        return None


def _is_transient(exc: BaseException) -> bool:
    """A proxy that refuses the tunnel (httpx.ProxyError) will refuse it again: not transient."""
    if isinstance(exc, httpx.ProxyError):
        return False
    return isinstance(exc, TransientError | httpx.TimeoutException | httpx.TransportError)


def response_format(schema: dict[str, Any], dialect: str) -> dict[str, Any] | None:
    """The ``response_format`` body field for a schema in the given server dialect."""
    if dialect == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": "output", "schema": schema, "strict": True}}
    if dialect == "json_object":
        return {"type": "json_object", "schema": schema}
    return None


class LLMClient:
    """Calls one endpoint with bounded concurrency, retries and a shared response cache.

    The egress guard runs in the constructor, so a refused endpoint fails before any work starts;
    ``egress`` is the decision record for the manifest. Requests go only where the guard looked:
    the environment's proxy variables are ignored (``trust_env=False``), ``localhost`` is connected
    to by its /etc/hosts address (:func:`admitdx.llm.urls.connect_url`), and a proxy is used only
    when ``config.proxy`` names one the guard allowed.

    ``liveness``, when given, is called before every retry and after the last one; it raises if the
    server this client depends on has died (e.g. :meth:`admitdx.llm.local_server.LocalServer.check_alive`
    for a server admitdx started), so a dead process is an error naming its exit at once instead of
    a connection error after every retry.
    """

    def __init__(
        self,
        config: LLMConfig,
        *,
        allow_hosts: list[AllowedHost] | list[dict[str, Any]] | None = None,
        cache: ResponseCache | None = None,
        liveness: Callable[[], None] | None = None,
    ) -> None:
        self.config = config
        self.liveness = liveness
        self.egress = check_egress(config.base_url, parse_allow_hosts(allow_hosts), proxy=config.proxy)
        if cache is None and config.cache_path is not None:
            cache = ResponseCache(config.cache_path)
        self.cache = cache
        self.stats = ClientStats()
        self.profile = config.server_profile
        self.dialect = self.profile.structured if config.structured == "auto" else config.structured
        self.token_field = self.profile.token_field
        self.counter = TokenCounter(config.tokenizer) if config.tokenizer else None
        url = self.profile.request_url(config.base_url, config.api_version)
        self._url, self._host_header = connect_url(url)
        self._shown_url = redact_url(url)  # the URL in messages: no credentials
        self._shown_proxy = redact_url(config.proxy) if config.proxy else None

    # ----------------------------------------------------------------- one call
    def request_identity(self, req: ChatRequest) -> dict[str, Any]:
        """What the cache key hashes (see cache.py for what is left out and why)."""
        return {
            "model": self.config.model,
            "model_revision": self.config.model_revision,
            "messages": req.messages,
            "params": self.config.request_params(),
            "schema": req.schema,
            "extra": req.key_extra,
        }

    async def acomplete(self, http: httpx.AsyncClient, req: ChatRequest) -> Completion:
        identity = self.request_identity(req)
        key = cache_key(identity)
        hit = self.cache.get(key) if self.cache is not None else None
        if hit is not None:
            self.stats.cache_hits += 1
            return self.completion((hit.raw, hit.usage, hit.latency_s, hit.finish_reason), req, cached=True)
        if self.config.cache_only:
            raise CacheMissError(
                f"cache-only mode: no cached answer for a request to {self.config.model} (key {key[:12]}…)",
                hint="run once without cache_only to fill the cache, or use a published cache_path",
            )
        retrying = AsyncRetrying(
            stop=stop_after_attempt(self.config.retries + 1),
            wait=self._wait,
            retry=retry_if_exception(_is_transient),
            before_sleep=self._count_retry,
            reraise=True,
        )
        try:
            async for attempt in retrying:
                with attempt:
                    raw, usage, latency, finish = await self._post(http, req)
        except httpx.ProxyError as e:
            message, hint = proxy_tunnel_refusal(
                self.redact(str(e)), url=self._shown_url, proxy=self._shown_proxy or ""
            )
            raise LLMCallError(message, hint=hint) from e
        except (TransientError, httpx.TransportError, httpx.TimeoutException) as e:
            if self.liveness is not None:
                self.liveness()  # a server that died says so, rather than "kept failing"
            raise LLMCallError(
                self.redact(f"{self._shown_url} kept failing after {self.config.retries} retries: {e!r}"),
                hint=connection_failure_hint(proxy=self._shown_proxy),
            ) from e
        self.stats.model_calls += 1
        if self.cache is not None:
            self.cache.put(key, identity, raw, usage=usage, latency_s=latency, finish_reason=finish)
        return self.completion((raw, usage, latency, finish), req, cached=False)

    def completion(
        self, answer: tuple[str, Any, float | None, Any], request: ChatRequest | None = None, *, cached: bool
    ) -> Completion:
        """Read one answer (text, usage, latency, finish reason): thinking apart, then the tolerant parse.

        The one place an answer is read and counted, whether it came from this client, the cache or
        a cluster executor. A truncated output that does not parse says so in its ``parse_error``;
        an answer without ``usage`` is counted with the ``tokenizer`` option's tokenizer, if set.
        """
        text, usage, latency, finish = answer
        if usage is None and self.counter is not None and request is not None:
            usage = self.counter.usage(request.messages, text)
        split = split_thinking(text)
        parsed = parse_output(split.answer)
        where = truncated_where(finish, split)
        error = parsed.error
        if where is not None:
            self.stats.truncated[where] = self.stats.truncated.get(where, 0) + 1
            if error is not None:
                error = truncation_error(where, self.config.max_tokens)
        if error is not None:
            self.stats.parse_failures += 1
        self.stats.tokens.add(usage, cached=cached)
        return Completion(
            split.answer, parsed.value, error, usage, latency, cached, finish, split.thinking, where
        )

    def _wait(self, state: Any) -> float:
        exc = state.outcome.exception() if state.outcome else None
        after = getattr(exc, "retry_after_s", None)
        if after is not None:
            return min(after, self.config.retry_after_max_s)
        return wait_random_exponential(
            multiplier=self.config.backoff_initial_s, max=self.config.backoff_max_s
        )(state)

    def _count_retry(self, state: Any) -> None:
        self.stats.retries += 1
        if self.liveness is not None:
            self.liveness()  # raises if the server this client depends on has died: no retries to a corpse

    async def _post(self, http: httpx.AsyncClient, req: ChatRequest) -> tuple[str, Any, float, Any]:
        params = self.config.request_params()
        thinking = params.pop("thinking", None)
        params[self.token_field] = params.pop("max_tokens")
        body: dict[str, Any] = {
            "model": self.config.model,
            "messages": req.messages,
            **params,
            **self.profile.thinking_fields(thinking),
        }
        dialect = self.dialect
        if req.schema is not None and (fmt := response_format(req.schema, dialect)) is not None:
            body["response_format"] = fmt
        self.stats.http_attempts += 1
        t0 = time.perf_counter()
        resp = await http.post(self._url, json=body, extensions=self._extensions())
        latency = time.perf_counter() - t0
        status = resp.status_code
        self.stats.by_status[str(status)] = self.stats.by_status.get(str(status), 0) + 1
        if status >= 400 and "response_format" in body and self._rejects_json_schema(status, resp.text):
            # llama-cpp-python refuses the json_schema form (with HTTP 500, not 400): use its dialect.
            self.dialect = "json_object"
            self.stats.dialect_switches += 1
            return await self._post(http, req)
        if status == 400 and "max_tokens" in body and self._rejects_max_tokens(resp.text):
            # OpenAI's reasoning models refuse the deprecated name and name the one they take.
            self.token_field = "max_completion_tokens"
            self.stats.dialect_switches += 1
            return await self._post(http, req)
        if 300 <= status < 400:  # httpx does not follow redirects (its default); say so plainly
            message, hint = redirect_refusal(
                status, self.redact(redact_url(resp.headers.get("location", ""))), url=self._shown_url
            )
            raise LLMCallError(message, hint=hint)
        if status in RETRY_STATUSES or status >= 500:
            raise TransientError(
                f"HTTP {status}",
                status=status,
                retry_after_s=parse_retry_after(resp.headers.get("retry-after")),
            )
        if status >= 400:
            message, hint = http_refusal(
                status,
                resp.reason_phrase,
                resp.headers,
                self.redact(resp.text[:300]),
                url=self._shown_url,
                proxy=self._shown_proxy,
            )
            raise LLMCallError(message, hint=hint)
        try:
            data = resp.json()
            choice = data["choices"][0]
            raw = message_text(choice["message"])  # a thinking field comes in <think> tags
        except (
            json.JSONDecodeError,
            UnicodeDecodeError,
            KeyError,
            IndexError,
            TypeError,
            AttributeError,
        ) as e:
            raise TransientError(f"unreadable response body ({type(e).__name__}): {resp.text[:120]!r}") from e
        return raw, data.get("usage"), latency, choice.get("finish_reason")

    def redact(self, text: str) -> str:
        """``text`` without the API key (or echoes of it) and without URL credentials."""
        secrets = [self.config.api_key(), *url_secrets(self.config.base_url), *url_secrets(self.config.proxy)]
        return redact_text(text, secrets)

    def get(self, path: str) -> httpx.Response:
        """One GET of ``{base_url}/{path}`` (``models``) with this client's headers, TLS and proxy rules;
        for ``admitdx llm check``, not for patient text."""
        url, host = connect_url(self.profile.request_url(self.config.base_url, self.config.api_version, path))

        async def get() -> httpx.Response:
            async with self.connection_pools()[0] as http:
                headers = {"Host": host} if host else {}
                return await http.get(url, headers=headers, extensions=self._extensions())

        return asyncio.run(get())

    def _extensions(self) -> dict[str, Any]:
        """A ``localhost`` URL is connected to by address: TLS must still check the name's certificate."""
        if self._host_header is None or not self._url.startswith("https:"):
            return {}
        return {"sni_hostname": urlsplit(self.config.base_url).hostname}

    def _rejects_json_schema(self, status: int, text: str) -> bool:
        """In ``auto`` mode: does this error say the server does not know ``json_schema``?"""
        return (
            self.config.structured == "auto"
            and self.dialect == "json_schema"
            and status in (400, 422, 500)
            and "json_object" in text
            and "json_schema" in text
        )

    def _rejects_max_tokens(self, text: str) -> bool:
        """In ``auto``: does this 400 say ``max_tokens`` is refused for ``max_completion_tokens``?
        (Requests in flight when the first such answer came still carry the old name: each switches.)"""
        return self.config.server == "auto" and "max_tokens" in text and "max_completion_tokens" in text

    def connection_pools(self) -> list[httpx.AsyncClient]:
        """Connection pools for ``concurrency`` concurrent calls of :meth:`acomplete`, at most POOL_SIZE
        connections each; call ``j`` uses pool ``j // POOL_SIZE``. The caller owns them: :meth:`amap`
        opens a set per batch, a Ray worker keeps one set across its shards.

        httpcore scans its whole pool on every request event, so one pool of 128 connections costs
        O(n²) CPU and caps throughput far below concurrency / latency; several small pools do not.
        """
        n = self.config.concurrency
        sizes = [min(POOL_SIZE, n - start) for start in range(0, n, POOL_SIZE)]
        tls = ssl.create_default_context()  # one for all pools: loading CA certificates costs ~30 ms each
        headers = self.profile.auth_headers(self.config.api_key())
        if self._host_header:
            headers["Host"] = self._host_header
        return [
            httpx.AsyncClient(
                verify=tls,
                trust_env=False,  # no HTTP(S)_PROXY / ALL_PROXY, no .netrc: see admitdx.llm.egress
                proxy=self.config.proxy,
                timeout=httpx.Timeout(self.config.timeout_s, connect=min(10.0, self.config.timeout_s)),
                limits=httpx.Limits(max_connections=size, max_keepalive_connections=size),
                headers=headers,
            )
            for size in sizes
        ]

    # ----------------------------------------------------------------- many calls
    async def amap(self, requests: Iterable[ChatRequest]) -> AsyncIterator[tuple[int, Completion]]:
        """Yield ``(index, completion)`` as each finishes, with at most ``concurrency`` in flight.

        Requests are pulled lazily from the iterable, so a 100k-instance run never holds more than
        ``concurrency`` prompts in memory. The first non-transient error stops the batch and is raised.
        """
        source = iter(enumerate(requests))
        done: asyncio.Queue[tuple[int, Completion] | BaseException | None] = asyncio.Queue()

        async def worker(http: httpx.AsyncClient) -> None:
            try:
                for i, req in source:
                    await done.put((i, await self.acomplete(http, req)))
            except Exception as e:
                await done.put(e)
            finally:
                await done.put(None)

        async with contextlib.AsyncExitStack() as stack:
            pools = [await stack.enter_async_context(pool) for pool in self.connection_pools()]
            n = self.config.concurrency
            workers = [asyncio.create_task(worker(pools[w // POOL_SIZE])) for w in range(n)]
            try:
                running = len(workers)
                while running:
                    item = await done.get()
                    if item is None:
                        running -= 1
                    elif isinstance(item, BaseException):
                        raise item
                    else:
                        yield item
            finally:
                for w in workers:
                    w.cancel()
                await asyncio.gather(*workers, return_exceptions=True)

    def map(self, requests: Iterable[ChatRequest]) -> Iterator[tuple[int, Completion]]:
        """Blocking form of :meth:`amap` for synchronous callers (a system's ``predict``).

        The event loop runs in a background thread; closing the iterator early (an exception, a
        Ctrl-C in the consumer) cancels the requests in flight and joins the thread.
        """
        out: queue.Queue[tuple[int, Completion] | BaseException | None] = queue.Queue(maxsize=1024)

        async def pump() -> None:
            try:
                async for item in self.amap(requests):
                    out.put(item)
            except Exception as e:
                out.put(e)
            finally:
                out.put(None)

        loop = asyncio.new_event_loop()
        main = loop.create_task(pump())

        def run() -> None:
            try:
                loop.run_until_complete(main)
            except asyncio.CancelledError:
                pass  # cancelled because the consumer stopped early; nothing left to report
            finally:
                loop.close()

        thread = threading.Thread(target=run, name="admitdx-llm", daemon=True)
        thread.start()
        try:
            while (item := out.get()) is not None:
                if isinstance(item, BaseException):
                    raise item
                yield item
        finally:
            if thread.is_alive():
                # The loop may finish between the check and the call; then there is nothing to cancel.
                with contextlib.suppress(RuntimeError):
                    loop.call_soon_threadsafe(main.cancel)
                while thread.is_alive():  # drain so a blocked put() cannot keep the thread alive
                    with contextlib.suppress(queue.Empty):
                        out.get(timeout=0.05)
                thread.join()

    def complete_json(
        self, messages: list[dict[str, str]], schema: dict[str, Any] | None = None, **key_extra: Any
    ) -> Completion:
        """One blocking call (for scripts and the judge's single questions)."""
        req = ChatRequest(messages, schema, key_extra or None)
        [(_, completion)] = list(self.map([req]))
        return completion
