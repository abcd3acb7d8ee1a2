"""The application shell: Swagger UI from local assets, the OpenAPI document, /metrics, the
`serve` command from the installed script, and no other command importing the server."""

from __future__ import annotations

import base64
import hashlib
import re
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from tests.support.ports import free_port

from ..conftest import EXAMPLES, GPUCTL, REPO, Env
from .conftest import SECRETS, Api


def test_docs_page_uses_only_assets_the_server_itself_serves(api: Api) -> None:
    page = api.client.get("/api/v1/docs")
    assert page.status_code == 200
    urls = re.findall(r"""(?:src|href)=["']([^"']+)["']|url:\s*["']([^"']+)["']""", page.text)
    found = [a or b for a, b in urls]
    assert "/api/v1/docs/assets/swagger-ui-bundle.js" in found
    assert "/api/v1/openapi.json" in found
    for url in found:
        assert url.startswith("/"), f"{url} is not served by gpuctl"
        assert api.client.get(url).status_code == 200, url
    assert "cdn" not in page.text.lower()


def test_docs_page_carries_the_consoles_security_headers(api: Api) -> None:
    page = api.client.get("/api/v1/docs")
    csp = page.headers["content-security-policy"]
    directives = dict(part.strip().partition(" ")[::2] for part in csp.split(";"))
    inline = re.findall(r"<script>(.*?)</script>", page.text, re.DOTALL)
    digests = [base64.b64encode(hashlib.sha256(s.encode()).digest()).decode() for s in inline]
    assert len(digests) == 1  # the script that starts Swagger UI: allowed by its digest alone
    assert directives["script-src"] == f"'self' 'sha256-{digests[0]}'"
    assert directives["style-src"] == "'self'" and directives["default-src"] == "'self'"
    assert directives["frame-ancestors"] == "'none'"
    assert "unsafe" not in csp and "*" not in csp
    assert page.headers["x-frame-options"] == "DENY"
    assert page.headers["x-content-type-options"] == "nosniff"
    assert "validator.swagger.io" not in page.text and '"validatorUrl": null' in page.text


def test_openapi_document_lists_the_routes_and_bearer_auth(api: Api) -> None:
    document = api.client.get("/api/v1/openapi.json").json()
    paths = document["paths"]
    for path in (
        "/api/v1/jobs",
        "/api/v1/jobs/{jobId}",
        "/api/v1/pools/{poolName}",
        "/api/v1/nodes/{nodeName}/labels/{key}",
        "/api/v1/quotas/{userName}",
        "/api/v1/auth/check",
    ):
        assert path in paths, path
    assert document["components"]["securitySchemes"]["HTTPBearer"]["scheme"] == "bearer"
    operations = [op for methods in paths.values() for op in methods.values()]
    assert all(op["security"] == [{"HTTPBearer": []}] for op in operations)
    refusal = paths["/api/v1/jobs/{jobId}"]["get"]["responses"]["404"]
    assert refusal["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/ErrorBody"
    }
    assert document["components"]["schemas"]["ErrorBody"]["required"] == ["error", "message"]


def test_metrics_count_requests_by_route_template_and_code(api: Api) -> None:
    api.call("admin", "GET", "/nodes")
    api.call("admin", "GET", "/jobs/default.nothing-here")
    api.call(None, "GET", "/nodes")
    text = api.client.get("/metrics").text
    assert 'gpuctl_api_requests_total{code="200",method="GET",route="/api/v1/nodes"} 1.0' in text
    assert 'gpuctl_api_requests_total{code="401",method="GET",route="/api/v1/nodes"} 1.0' in text
    assert (
        'gpuctl_api_requests_total{code="404",method="GET",route="/api/v1/jobs/{jobId}"} 1.0'
        in text
    )
    assert 'gpuctl_api_request_duration_seconds_count{method="GET",route="/api/v1/nodes"} 2.0' in (
        text
    )


def test_other_commands_never_import_the_server() -> None:
    code = (
        "import sys\n"
        "from gpuctl.cli.main import main\n"
        f"for args in (['render', '-f', {str(EXAMPLES)!r}, '-o', 'json'],\n"
        "             ['--help'], ['get', '--help']):\n"
        "    try:\n"
        "        main(args)\n"
        "    except SystemExit:\n"
        "        pass\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in\n"
        "    ('fastapi', 'uvicorn', 'starlette', 'prometheus_client', 'fastapi_offline')\n"
        "    or m.startswith('gpuctl.server'))\n"
        "sys.stderr.write(repr(heavy))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=False
    )
    assert done.stderr.rsplit("\n", 1)[-1] == "[]"  # after what render says on stderr


