"""A job id written `<namespace>/<name>` in a path: `/api/v1/jobs/team-a%2Fweb/logs`.

The server decodes a path before it routes it, so the escaped slash would split the id into
two segments and match no route (or another one). Before routing, this middleware writes such
an id as `<namespace>.<name>`: the same job, since neither a namespace nor a job's name holds a
'.' or a '/' (gpuctl.spec.jobref). Every other path is left as it came.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

from starlette.types import ASGIApp, Receive, Scope, Send

_ESCAPED_SLASH = re.compile(rb"%2f", re.IGNORECASE)


class JobIdSlash:
    """Rewrites `<prefix>/jobs/<namespace>%2F<name>[/...]` to `<namespace>.<name>`."""

    def __init__(self, app: ASGIApp, prefix: str) -> None:
        self.app = app
        self.jobs = (prefix + "/jobs/").encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        raw = scope.get("raw_path") if scope["type"] in ("http", "websocket") else None
        if isinstance(raw, bytes) and raw.startswith(self.jobs):
            segment, slash, rest = raw[len(self.jobs) :].partition(b"/")
            dotted = _ESCAPED_SLASH.sub(b".", segment)
            if dotted != segment:
                rewritten = self.jobs + dotted + slash + rest
                scope = {**scope, "raw_path": rewritten, "path": unquote(rewritten.decode())}
        await self.app(scope, receive, send)
