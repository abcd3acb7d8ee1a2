"""Every operation of the API's contract (docs/openapi.json) has its Client method, named in
gpuctl_client.operations.OPERATIONS, and that method sends that operation's request (its HTTP
method and path, on a mock transport): an endpoint added to the contract without a method
fails here, naming it."""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from gpuctl_client import ApiError, Client, RetryPolicy
from gpuctl_client.operations import OPERATIONS

CONTRACT = Path(__file__).resolve().parents[3] / "docs" / "openapi.json"
HTTP_METHODS = ("get", "put", "post", "delete", "patch", "head", "options")
# the arguments of methods whose placeholders (below) the SDK would refuse before sending
SAMPLE_ARGUMENTS: dict[str, tuple[object, ...]] = {
    "createWebhook": ("https://1.1.1.1/hook", ["job.succeeded"]),
    "pushCustomMetrics": ("default.a", {"loss": 1.0}),
    "checkAccess": ("jobs", "create"),  # a resource and an action the contract names
}


def contract_operations() -> dict[str, tuple[str, str]]:
    """operationId -> (HTTP method, path template) of every operation in the contract."""
    document = json.loads(CONTRACT.read_text(encoding="utf-8"))
    found: dict[str, tuple[str, str]] = {}
    for path, item in document["paths"].items():
        for method in HTTP_METHODS:
            if method in item:
                found[item[method]["operationId"]] = (method.upper(), path)
    return found


def test_every_operation_of_the_contract_has_a_method() -> None:
    operations = contract_operations()
    missing = sorted(set(operations) - set(OPERATIONS))
    assert not missing, (
        f"operations of docs/openapi.json without an SDK method: {', '.join(missing)}; add "
        "each to sdk/python/gpuctl_client/client.py and gpuctl_client/operations.OPERATIONS"
    )
    gone = sorted(set(OPERATIONS) - set(operations))
    assert not gone, f"OPERATIONS names operations the contract does not have: {gone}"


def _method_of(client: Client, dotted: str) -> Callable[..., Any]:
    found: Any = client
    for name in dotted.split("."):
        found = getattr(found, name)
    assert callable(found), f"{dotted} is not a method of Client"
    method: Callable[..., Any] = found
    return method


def _placeholders(method: Callable[..., Any]) -> list[object]:
    """A value for each parameter without a default: a list for a list, 1 for a number,
    else a string (one path segment)."""
    values: list[object] = []
    for parameter in inspect.signature(method).parameters.values():
        if parameter.default is not inspect.Parameter.empty or parameter.kind in (
            inspect.Parameter.VAR_KEYWORD,
            inspect.Parameter.VAR_POSITIONAL,
            inspect.Parameter.KEYWORD_ONLY,
        ):
            continue
        kind = str(parameter.annotation)
        values.append(["x"] if "list[" in kind else 1 if kind.startswith("int") else "x")
    return values


def _path_pattern(template: str) -> re.Pattern[str]:
    return re.compile("^" + re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(template)) + "$")


@pytest.mark.parametrize("operation", sorted(OPERATIONS))
def test_each_method_sends_its_operations_request(operation: str) -> None:
    expected = contract_operations().get(operation)
    assert expected is not None, f"{operation} is not in docs/openapi.json"
    sent: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(404, json={"error": "Probe", "message": "what was sent is kept"})

    transport = httpx.MockTransport(answer)
    with Client("http://api", "t", retry=RetryPolicy(deadline=0), transport=transport) as client:
        method = _method_of(client, OPERATIONS[operation])
        arguments = SAMPLE_ARGUMENTS.get(operation) or tuple(_placeholders(method))
        with pytest.raises(ApiError) as refused:
            method(*arguments)
    assert refused.value.error == "Probe"
    assert len(sent) == 1
    verb, template = expected
    assert sent[0].method == verb, f"{OPERATIONS[operation]} sent {sent[0].method}, not {verb}"
    assert _path_pattern(template).match(sent[0].url.path), (
        f"{OPERATIONS[operation]} sent {sent[0].url.path}, not {template}"
    )
