"""The official client's typed APIs on a sandbox, shared by the sandbox tests.

The client's own type hints want model objects; the tests speak plain dicts, as gpuctl does.
"""

from __future__ import annotations

from typing import Any

from kubernetes import client

from tests.support.sandbox import SandboxCluster


def core(cluster: SandboxCluster) -> Any:
    return client.CoreV1Api(cluster.api_client())


def batch(cluster: SandboxCluster) -> Any:
    return client.BatchV1Api(cluster.api_client())


def apps(cluster: SandboxCluster) -> Any:
    return client.AppsV1Api(cluster.api_client())
