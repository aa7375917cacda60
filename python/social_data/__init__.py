"""Social data API for Python: every operation as a method, typed from the same table as the API.

    from social_data import Client
    client = Client()  # SOCIAL_DATA_API_KEY, SOCIAL_DATA_API_URL
    posts = client.microblog_a.user_posts.items(handle="alice.bsky.social", max_items=100)

See docs/python.md. Standard library only; pandas is used by to_dataframe when it is installed.
"""
from ._http import ConnectionFailed, Items, Meta, Result, SocialDataError, item_key
from ._operations import (
    ERRORS,
    OPERATIONS,
    BadRequest,
    CacheMaxAge,
    ExtractionFailed,
    InsufficientCredits,
    NotFound,
    PlatformUnavailable,
    RateLimited,
    ServiceUnavailable,
    Unauthorized,
    UpstreamBlocked,
    ValidationError,
)
from .client import Client
from .records import to_dataframe, to_records
from .webhooks import WebhookVerificationError, verify_webhook

__version__ = "1.0.0"

__all__ = [
    "Client",
    "Result",
    "Meta",
    "Items",
    "item_key",
    "CacheMaxAge",
    "OPERATIONS",
    "ERRORS",
    "SocialDataError",
    "ConnectionFailed",
    "BadRequest",
    "Unauthorized",
    "InsufficientCredits",
    "NotFound",
    "ValidationError",
    "RateLimited",
    "UpstreamBlocked",
    "ExtractionFailed",
    "PlatformUnavailable",
    "ServiceUnavailable",
    "verify_webhook",
    "WebhookVerificationError",
    "to_records",
    "to_dataframe",
]
