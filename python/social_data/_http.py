"""The transport of the SDK: one HTTP client (urllib.request), the answers (Result, Meta), the
errors (SocialDataError and one subclass per error code, generated into _operations.py), the
retries of 429 and 503 after their Retry-After, and the paging every operation class shares."""
from __future__ import annotations

import json
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any, Callable, Dict, Generic, Iterable, Iterator, List, Mapping, Optional, Set, Tuple, TypeVar

T = TypeVar("T")
I = TypeVar("I")  # noqa: E741 - the item type

USER_AGENT = "social-data-python/1.0"


class SocialDataError(Exception):
    """An error answer of the API: its code, HTTP status, message, request id and details.

    Each error code has its subclass (NotFound, ValidationError, ...); `details` lists
    `{"path", "message"}` problems (422), `retry_after` is the Retry-After in seconds (429, 503).
    """

    code: str = "UNKNOWN"
    status: int = 0

    def __init__(
        self,
        message: str,
        *,
        code: Optional[str] = None,
        status: Optional[int] = None,
        request_id: Optional[str] = None,
        details: Optional[List[Dict[str, str]]] = None,
        retry_after: Optional[float] = None,
        body: Any = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        if status is not None:
            self.status = status
        self.request_id = request_id
        self.details = details or []
        self.retry_after = retry_after
        self.body = body

    def __str__(self) -> str:
        extra = "".join(f"; {d.get('path')}: {d.get('message')}" for d in self.details)
        rid = f" (request {self.request_id})" if self.request_id else ""
        return f"{self.status} {self.code}: {self.message}{extra}{rid}"


class ConnectionFailed(SocialDataError):
    """The API could not be reached (refused, timed out, name not resolved); nothing was answered."""

    code = "CONNECTION_FAILED"


@dataclass(frozen=True)
class Meta:
    """`meta` of a success answer: what it cost, the balance after it, and whether it came from the cache."""

    request_id: str
    credits_charged: int
    credits_remaining: int
    cached: bool
    cached_at: Optional[str] = None

    @classmethod
    def parse(cls, meta: Mapping[str, Any]) -> "Meta":
        return cls(
            request_id=str(meta.get("requestId", "")),
            credits_charged=int(meta.get("creditsCharged", 0)),
            credits_remaining=int(meta.get("creditsRemaining", 0)),
            cached=bool(meta.get("cached", False)),
            cached_at=meta.get("cachedAt"),
        )


@dataclass(frozen=True)
class Result(Generic[T]):
    """An answer: `data` (the operation's payload, a dict) and `meta` (None for the free account
    and monitors APIs, which answer `data` only)."""

    data: T
    meta: Optional[Meta]


def _retry_after(value: Optional[str]) -> Optional[float]:
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        return None
    return seconds if seconds >= 0 else None


def _path(template: str, *values: str) -> str:
    """A route's path with its {placeholders} filled, each value escaped as one path segment."""
    parts = iter(values)
    out = []
    for piece in template.split("/"):
        if piece.startswith("{") and piece.endswith("}"):
            value = next(parts)
            if not value:
                raise ValueError(f"{piece[1:-1]} must not be empty")
            out.append(urllib.parse.quote(str(value), safe=""))
        else:
            out.append(piece)
    return "/".join(out)


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class Transport:
    """One configured connection to the API: base URL, key, timeout and the retry bound."""

    def __init__(
        self,
        *,
        base_url: str,
        api_key: Optional[str],
        timeout: float,
        max_retries: int,
        max_retry_wait: float,
        bearer: bool = False,
        errors: Optional[Mapping[str, type]] = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.timeout = timeout
        self.max_retries = max_retries
        self.max_retry_wait = max_retry_wait
        self.bearer = bearer
        self.errors: Mapping[str, type] = errors or {}
        self.sleep = sleep

    def url(self, path: str, query: Optional[Mapping[str, Any]] = None) -> str:
        pairs = [(k, _query_value(v)) for k, v in (query or {}).items() if v is not None]
        return f"{self.base_url}{path}{'?' + urllib.parse.urlencode(pairs) if pairs else ''}"

    def request(self, method: str, path: str, query: Optional[Mapping[str, Any]] = None, body: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
        """One call, retried on 429 (and on 503 unless it is a POST, which may have done its work)
        after Retry-After, at most `max_retries` times and never waiting longer than `max_retry_wait`."""
        url = self.url(path, query)
        headers = {"accept": "application/json", "user-agent": USER_AGENT}
        if self.api_key:
            if self.bearer:
                headers["authorization"] = f"Bearer {self.api_key}"
            else:
                headers["x-api-key"] = self.api_key
        data = None
        if body is not None:
            data = json.dumps({k: v for k, v in body.items() if v is not None}).encode("utf-8")
            headers["content-type"] = "application/json"
        attempt = 0
        while True:
            attempt += 1
            status, answer_headers, payload = self._send(method, url, headers, data)
            if 200 <= status < 300:
                return payload if isinstance(payload, dict) else {"data": payload}
            error = self._error(status, answer_headers, payload)
            retried = status == 429 or (status == 503 and method != "POST")
            wait = error.retry_after if error.retry_after is not None else 1.0
            if not retried or attempt > self.max_retries or wait > self.max_retry_wait:
                raise error
            self.sleep(wait)

    def _send(self, method: str, url: str, headers: Dict[str, str], data: Optional[bytes]) -> Tuple[int, Mapping[str, str], Any]:
        req = urllib.request.Request(url, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as res:  # noqa: S310 - the caller's base URL
                return res.status, res.headers, _json(res.read())
        except urllib.error.HTTPError as e:
            raw = e.read()
            return e.code, e.headers, _json(raw)
        except (urllib.error.URLError, socket.timeout, ConnectionError) as e:
            reason = getattr(e, "reason", e)
            raise ConnectionFailed(f"Could not reach {self.base_url}: {reason}") from e

    def _error(self, status: int, headers: Mapping[str, str], payload: Any) -> SocialDataError:
        err = payload.get("error") if isinstance(payload, dict) else None
        err = err if isinstance(err, dict) else {}
        code = str(err.get("code") or ("SERVICE_UNAVAILABLE" if status == 503 else f"HTTP_{status}"))
        cls = self.errors.get(code, SocialDataError)
        return cls(
            str(err.get("message") or f"HTTP {status}"),
            code=code,
            status=status,
            request_id=err.get("requestId") or headers.get("x-request-id"),
            details=err.get("details") if isinstance(err.get("details"), list) else None,
            retry_after=_retry_after(headers.get("retry-after")),
            body=payload,
        )


def _json(raw: bytes) -> Any:
    if not raw:
        return None
    try:
        return json.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return None


def item_key(item: Mapping[str, Any], fields: Tuple[str, str]) -> Optional[str]:
    """What tells two items apart across pages, as the command line does (cli/state.ts itemKey):
    the id, and for a repost the time of the repost (a post and its repost share an id). `fields`
    names the two (each generated operation's `_key`, from cli/state.ts ITEM_KEY_FIELDS)."""
    id_field, reposted_field = fields
    ident = item.get(id_field) if isinstance(item, Mapping) else None
    if ident is None or ident == "":
        return None
    reposted = item.get(reposted_field)
    return str(ident) if reposted in (None, "") else f"{ident} reposted {reposted}"


class Items(Iterator[I]):
    """The items of every page, each once (de-duplicated by id across pages), within the bounds.
    It knows the operation's columns, so `to_records` and `to_dataframe` give the command line's."""

    def __init__(self, items: Iterator[I], columns: Tuple[Tuple[str, Tuple[str, ...], bool], ...], operation: str) -> None:
        self._items = items
        self.columns = columns
        self.operation = operation

    def __iter__(self) -> "Items[I]":
        return self

    def __next__(self) -> I:
        return next(self._items)


class _Operation(Generic[T]):
    """What every generated operation class shares: one call, its pages and its items."""

    _id: str = ""
    _path: str = ""
    _cursor: Optional[str] = None
    _list: Optional[str] = None
    _key: Tuple[str, str] = ("", "")
    _columns: Tuple[Tuple[str, Tuple[str, ...], bool], ...] = ()

    def __init__(self, transport: Transport) -> None:
        self._transport = transport

    def __repr__(self) -> str:
        return f"<operation {self._id}: GET {self._path}>"

    def _call(self, params: Mapping[str, Any]) -> Result[T]:
        answer = self._transport.request("GET", self._path, params)
        return Result(data=answer.get("data"), meta=Meta.parse(answer.get("meta") or {}))  # type: ignore[arg-type]

    def _pages(self, params: Mapping[str, Any], max_pages: Optional[int]) -> Iterator[Result[T]]:
        if max_pages is not None and max_pages < 1:
            raise ValueError("max_pages must be at least 1")
        cursor: Optional[str] = None
        pages = 0
        while True:
            query = dict(params)
            if self._cursor and cursor is not None:
                query[self._cursor] = cursor
            page = self._call(query)
            pages += 1
            yield page
            data: Any = page.data if isinstance(page.data, dict) else {}
            following = data.get("cursor") if self._cursor else None
            if following in (None, "") or following == cursor or data.get("hasMore") is False:
                return
            if max_pages is not None and pages >= max_pages:
                return
            cursor = str(following)

    def _items(self, params: Mapping[str, Any], max_pages: Optional[int], max_items: Optional[int]) -> Items[Any]:
        if max_items is not None and max_items < 0:
            raise ValueError("max_items must not be negative")

        def walk() -> Iterator[Any]:
            if max_items == 0:
                return
            seen: Set[str] = set()
            count = 0
            pages: Iterable[Result[T]] = self._pages(params, max_pages) if self._cursor else [self._call(params)]
            for page in pages:
                data: Any = page.data if isinstance(page.data, dict) else {}
                # Only an item an earlier page had is left out: on one page a post and its repost share an id.
                fresh = []
                for item in data.get(self._list) or []:
                    key = item_key(item, self._key)
                    if key is not None and key in seen:
                        continue
                    fresh.append((key, item))
                for key, _ in fresh:
                    if key is not None:
                        seen.add(key)
                for _, item in fresh:
                    yield item
                    count += 1
                    if max_items is not None and count >= max_items:
                        return

        return Items(walk(), self._columns, self._id)


class _Routes:
    """The account and monitors APIs: JSON in, `data` out (no `meta`: they are free)."""

    def __init__(self, transport: Transport) -> None:
        self._transport = transport

    def _send(self, method: str, path: str, query: Optional[Mapping[str, Any]], body: Optional[Mapping[str, Any]]) -> Result[Any]:
        answer = self._transport.request(method, path, query, body)
        return Result(data=answer.get("data"), meta=None)

    def _pages(self, path: str, query: Mapping[str, Any], cursor_name: str) -> Iterator[Result[Any]]:
        cursor: Optional[str] = None
        while True:
            page = self._send("GET", path, {**query, cursor_name: cursor}, None)
            yield page
            data = page.data if isinstance(page.data, dict) else {}
            following = data.get("cursor")
            if following in (None, "") or following == cursor or data.get("hasMore") is False:
                return
            cursor = str(following)
