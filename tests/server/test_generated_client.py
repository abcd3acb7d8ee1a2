"""A client generated from the committed contract (openapi-python-client, `generate_client`)
calls every operation of the document against the installed `gpuctl serve` on the sandbox,
with a real Prometheus scraping a DCGM-named exporter and a real Pushgateway: each answer
parses into the model the document declares for it, and the test fails, naming it, when the
document has an operation that it did not call.

The generator writes one parser per answer, for the first media type the answer lists: the
YAML answers of `listNodes`/`getNode` (`accept=application/yaml`) and the `text/plain` stream of
`getJobLogs?follow=true` are read from the request the generated module builds
(`_get_kwargs`), sent by the generated client's own httpx client (docs/guides/api-contract.md:
the generator's limits)."""

from __future__ import annotations

import contextlib
import importlib
import io
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import yaml

from gpuctl.cluster.errors import AlreadyExists
from gpuctl.controller import resource
from tests.monitoring.conftest import (
    Exporter,
    GpuSeries,
    exporter,
    prometheus_and_pushgateway,
    pushgateway_url,
    wait_scraped,
)
from tests.support.sandbox import wait_for

from ..conftest import Env
from .conftest import QUOTA, SECRETS, inference, training
from .test_contract import COMMITTED, generate_client
from .test_hostile import served
from .webhook_receiver import Receiver, _receiver

# fixtures used by name
__all__ = ["_receiver", "exporter", "prometheus_and_pushgateway", "pushgateway_url"]
YAML = "application/yaml"


def _function_name(operation_id: str) -> str:
    """The generated module (and function) of an operation: its id in snake case."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", operation_id).lower()


def _document_operations() -> dict[str, dict[str, Any]]:
    """Every operation of the committed document, by its generated module's name."""
    document = yaml.safe_load(COMMITTED.read_text(encoding="utf-8"))
    return {
        _function_name(operation["operationId"]): operation
        for methods in document["paths"].values()
        for operation in methods.values()
    }


@dataclass
class Generated:
    """The generated package, an admin's and alice's clients, and the operations called."""

    package: str
    base: str
    called: list[str] = field(default_factory=list)
    operations: dict[str, dict[str, Any]] = field(default_factory=_document_operations)

    def __post_init__(self) -> None:
        client_module = importlib.import_module(self.package)
        self.models = importlib.import_module(f"{self.package}.models")
        self.types = importlib.import_module(f"{self.package}.types")
        self.clients = {
            who: client_module.AuthenticatedClient(base_url=self.base, token=SECRETS[who])
            for who in ("admin", "alice")
        }

    def _module(self, tag: str, operation: str) -> Any:
        self.called.append(operation)
        return importlib.import_module(f"{self.package}.api.{tag}.{operation}")

    def call(self, tag: str, operation: str, who: str = "admin", **kwargs: Any) -> Any:
        """The generated `sync_detailed`: its Response (status_code, parsed, content)."""
        module = self._module(tag, operation)
        return module.sync_detailed(client=self.clients[who], **kwargs)

    def ok(self, model: str, answer: Any, status: int = 200) -> Any:
        """`answer`'s parsed body, checked to be the declared model with the right status."""
        assert answer.status_code == status, (answer.status_code, answer.content)
        assert isinstance(answer.parsed, getattr(self.models, model)), answer.content
        return answer.parsed

    def error(self, answer: Any, status: int, code: str, listed: bool = True) -> Any:
        """`answer`, an error, parsed as the document's `ErrorBody` with its code; its status
        one that the operation lists (`listed`), else one its `default` answer stands for."""
        assert answer.status_code == status, (answer.status_code, answer.content)
        responses = self.operations[self.called[-1]]["responses"]
        assert (str(status) in responses) is listed, (self.called[-1], status)
        assert isinstance(answer.parsed, self.models.ErrorBody), answer.content
        assert answer.parsed.error == code and answer.parsed.message
        return answer.parsed

    @contextlib.contextmanager
    def raw(self, tag: str, operation: str, **kwargs: Any) -> Iterator[httpx.Response]:
        """The request the generated module builds, sent (streamed) by the admin's generated
        client, its answer unparsed: for the media types the generator does not read."""
        request = self._module(tag, operation)._get_kwargs(**kwargs)
        httpx_client = self.clients["admin"].get_httpx_client()
        with httpx_client.stream(**request) as answer:
            yield answer


