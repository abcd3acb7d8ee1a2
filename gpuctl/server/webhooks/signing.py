"""Standard Webhooks signing (https://www.standardwebhooks.com): a secret is `whsec_` and the
base64 of random bytes; each request carries `webhook-id` (the same on every retry of one
message), `webhook-timestamp` (seconds, the attempt's) and `webhook-signature`, space-separated
`v1,<base64 of HMAC-SHA256(key, "<id>.<timestamp>.<body>")>`, one per secret in force (two
while a rotated secret's overlap lasts), so receivers verify with any `standardwebhooks`
library."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from collections.abc import Sequence

PREFIX = "whsec_"
SECRET_BYTES = 32  # the standard asks for 24 to 64


def new_secret() -> str:
    return PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode()


def _key(secret: str) -> bytes:
    return base64.b64decode(secret.removeprefix(PREFIX))


def signature(secret: str, message_id: str, timestamp: int, body: bytes) -> str:
    signed = f"{message_id}.{timestamp}.".encode() + body
    digest = hmac.new(_key(secret), signed, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


def headers(
    in_force: Sequence[str], message_id: str, timestamp: int, body: bytes
) -> dict[str, str]:
    """The three Standard Webhooks headers for one attempt, signed with every secret given."""
    return {
        "webhook-id": message_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": " ".join(signature(s, message_id, timestamp, body) for s in in_force),
    }
