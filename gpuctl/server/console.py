"""The web console at `/`: the static files built from console/ (a Preact app, built with
Vite into gpuctl/server/console_dist and shipped in the package, so no Node is needed to
serve it). It talks to the cluster only through the public API under /api/v1, on the same
origin.

- `/assets/<hashed name>` are the built scripts and styles: cached for a year (a new build
  has new names).
- A top-level file of the build (`/favicon.svg`, which index.html links) is served as it is,
  revalidated before use (its name has no hash).
- Any other path is a page of the console (`/`, `/jobs/<id>`): index.html, never cached,
  which routes in the browser; but a missing asset, or a missing top-level file
  (`/favicon.ico`), is 404.
- Paths under /api, /metrics and /readyz are the API's own (their routes come first; an
  unknown /api path keeps the API's 404 in the error shape).

Every console answer carries a Content-Security-Policy that allows scripts, styles and
connections (HTTP and the logs' WebSocket) only from the console's own origin (no inline
script, no CDN, no outside font), may not be framed (`frame-ancestors 'none'`,
`X-Frame-Options: DENY`) and is not sniffed (`X-Content-Type-Options: nosniff`)."""

from __future__ import annotations

import base64
import hashlib
import importlib.resources
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, Response
from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException
from starlette.routing import Match
from starlette.types import Scope

BUILT: Final = Path(str(importlib.resources.files("gpuctl.server") / "console_dist"))
INDEX: Final = "index.html"
ASSETS: Final = "assets/"
API: Final = "/api"
FOREVER: Final = "public, max-age=31536000, immutable"
INLINE_SCRIPT: Final = re.compile(r"<script>(.*?)</script>", re.DOTALL)
HOST: Final = re.compile(r"[A-Za-z0-9.-]+(:[0-9]{1,5})?|\[[0-9A-Fa-f:.]+\](:[0-9]{1,5})?")


def content_security_policy(host: str | None, scripts: Sequence[str] = ()) -> str:
    """The console's CSP; `host` (the request's Host header, when it is a plain host[:port])
    adds its ws:/wss: origins, which not every browser counts as 'self'; `scripts` are the
    `sha256-<base64>` digests of inline scripts the page may run (the Swagger page's one)."""
    sockets = f" ws://{host} wss://{host}" if host and HOST.fullmatch(host) else ""
    inline = "".join(f" '{digest}'" for digest in scripts)
    return "; ".join(
        (
            "default-src 'self'",
            f"script-src 'self'{inline}",
            "style-src 'self'",
            "img-src 'self' data:",
            "font-src 'self'",
            f"connect-src 'self'{sockets}",
            "object-src 'none'",
            "base-uri 'none'",
            "form-action 'self'",
            "frame-ancestors 'none'",
        )
    )


def security_headers(host: str | None, scripts: Sequence[str] = ()) -> dict[str, str]:
    """The headers of every page gpuctl serves (the console's, the Swagger page's)."""
    return {
        "Content-Security-Policy": content_security_policy(host, scripts),
        "X-Frame-Options": "DENY",
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
    }


def inline_script_digests(html: str) -> tuple[str, ...]:
    """The CSP digests (`sha256-<base64>`) of the inline scripts of `html`."""
    return tuple(
        "sha256-" + base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
        for script in INLINE_SCRIPT.findall(html)
    )


def built_file(root: Path, path: str) -> Path | None:
    """The built file at `path`, None when there is none (or `path` leaves `root`)."""
    wanted = (root / path).resolve()
    if not wanted.is_relative_to(root.resolve()) or not wanted.is_file():
        return None
    return wanted


def _file_like(path: str) -> bool:
    """A path that names a file, not a page: under assets/, or `name.ext` at the top (a job's
    page, `/jobs/<namespace>.<name>`, has a dot too)."""
    return path.startswith(ASSETS) or ("/" not in path and "." in path)


class PageRoute(APIRoute):
    """The console's catch-all, which never takes a path under /api: an unknown API path
    stays the API's 404 (also for a POST, which a GET-only catch-all would make a 405)."""

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        path = str(scope.get("path", ""))
        if path == API or path.startswith(API + "/"):
            return Match.NONE, {}
        return super().matches(scope)


def install(app: FastAPI, root: Path = BUILT) -> None:
    """Serve the console built into `root` at `/`; call it after every other route."""

    async def console(path: str, request: Request) -> Response:
        headers = security_headers(request.headers.get("host"))
        found = built_file(root, path) if path else None
        if found is not None and path.startswith(ASSETS):
            return FileResponse(found, headers={**headers, "Cache-Control": FOREVER})
        if found is not None and _file_like(path) and path != INDEX:
            return FileResponse(found, headers={**headers, "Cache-Control": "no-cache"})
        if found is None and _file_like(path):
            raise HTTPException(404, f"no file {path!r} in the console")
        index = root / INDEX
        if not index.is_file():
            raise HTTPException(404, "the console is not built into this installation")
        return FileResponse(index, headers={**headers, "Cache-Control": "no-cache"})

    app.router.add_api_route(
        "/{path:path}",
        console,
        methods=["GET", "HEAD"],
        include_in_schema=False,
        route_class_override=PageRoute,
    )