def test_the_generated_client_calls_every_operation(
    env: Env,
    token_file: Path,
    tmp_path: Path,
    exporter: Exporter,
    prometheus_and_pushgateway: tuple[str, str],
    receiver: Receiver,
) -> None:
    prometheus, pushgateway = prometheus_and_pushgateway
    package = generate_client(tmp_path)
    sys.path.insert(0, str(tmp_path))
    flags = ("--prometheus-url", prometheus, "--pushgateway-url", pushgateway)
    try:
        with served(env, token_file, *flags, "--webhook-allow-cidr", "127.0.0.0/8") as server:
            api = Generated(package, server.base)
            _quotas_and_access(api)
            _jobs(api, env)
            _metrics(api, env, exporter, prometheus, pushgateway)
            _logs(api)
            _pools(api)
            _nodes(api, env)
            _webhooks(api, receiver)
            _workloads(api, env)
            _clean_up(api, env)
    finally:
        sys.path.remove(str(tmp_path))
        for name in [name for name in sys.modules if name.startswith(package)]:
            del sys.modules[name]
    ids = {name: operation["operationId"] for name, operation in api.operations.items()}
    not_called = sorted(ids[name] for name in set(ids) - set(api.called))
    assert not_called == [], f"operations no generated call covers: {not_called}"
    assert set(api.called) <= set(ids)


def _quotas_and_access(api: Generated) -> None:
    models = api.models
    made = api.ok(
        "QuotasCreated",
        api.call("quotas", "create_quota", body=models.QuotaCreate(yaml_content=QUOTA)),
        201,
    )
    assert made.users == ["alice", "bob"]
    listed = api.ok("QuotaList", api.call("quotas", "list_quotas"))
    assert sorted(item.user_name for item in listed.items) == ["alice", "bob"]
    alice = api.ok("QuotaList", api.call("quotas", "get_quota", user_name="alice"))
    assert [(item.user_name, item.gpu.hard) for item in alice.items] == [("alice", "4")]
    api.error(api.call("quotas", "get_quota", user_name="carol"), 404, "QuotaNotFound")

    asked = models.AuthCheck(
        resource=models.AuthCheckResource.POOLS, action=models.AuthCheckAction.CREATE
    )
    allowed = api.ok("AuthDecision", api.call("auth", "check_access", body=asked))
    assert allowed.allowed is True
    refused = api.ok("AuthDecision", api.call("auth", "check_access", "alice", body=asked))
    assert refused.allowed is False


def _jobs(api: Generated, env: Env) -> None:
    """Create (JSON, YAML, a batch), list, read, the rendered manifests."""
    models, jobs = api.models, "jobs"
    made = api.ok(
        "JobCreated",
        api.call(jobs, "create_job", body=models.JobCreate(yaml_content=training("a"))),
        201,
    )
    assert (made.job_id, made.status, made.kind) == ("default.a", "pending", "training")
    assert isinstance(made.kind, models.JobKind)
    spec = api.types.File(payload=io.BytesIO(training("b").encode()), mime_type=YAML)
    from_yaml = api.ok("JobCreated", api.call(jobs, "create_job", body=spec), 201)
    assert from_yaml.job_id == "default.b"

    batch = models.JobBatchCreate(yaml_contents=[training("c"), "kind: nothing\n"])
    both = api.ok("JobBatch", api.call(jobs, "create_jobs_batch", body=batch), 207)
    assert [made.job_id for made in both.success] == ["default.c"]
    assert [(failed.index, failed.error) for failed in both.failed] == [(1, "InvalidYAML")]

    listed = api.ok(
        "JobList", api.call(jobs, "list_jobs", kind=models.JobKind.TRAINING, page_size=2)
    )
    assert listed.total == 3 and len(listed.items) == 2
    one = api.ok("JobDetail", api.call(jobs, "get_job", job_id="default.a"))
    assert (one.name, one.k_8_s_resources.job_name) == ("a", "a")
    api.error(api.call(jobs, "get_job", job_id="default.nothing"), 404, "JobNotFound")
    _idempotency(api)
    _cluster_errors(api, env)
    rendered = api.ok("JobManifests", api.call(jobs, "get_job_manifests", job_id="default.a"))
    assert rendered.job_id == "default.a"
    assert ("Job", "a") in [(m.kind, m.name) for m in rendered.manifests]
    assert env.cluster.get("Job", "a", "default")["metadata"]["name"] == "a"


