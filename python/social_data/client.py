"""The client: `Client(api_key=None, base_url=None, timeout=30.0)`, every operation by platform."""
from __future__ import annotations

import os
import urllib.parse
from typing import Optional

from ._http import Transport
from ._operations import ERRORS, Api

#: Read when `api_key` / `base_url` are not given.
API_KEY_VARIABLE = "SOCIAL_DATA_API_KEY"
API_URL_VARIABLE = "SOCIAL_DATA_API_URL"

_LOOPBACK = ("localhost", "127.0.0.1", "::1")


def _base_url(raw: str) -> str:
    """The base URL, checked: https, or plain http only to this machine (the key never crosses a
    network in clear); its path is kept (a deployment's stage, `/prod`)."""
    text = raw.strip()
    if "://" not in text:
        text = f"https://{text}"
    url = urllib.parse.urlsplit(text)
    if url.scheme not in ("https", "http") or not url.hostname:
        raise ValueError(f"Invalid base URL: {raw!r}")
    host = url.hostname
    if url.scheme == "http" and not (host in _LOOPBACK or host.endswith(".localhost") or host.startswith("127.")):
        raise ValueError(f"Plain http is accepted only for a server on this machine; the API key would cross the network in clear: use https://{url.netloc}{url.path}")
    if url.username or url.password or url.query or url.fragment:
        raise ValueError("The base URL takes no user, password, query or fragment")
    return f"{url.scheme}://{url.netloc}{url.path.rstrip('/')}"


class Client(Api):
    """The Social data API.

        client = Client()  # SOCIAL_DATA_API_KEY and SOCIAL_DATA_API_URL from the environment
        answer = client.microblog_a.user_posts(handle="alice.bsky.social", cache_max_age="1d")
        answer.data["posts"], answer.meta.credits_remaining

    Args:
        api_key: the team's key (default: $SOCIAL_DATA_API_KEY).
        base_url: e.g. `https://abc.execute-api.eu-west-1.amazonaws.com/prod` or
            `http://localhost:3000` (default: $SOCIAL_DATA_API_URL).
        timeout: seconds to wait for an answer (each attempt).
        max_retries: how many times a 429 or 503 is tried again after its Retry-After (0: never).
        max_retry_wait: the longest Retry-After waited for, in seconds; a longer one raises at once.
        bearer: send the key as `Authorization: Bearer` instead of `x-api-key`.
    """

    def __init__(
        self,
        api_key: Optional[str] = None,
        base_url: Optional[str] = None,
        timeout: float = 30.0,
        *,
        max_retries: int = 2,
        max_retry_wait: float = 30.0,
        bearer: bool = False,
    ) -> None:
        key = api_key if api_key is not None else os.environ.get(API_KEY_VARIABLE)
        url = base_url if base_url is not None else os.environ.get(API_URL_VARIABLE)
        if not url:
            raise ValueError(f"No API URL: pass base_url= or set {API_URL_VARIABLE}")
        if max_retries < 0:
            raise ValueError("max_retries must not be negative")
        transport = Transport(base_url=_base_url(url), api_key=key or None, timeout=timeout, max_retries=max_retries, max_retry_wait=max_retry_wait, bearer=bearer, errors=ERRORS)
        super().__init__(transport)

    def __repr__(self) -> str:
        return f"<social_data.Client {self._transport.base_url}>"
