"""GPUWorkloads checked at admission by the CRD's CEL rules (x-kubernetes-validations), on the
`cluster` fixture: the real API server and the sandbox (which evaluates the same rules with
cel-python) refuse a bad workload with the same 422 and the same words, before any controller
sees it; defaults come from the schema."""

from __future__ import annotations

import json
from typing import Any

import pytest
from kubernetes import client as k8s

from gpuctl.cluster.client import Cluster as Client
from gpuctl.controller import resource
from tests.controller.scene import ensure_crd
from tests.support.sandbox import Cluster


def custom_objects(cluster: Cluster) -> k8s.CustomObjectsApi:
    ensure_crd(Client.connect(str(cluster.kubeconfig)))
    return k8s.CustomObjectsApi(cluster.api_client())


def create(api: k8s.CustomObjectsApi, namespace: str, obj: dict[str, Any]) -> Any:
    return api.create_namespaced_custom_object(
        resource.GROUP, resource.VERSION, namespace, resource.PLURAL, obj
    )


def workload(name: str, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": resource.API_VERSION,
        "kind": resource.KIND,
        "metadata": {"name": name},
        "spec": {"modelName": "llama2", **spec},
    }


def test_a_bad_workload_is_refused_with_the_rules_messages(cluster: Cluster) -> None:
    api = custom_objects(cluster)
    name = "bad"
    bad = workload(
        name,
        retryPolicy={"maxRetries": 100, "backoffSeconds": 300},
        env=[{"name": "MODEL_NAME", "value": "x"}, {"name": "A"}, {"name": "A"}],
    )
    with pytest.raises(k8s.ApiException) as refused:
        create(api, cluster.namespace, bad)
    assert refused.value.status == 422
    body = json.loads(str(refused.value.body))
    rule = 'Invalid value: "object": '
    retries, model, once = (r["message"] for r in resource.SPEC_RULES)
    assert body["message"] == (
        f'GPUWorkload.gpu.warp.dev "{name}" is invalid: [spec: {rule}{retries}, '
        f"spec: {rule}{model}, spec: {rule}{once}]"
    )
    assert body["reason"] == "Invalid"
    assert [(c["field"], c["reason"]) for c in body["details"]["causes"]] == [
        ("spec", "FieldValueInvalid")
    ] * 3


def test_a_good_workload_is_admitted_with_the_schemas_defaults(cluster: Cluster) -> None:
    api = custom_objects(cluster)
    made = create(api, cluster.namespace, workload("fine", env=[{"name": "A", "value": "1"}]))
    spec = made["spec"]
    assert (spec["gpuCount"], spec["priority"], spec["schedulingStrategy"]) == (
        1,
        "medium",
        "leastLoaded",
    )
    assert spec["retryPolicy"] == {"maxRetries": 3, "backoffSeconds": 30}
