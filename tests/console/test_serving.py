"""`gpuctl serve` serves the built console at `/`: the pages fall back to index.html (never
cached), the hashed assets are cached for a year, every console answer carries the security
headers, and the API's own paths are unaffected."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from gpuctl.server import console
from gpuctl.server.app import create_app
from gpuctl.server.auth import Tokens

from .conftest import BUILT


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    app = create_app(None, None)  # type: ignore[arg-type]
    with TestClient(app, base_url="http://localhost") as served:
        yield served


def _asset(suffix: str) -> str:
    return "/" + str(next(BUILT.glob(f"assets/*{suffix}")).relative_to(BUILT))


def _assert_secure(headers: dict[str, str] | object) -> None:
    assert hasattr(headers, "get")
    csp = str(headers.get("content-security-policy"))
    directives = {}
    for part in filter(None, (d.strip() for d in csp.split(";"))):
        name, _, value = part.partition(" ")
        directives[name] = value
    assert directives["default-src"] == "'self'"
    assert directives["script-src"] == "'self'"  # no 'unsafe-inline', no CDN
    assert directives["style-src"] == "'self'"
    assert directives["connect-src"].startswith("'self'")
    assert directives["frame-ancestors"] == "'none'"
    assert "unsafe" not in csp and "*" not in csp and "http" not in csp
    assert headers.get("x-frame-options") == "DENY"
    assert headers.get("x-content-type-options") == "nosniff"


@pytest.mark.parametrize("page", ["/", "/jobs", "/jobs/alice.train-1", "/some/page"])
def test_console_pages_are_index_html_never_cached(client: TestClient, page: str) -> None:
    answer = client.get(page)
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/html")
    assert answer.content == (BUILT / "index.html").read_bytes()
    assert answer.headers["cache-control"] == "no-cache"
    _assert_secure(answer.headers)


def test_hashed_assets_are_cached_for_a_year(client: TestClient) -> None:
    for suffix, media in ((".js", "text/javascript"), (".css", "text/css")):
        path = _asset(suffix)
        answer = client.get(path)
        assert answer.status_code == 200
        assert answer.headers["content-type"].startswith(media)
        assert answer.headers["cache-control"] == "public, max-age=31536000, immutable"
        assert answer.content == (BUILT / path.lstrip("/")).read_bytes()
        _assert_secure(answer.headers)


def test_the_websocket_origin_is_the_requests_own_host() -> None:
    # a token file (with no token in it): the server then answers any Host
    client = TestClient(create_app(None, Tokens([])))  # type: ignore[arg-type]
    csp = client.get("/", headers={"host": "gpu.example:8080"}).headers["content-security-policy"]
    assert "connect-src 'self' ws://gpu.example:8080 wss://gpu.example:8080;" in csp
    forged = client.get("/", headers={"host": "x; script-src *"}).headers
    assert "connect-src 'self';" in forged["content-security-policy"]
    _assert_secure(forged)


def test_the_favicon_index_html_links_is_served(client: TestClient) -> None:
    index = (BUILT / "index.html").read_text()
    assert '<link rel="icon" type="image/svg+xml" href="/favicon.svg"' in index
    answer = client.get("/favicon.svg")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("image/svg+xml")
    assert answer.content == (BUILT / "favicon.svg").read_bytes()
    assert answer.content.startswith(b"<svg ")
    assert answer.headers["cache-control"] == "no-cache"  # no hash in its name: revalidated
    _assert_secure(answer.headers)


@pytest.mark.parametrize("path", ["/assets/missing.js", "/favicon.ico", "/robots.txt"])
def test_a_missing_file_is_404_not_the_page(client: TestClient, path: str) -> None:
    answer = client.get(path)
    assert answer.status_code == 404
    assert answer.json()["error"] == "NotFound"


def test_api_paths_are_the_apis_own(client: TestClient) -> None:
    missing = client.get("/api/v1/no-such-route")
    assert (missing.status_code, missing.json()) == (
        404,
        {"error": "NotFound", "message": "Not Found"},
    )
    assert client.get("/api").status_code == 404
    for method in ("POST", "PUT", "DELETE"):  # not the console's 405: no route of the API
        wrong = client.request(method, "/api/v1/no-such-route")
        assert (wrong.status_code, wrong.json()["error"]) == (404, "NotFound"), method
    assert client.get("/readyz").text == "ok\n"
    assert "gpuctl_api_requests" in client.get("/metrics").text
    docs = client.get("/api/v1/docs")
    assert docs.status_code == 200 and "swagger-ui" in docs.text
    # the console's headers, its policy allowing the page's one inline script by its digest
    assert "script-src 'self' 'sha256-" in docs.headers["content-security-policy"]
    assert docs.headers["x-frame-options"] == "DENY"
    assert client.get("/api/v1/openapi.json").json()["info"]["title"] == "gpuctl"
    assert all(
        not path.startswith("/{") for path in client.get("/api/v1/openapi.json").json()["paths"]
    )


def test_a_path_out_of_the_build_is_never_served(tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text("no")
    root = tmp_path / "built"
    (root / "assets").mkdir(parents=True)
    (root / "assets" / "a.js").write_text("1")
    assert console.built_file(root, "assets/a.js") == (root / "assets" / "a.js").resolve()
    assert console.built_file(root, "../secret.txt") is None
    assert console.built_file(root, "assets/../../secret.txt") is None
    assert console.built_file(root, "assets") is None  # a folder


def test_an_installation_without_the_build_says_so(tmp_path: Path) -> None:
    app = create_app(None, None)  # type: ignore[arg-type]
    app.router.routes.pop()  # the console of the package, replaced by an empty build
    console.install(app, tmp_path)
    answer = TestClient(app, base_url="http://localhost").get("/")
    assert answer.status_code == 404
    assert answer.json()["message"] == "the console is not built into this installation"