def _idempotency(api: Generated) -> None:
    """A repeated Idempotency-Key: the first job again (200), or 422 for another body."""
    models, jobs = api.models, "jobs"
    body = models.JobCreate(yaml_content=training("d"))
    first = api.call(jobs, "create_job", body=body, idempotency_key="key-d")
    assert api.ok("JobCreated", first, 201).job_id == "default.d"
    again = api.call(jobs, "create_job", body=body, idempotency_key="key-d")
    assert api.ok("JobCreated", again, 200).job_id == "default.d"
    other = models.JobCreate(yaml_content=training("e"))
    reused = api.call(jobs, "create_job", body=other, idempotency_key="key-d")
    assert api.error(reused, 422, "IdempotencyKeyReused").field == "Idempotency-Key"

    batch = models.JobBatchCreate(yaml_contents=[training("f")])
    made = api.call(jobs, "create_jobs_batch", body=batch, idempotency_key="key-f")
    assert [job.job_id for job in api.ok("JobBatch", made, 201).success] == ["default.f"]
    batch = models.JobBatchCreate(yaml_contents=[training("g")])
    reused = api.call(jobs, "create_jobs_batch", body=batch, idempotency_key="key-f")
    refused = api.ok("JobBatchRefused", reused, 422)
    assert [(item.index, item.error) for item in refused.failed] == [(0, "IdempotencyKeyReused")]
    assert (refused.success, refused.error, refused.field) == (
        [],
        "IdempotencyKeyReused",
        "Idempotency-Key",
    )
    nothing = models.JobBatchCreate(yaml_contents=["kind: nothing\n"])
    failed = api.ok("JobBatchRefused", api.call(jobs, "create_jobs_batch", body=nothing), 422)
    assert [(item.index, item.error) for item in failed.failed] == [(0, "InvalidYAML")]


def _cluster_errors(api: Generated, env: Env) -> None:
    """What the cluster refuses (422 ClusterRefused) or fails at (502 ClusterError, a status
    no operation lists by itself: the document's `default` answer) parses as `ErrorBody`."""
    body = api.models.JobCreate(yaml_content=training("refused"))
    faults = env.sandbox.faults
    faults.fail(verb="create", resource="jobs", status=422, reason="Invalid", message="bad")
    api.error(api.call("jobs", "create_job", body=body), 422, "ClusterRefused")
    faults.fail(verb="create", resource="jobs", status=500, message="etcd is sad")
    failed = api.error(api.call("jobs", "create_job", body=body), 502, "ClusterError", False)
    assert "etcd is sad" in failed.message and "nothing was created" in failed.message
    faults.clear()


def _metrics(
    api: Generated, env: Env, exporter: Exporter, prometheus: str, pushgateway: str
) -> None:
    """alice's running service reports its own values and the exporter its GPU: both read
    back through the API from the real Prometheus."""
    models = api.models
    body = models.JobCreate(yaml_content=inference("web", replicas=1))
    api.ok("JobCreated", api.call("jobs", "create_job", "alice", body=body), 201)
    pod = wait_for(lambda: _running_pod(env, "alice", "web"), timeout=60, what="alice's pod")
    gpus = [GpuSeries(pod["spec"]["nodeName"], 0, 70, 8192, 73728, 50, "alice", pod["name"])]
    exporter.publish(gpus)
    wait_scraped(prometheus, gpus)

    values = models.CustomMetricsPushMetrics.from_dict({"progress": 42.5, "loss": 1.75})
    push = models.CustomMetricsPush(job_id="alice.web", metrics=values)
    pushed = api.ok(
        "CustomMetricsPushed", api.call("metrics", "push_custom_metrics", "alice", body=push)
    )
    assert (pushed.stored, pushed.pushgateway) == (["loss", "progress"], pushgateway)

    def progress() -> Any:
        answer = api.call("jobs", "get_job_metrics", "alice", job_id="alice.web")
        series = api.ok("JobMetrics", answer)
        custom = series.custom.additional_properties if series.custom else {}
        return series if custom.get("progress") else None

    series = wait_for(progress, timeout=30, what="the pushed progress scraped")
    assert series.source == prometheus
    assert series.custom.additional_properties["progress"][-1].value == 42.5
    assert {point.value for point in series.gpu_utilization} == {70.0}
    sparklines = api.ok("JobsUtilisation", api.call("metrics", "list_jobs_utilisation", "alice"))
    assert [(i.job_id, set(i.gpu_utilization)) for i in sparklines.items] == [("alice.web", {70.0})]
    refused = models.CustomMetricsPush(job_id="alice.nothing", metrics=values)
    api.error(api.call("metrics", "push_custom_metrics", "alice", body=refused), 404, "JobNotFound")


