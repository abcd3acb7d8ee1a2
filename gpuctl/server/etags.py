"""Weak ETags on the job reads, so a client that polls (the console, every few seconds) gets
304 Not Modified with no body while nothing it sees has changed.

The tag is a hash of the answer's own bytes: two callers get the same tag only for the same
body (another tenant's tag can never stand for a body it did not see), and any change a
caller could see changes it. A 304 carries the tag again and no body; an `If-None-Match`
that names no tag of the current body, or that is not a list of tags at all, is a plain 200.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any, Final

from fastapi import Request, Response

# one entity-tag of an If-None-Match list: W/"..." or "...", the quoted part with no quote
_TAG: Final = re.compile(r'\s*(?:W/)?"([\x21\x23-\x7e]*)"\s*')

HEADER_PARAMETER: Final[dict[str, Any]] = {
    "name": "If-None-Match",
    "in": "header",
    "required": False,
    "description": "the ETag of an earlier answer: 304 with no body while the answer is the same",
    "schema": {"type": "string"},
}
RESPONSES: Final[dict[int | str, dict[str, Any]]] = {
    200: {
        "headers": {
            "ETag": {
                "description": "a weak tag of this answer, for If-None-Match",
                "schema": {"type": "string"},
            }
        }
    },
    304: {
        "description": "Not Modified: the If-None-Match tag is the current answer's; no body",
        "headers": {
            "ETag": {"description": "the current answer's tag", "schema": {"type": "string"}}
        },
    },
}


def tag_of(body: bytes) -> str:
    """The weak ETag of an answer's bytes."""
    return f'W/"{hashlib.sha256(body).hexdigest()[:32]}"'


def matches(if_none_match: str | None, tag: str) -> bool:
    """Whether an If-None-Match header names `tag` (weak comparison, as GET uses): `*`, or a
    comma-separated list of tags one of which is it; anything else matches nothing."""
    if if_none_match is None:
        return False
    if if_none_match.strip() == "*":
        return True
    opaque = tag.removeprefix("W/")
    found = []
    for part in if_none_match.split(","):
        one = _TAG.fullmatch(part)
        if one is None:
            return False  # not a list of entity-tags: ignored, as if it were not sent
        found.append(f'"{one.group(1)}"')
    return opaque in found


def answer(request: Request, body: bytes) -> Response:
    """The JSON answer with its ETag, or 304 with no body when the client has it already."""
    tag = tag_of(body)
    headers = {"ETag": tag, "Cache-Control": "private, no-cache"}
    if matches(request.headers.get("if-none-match"), tag):
        return Response(status_code=304, headers=headers)
    return Response(body, media_type="application/json", headers=headers)
