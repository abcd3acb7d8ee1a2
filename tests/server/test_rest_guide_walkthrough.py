"""The REST API guide's "Try it on the sandbox" answers as it shows: on the sandbox of the README's
first command (examples/sandbox/cluster.yaml, every example applied), with the token file that
ships in examples/sandbox/, alice creates a job in her namespace, is refused one with host
paths, bob does not see it, the admin does, and alice deletes it."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from fastapi.testclient import TestClient

from gpuctl.cluster.client import Cluster
from gpuctl.sandbox import SandboxConfig
from gpuctl.server.app import create_app
from gpuctl.server.auth import Tokens, exposed
from tests.conftest import EXAMPLES, GPUCTL, REPO
from tests.support.sandbox import SandboxCluster

GUIDE = (REPO / "docs" / "guides" / "rest-api.md").read_text(encoding="utf-8")
TOKENS = EXAMPLES / "sandbox" / "tokens.yaml"


def walkthrough() -> str:
    """The guide's bash block that follows **Try it on the sandbox.**"""
    after = GUIDE.split("**Try it on the sandbox.**", 1)[1]
    found = re.search(r"```bash\n(.*?)```", after, re.S)
    assert found is not None
    return found.group(1)


def shown_answers() -> list[Any]:
    """The answers the block shows (its `# {...}` and `# [...]` lines), in order, parsed."""
    return [
        json.loads(line.removeprefix("# "))
        for line in walkthrough().splitlines()
        if line.startswith(("# {", "# ["))
    ]


def secrets() -> dict[str, str]:
    entries = yaml.safe_load(TOKENS.read_text())["tokens"]
    return {entry["user"]: entry["token"] for entry in entries}


@pytest.fixture
def served(make_sandbox: Callable[..., SandboxCluster]) -> Iterator[TestClient]:
    """The API with the shipped token file, on the example sandbox with every example applied."""
    nodes = SandboxConfig.load(EXAMPLES / "sandbox" / "cluster.yaml").nodes
    sandbox = make_sandbox(SandboxConfig.fast(nodes=nodes, job_run_seconds=3600))
    done = subprocess.run(
        [str(GPUCTL), "apply", "-f", "examples/", "--kubeconfig", str(sandbox.kubeconfig)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    app = create_app(Cluster.connect(str(sandbox.kubeconfig)), Tokens.load(str(TOKENS)))
    with TestClient(app, raise_server_exceptions=False) as client:
        yield client


def test_the_shipped_token_file_names_the_guides_users_each_with_a_quota() -> None:
    tokens = Tokens.load(str(TOKENS))
    roles = {user: tokens.who(secret) for user, secret in secrets().items()}
    assert {user: p.role for user, p in roles.items() if p} == {
        "alice": "user",
        "bob": "user",
        "ops": "admin",
    }
    quota = yaml.safe_load((EXAMPLES / "quota.yaml").read_text())
    assert sorted(quota["users"]) == ["alice", "bob"]  # the users' namespaces
    for user, secret in secrets().items():
        assert f"Bearer {secret}" in walkthrough(), user


def test_the_guides_chmod_quiets_serves_warning(tmp_path: Path) -> None:
    copy = tmp_path / "tokens.yaml"
    copy.write_text(TOKENS.read_text())
    os.chmod(copy, 0o644)  # as a checkout leaves it
    assert exposed(str(copy)) is not None
    assert "chmod 600 examples/sandbox/tokens.yaml" in walkthrough()
    os.chmod(copy, 0o600)
    assert stat.S_IMODE(copy.stat().st_mode) == 0o600 and exposed(str(copy)) is None


def test_the_walkthrough_answers_as_the_guide_shows(served: TestClient) -> None:
    keys = secrets()

    def call(user: str, method: str, path: str, **kwargs: Any) -> Any:
        headers = {"Authorization": f"Bearer {keys[user]}"}
        return served.request(method, "/api/v1" + path, headers=headers, **kwargs).json()

    def spec(name: str) -> dict[str, str]:
        return {"yamlContent": (EXAMPLES / name).read_text()}

    made = call("alice", "POST", "/jobs", json=spec("training-placement.yaml"))
    hers = call("alice", "GET", "/jobs")
    refused = call("alice", "POST", "/jobs", json=spec("training.yaml"))
    job = made["jobId"]
    unseen = call("bob", "GET", f"/jobs/{job}")
    admins = call("ops", "GET", "/jobs?namespace=alice")
    deleted = call("alice", "DELETE", f"/jobs/{job}")
    answers = [
        {key: made[key] for key in ("jobId", "namespace", "kind")},
        [item["jobId"] for item in hers["items"]],
        {key: refused[key] for key in ("error", "field")},
        unseen,
        [item["jobId"] for item in admins["items"]],
        {key: deleted[key] for key in ("jobId", "message")},
    ]
    assert "\n# ok\n" in walkthrough()
    assert answers == shown_answers()