def _running_pod(env: Env, namespace: str, app: str) -> dict[str, Any]:
    """The node and name of a scheduled pod of `app`; empty while there is none."""
    for pod in env.cluster.list("Pod", namespace):
        if (pod["metadata"].get("labels") or {}).get("app") == app and pod["spec"].get("nodeName"):
            return {"spec": pod["spec"], "name": pod["metadata"]["name"]}
    return {}


def _logs(api: Generated) -> None:
    """The last lines as JSON; followed, a text/plain stream (read as the generator cannot)."""
    lines = api.ok("JobLogs", api.call("jobs", "get_job_logs", job_id="alice.web", tail=2))
    assert len(lines.logs) == 2 and lines.last_timestamp and lines.truncated is False
    with api.raw("jobs", "get_job_logs", job_id="alice.web", tail=1, follow=True) as stream:
        assert stream.status_code == 200
        assert stream.headers["content-type"].startswith("text/plain")
        seen: list[str] = []
        for line in stream.iter_lines():
            seen.append(line)
            if len(seen) == 2:
                break
    assert len(set(seen)) == 2


def _pools(api: Generated) -> None:
    models, pools = api.models, "pools"
    body = models.PoolCreate(name="tuning", nodes=["gpu-a100-0"], gpu_type=["A100-80G"])
    made = api.ok("PoolChanged", api.call(pools, "create_pool", body=body), 201)
    assert made.name == "tuning"
    listed = api.ok("PoolList", api.call(pools, "list_pools"))
    assert "tuning" in [item.name for item in listed.items]
    capped = api.ok(
        "PoolCapChanged",
        api.call(pools, "set_pool_cap", pool_name="tuning", body=models.PoolCapSet(max_gpus=4)),
    )
    assert capped.gpu_cap == 4
    added = api.ok(
        "PoolNodesChanged",
        api.call(
            pools,
            "add_pool_nodes",
            pool_name="tuning",
            body=models.PoolNodesAdd(nodes=["gpu-a100-1"]),
        ),
    )
    assert (added.nodes, added.status) == (["gpu-a100-1"], "added")
    detail = api.ok("PoolDetail", api.call(pools, "get_pool", pool_name="tuning"))
    assert (detail.nodes, detail.gpu_cap) == (["gpu-a100-0", "gpu-a100-1"], 4)
    removed = api.ok(
        "PoolNodesChanged",
        api.call(pools, "remove_pool_node", pool_name="tuning", node_name="gpu-a100-1"),
    )
    assert removed.nodes == ["gpu-a100-1"]
    api.error(api.call(pools, "get_pool", pool_name="nothing"), 404, "PoolNotFound")
    gone = api.ok("PoolChanged", api.call(pools, "delete_pool", pool_name="tuning"))
    assert gone.name == "tuning"


