"""Verifying a monitor's webhook by the Standard Webhooks convention (https://www.standardwebhooks.com):
headers webhook-id, webhook-timestamp and webhook-signature; the signature is the base64 HMAC-SHA256
of "<id>.<timestamp>.<body>" keyed by the secret's bytes (base64 after `whsec_`); the header may hold
several space-separated `v1,<signature>` (during a secret's rotation); the timestamp must be within
5 minutes of now."""
from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import time
from typing import Any, Mapping, Optional, Union

#: How far a webhook's timestamp may be from now, either way, in seconds.
TOLERANCE_SECONDS = 5 * 60
SECRET_PREFIX = "whsec_"


class WebhookVerificationError(Exception):
    """A webhook that is not proven to come from the API: refuse it (answer 400 or 401)."""


def _header(headers: Mapping[str, Any], name: str) -> Optional[str]:
    """A header by name, whatever the case of the mapping's keys (http.server's, a dict, WSGI's)."""
    value = headers.get(name)
    if value is None:
        for key in headers.keys():
            if str(key).lower() == name:
                value = headers[key]
                break
    if isinstance(value, (list, tuple)):
        value = value[0] if value else None
    return None if value is None else str(value)


def _secret_bytes(secret: str) -> bytes:
    raw = secret[len(SECRET_PREFIX):] if secret.startswith(SECRET_PREFIX) else secret
    try:
        return base64.b64decode(raw, validate=True)
    except (binascii.Error, ValueError) as e:
        raise ValueError("The webhook secret is not whsec_<base64>") from e


def sign(secret: str, msg_id: str, timestamp: int, body: Union[bytes, str]) -> str:
    """The `v1,<signature>` of a message (what the API sends; for tests of a receiver)."""
    payload = body.encode("utf-8") if isinstance(body, str) else body
    digest = hmac.new(_secret_bytes(secret), f"{msg_id}.{timestamp}.".encode("utf-8") + payload, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode("ascii")


def verify_webhook(body: Union[bytes, str], headers: Mapping[str, Any], secret: str, *, now: Optional[float] = None) -> Any:
    """The webhook's JSON payload when `body` (the raw bytes received, not re-encoded) carries a valid
    signature of `secret` and a timestamp within 5 minutes; WebhookVerificationError otherwise.
    Receivers de-duplicate on the `webhook-id` header: a redelivery keeps it."""
    msg_id = _header(headers, "webhook-id")
    timestamp = _header(headers, "webhook-timestamp")
    signatures = _header(headers, "webhook-signature")
    if not msg_id or not timestamp or not signatures:
        raise WebhookVerificationError("Missing webhook-id, webhook-timestamp or webhook-signature header")
    try:
        sent = int(timestamp)
    except ValueError:
        raise WebhookVerificationError("Invalid webhook-timestamp") from None
    current = time.time() if now is None else now
    if sent < current - TOLERANCE_SECONDS:
        raise WebhookVerificationError("Message timestamp too old")
    if sent > current + TOLERANCE_SECONDS:
        raise WebhookVerificationError("Message timestamp too new")
    expected = sign(secret, msg_id, sent, body).split(",", 1)[1].encode("ascii")
    matched = False
    for candidate in signatures.split(" "):
        version, _, value = candidate.partition(",")
        # Every candidate is compared (in constant time each), so the time taken tells nothing.
        if version == "v1" and hmac.compare_digest(value.encode("ascii", "replace"), expected):
            matched = True
    if not matched:
        raise WebhookVerificationError("No matching signature found")
    text = body.decode("utf-8") if isinstance(body, bytes) else body
    return json.loads(text)