def test_serve_refuses_a_network_address_without_tokens(tmp_path: Path) -> None:
    done = subprocess.run(
        [str(GPUCTL), "serve", "--host", "0.0.0.0", "--kubeconfig", str(tmp_path / "none")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "not a loopback address: give --tokens FILE" in done.stderr
    assert "Traceback" not in done.stderr


def test_serve_on_a_port_in_use_is_one_line_before_anything_starts(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [str(GPUCTL), "serve", "--port", str(port), "--kubeconfig", str(tmp_path / "none")],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert done.returncode == 1
    assert done.stderr == (
        f"error: port {port} is in use (by another process): pick another with --port\n"
    )


def test_serve_takes_one_auth_mode(tmp_path: Path) -> None:
    tokens = tmp_path / "tokens.yaml"
    tokens.write_text("tokens: [{token: x, user: a}]")
    done = subprocess.run(
        [str(GPUCTL), "serve", "--tokens", str(tokens), "--auth", "kubernetes"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.strip() == "error: give --tokens FILE or --auth kubernetes, not both"


def test_installed_serve_answers_over_http(env: Env, token_file: Path) -> None:
    port = free_port()
    server = subprocess.Popen(
        [
            *(str(GPUCTL), "serve", "--port", str(port), "--tokens", str(token_file)),
            *("--kubeconfig", str(env.kubeconfig)),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                answer = httpx.get(f"{base}/api/v1/nodes", headers=_bearer(SECRETS["admin"]))
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "gpuctl serve did not start"
                time.sleep(0.1)
        assert answer.status_code == 200
        assert [n["nodeName"] for n in answer.json()["items"]] == [
            "cpu-0",
            "gpu-a100-0",
            "gpu-a100-1",
            "gpu-t4-0",
        ]
        refused = httpx.get(f"{base}/api/v1/nodes")
        assert refused.status_code == 401
        assert refused.headers["www-authenticate"] == "Bearer"
    finally:
        server.terminate()
        output, _ = server.communicate(timeout=30)
    assert SECRETS["admin"] not in output  # tokens are never logged


def test_serve_over_tls_warns_of_a_token_file_others_may_read(env: Env, token_file: Path) -> None:
    from tests.kube import pki

    pki.generate(token_file.parent / "pki")
    cert, key = token_file.parent / "pki" / "server.crt", token_file.parent / "pki" / "server.key"
    token_file.chmod(0o644)
    port = free_port()
    server = subprocess.Popen(
        [
            *(str(GPUCTL), "serve", "--port", str(port), "--tokens", str(token_file)),
            *("--tls-cert", str(cert), "--tls-key", str(key), "--kubeconfig", str(env.kubeconfig)),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        answer = _first_answer(
            lambda: httpx.get(
                f"https://127.0.0.1:{port}/api/v1/nodes",
                headers=_bearer(SECRETS["admin"]),
                verify=str(token_file.parent / "pki" / "ca.crt"),
            )
        )
        assert answer.status_code == 200 and answer.url.scheme == "https"
        with pytest.raises(httpx.TransportError):
            httpx.get(f"http://127.0.0.1:{port}/api/v1/nodes", headers=_bearer(SECRETS["admin"]))
    finally:
        server.terminate()
        _, errors = server.communicate(timeout=30)
    warnings = [line for line in errors.splitlines() if line.startswith("warning:")]
    assert warnings == [
        f"warning: {token_file} is readable by group or others (mode 0644): chmod 600 "
        f"{token_file}, or keep sha256: digests in it instead of the secrets"
    ]


def test_a_malformed_token_file_stops_serve_with_one_line_and_no_secret(tmp_path: Path) -> None:
    tokens = tmp_path / "tokens.yaml"
    tokens.write_text('tokens:\n  - {token: "the-secret-of-bob-1234", user: bob\n  - {}\n')
    tokens.chmod(0o600)
    done = subprocess.run(
        [str(GPUCTL), "serve", "--tokens", str(tokens), "--kubeconfig", str(tmp_path / "none")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and "the-secret-of-bob" not in done.stderr
    assert done.stderr.startswith(f"error: {tokens}:3:5: cannot read the token file: invalid YAML")


def _first_answer(request: Callable[[], httpx.Response]) -> httpx.Response:
    """The answer of a server that is starting: retried while nothing listens (30 s at most)."""
    deadline = time.monotonic() + 30
    while True:
        try:
            return request()
        except httpx.ConnectError:
            assert time.monotonic() < deadline, "gpuctl serve did not start"
            time.sleep(0.1)


def _bearer(secret: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {secret}"}


def test_without_tokens_every_caller_is_the_admin(open_api: TestClient) -> None:
    answer = open_api.post("/api/v1/auth/check", json={"resource": "pools", "action": "create"})
    assert answer.json() == {
        "allowed": True,
        "message": "anonymous is an admin",
        "user": "anonymous",
        "role": "admin",
    }


def test_the_rest_api_guide_has_a_curl_example_for_every_route(api: Api) -> None:
    section = (REPO / "docs" / "guides" / "rest-api.md").read_text(encoding="utf-8")
    calls = []
    for line in section.splitlines():
        found = re.search(r"(?:-X (\w+) )?\"?\$API(/[^\s\"?]*)", line)
        if line.startswith("curl") and found:
            calls.append((found.group(1) or "GET", found.group(2)))
    document = api.client.get("/api/v1/openapi.json").json()
    missing = []
    for path, operations in document["paths"].items():
        pattern = re.sub(r"\\{[^}]+\\}", "[^/]+", re.escape(path.removeprefix("/api/v1")))
        if path.endswith("/labels/{key}"):
            pattern = pattern.removesuffix("[^/]+") + ".+"  # a label key has a slash
        for method in operations:
            if not any(m == method.upper() and re.fullmatch(pattern, p) for m, p in calls):
                missing.append(f"{method.upper()} {path}")
    assert missing == []