def _nodes(api: Generated, env: Env) -> None:
    models, nodes, node = api.models, "nodes", "gpu-a100-0"
    listed = api.ok("NodeList", api.call(nodes, "list_nodes"))
    names = [item.node_name for item in listed.items]
    assert node in names and listed.total == len(names)
    accept = models.ListNodesAccept(YAML)
    with api.raw(nodes, "list_nodes", accept=accept) as answer:
        assert answer.headers["content-type"].startswith(YAML)
        as_yaml = models.NodeList.from_dict(yaml.safe_load(answer.read()))
    assert [item.node_name for item in as_yaml.items] == names
    one = api.ok("NodeDetail", api.call(nodes, "get_node", node_name=node))
    assert one.node_name == node and one.resources.gpu_total > 0
    with api.raw(nodes, "get_node", node_name=node, accept=models.GetNodeAccept(YAML)) as answer:
        assert models.NodeDetail.from_dict(yaml.safe_load(answer.read())).node_name == node
    api.error(api.call(nodes, "get_node", node_name="no-such-node"), 404, "NodeNotFound")

    key = "g8s.host/rack"
    label = models.LabelCreate(key=key, value="r1")
    labelled = api.ok("LabelSet", api.call(nodes, "set_node_label", node_name=node, body=label))
    assert labelled.label.value == "r1"
    many = models.LabelBatchCreate(node_names=[node, "no-such-node"], key=key, value="r2")
    many.overwrite = True
    batch = api.ok("LabelBatch", api.call(nodes, "set_node_labels_batch", body=many))
    assert batch.success == [node]
    assert [(f.node_name, f.error) for f in batch.failed] == [("no-such-node", "NodeNotFound")]
    read = api.ok("LabelRead", api.call(nodes, "get_node_label", node_name=node, key=key))
    assert read.label.value == "r2"
    values = api.ok("LabelValues", api.call(nodes, "list_node_label_values", key=key))
    assert [(item.node_name, item.label_value) for item in values.items] == [(node, "r2")]
    every = api.ok("AllLabels", api.call(nodes, "list_all_node_labels"))
    assert node in [item.node_name for item in every.items]
    unlabelled = api.ok(
        "LabelDeleted", api.call(nodes, "delete_node_label", node_name=node, key=key)
    )
    assert unlabelled.node_name == node
    assert key not in (env.cluster.get("Node", node)["metadata"].get("labels") or {})


def _webhooks(api: Generated, receiver: Receiver) -> None:
    models, hooks = api.models, "webhooks"
    event = models.WebhookCreateEventsItem("job.succeeded")
    body = models.WebhookCreate(url=receiver.url, events=[event])
    made = api.ok("WebhookCreated", api.call(hooks, "create_webhook", body=body), 201)
    assert made.secret.startswith("whsec_") and made.url == receiver.url
    metadata = models.WebhookCreate(url="http://169.254.169.254/latest", events=[event])
    refused = api.error(
        api.call(hooks, "create_webhook", body=metadata), 422, "WebhookUrlNotAllowed"
    )
    assert refused.field == "url"
    listed = api.ok("WebhookList", api.call(hooks, "list_webhooks"))
    assert [item.id for item in listed.items] == [made.id]
    queued = api.ok("WebhookTestQueued", api.call(hooks, "test_webhook", webhook_id=made.id), 202)
    wait_for(lambda: receiver.got, timeout=30, what="the test event delivered")
    assert [e["type"] for e in receiver.verified(made.secret)] == ["webhook.test"]
    detail = api.ok("WebhookDetail", api.call(hooks, "get_webhook", webhook_id=made.id))
    assert detail.id == made.id and queued.webhook_id
    rotated = api.ok(
        "WebhookSecretRotated", api.call(hooks, "rotate_webhook_secret", webhook_id=made.id)
    )
    assert rotated.secret.startswith("whsec_") and rotated.secret != made.secret
    enabled = api.ok("WebhookDetail", api.call(hooks, "enable_webhook", webhook_id=made.id))
    assert enabled.id == made.id
    gone = api.ok("WebhookDeleted", api.call(hooks, "delete_webhook", webhook_id=made.id))
    assert gone.id == made.id
    api.error(api.call(hooks, "get_webhook", webhook_id=made.id), 404, "WebhookNotFound")


def _workloads(api: Generated, env: Env) -> None:
    with contextlib.suppress(AlreadyExists):
        env.cluster.create(resource.crd())
    workload = {
        "apiVersion": resource.API_VERSION,
        "kind": resource.KIND,
        "metadata": {"name": "llama", "namespace": "alice"},
        "spec": {"modelName": "model-llama", "gpuCount": 2},
    }
    env.cluster.create(workload)
    listed = api.ok("WorkloadList", api.call("workloads", "list_workloads", "alice"))
    assert listed.installed is True
    assert [(w.namespace, w.name, w.gpu_count) for w in listed.items] == [("alice", "llama", 2)]


def _clean_up(api: Generated, env: Env) -> None:
    for job_id in ("default.a", "default.b", "default.c", "default.d", "default.f", "alice.web"):
        gone = api.ok("JobDeleted", api.call("jobs", "delete_job", job_id=job_id))
        assert gone.status == "terminating"
    wait_for(lambda: env.cluster.list("Job", "default") == [], what="the jobs gone")
    quota = api.ok("QuotaDeleted", api.call("quotas", "delete_quota", user_name="bob"))
    assert quota.user_name == "bob"
