"""The admin calls through the SDK against `serve` on the sandbox (nodes and their labels,
pools with their caps and nodes, quotas, webhooks, access checks, GPUWorkloads), and every
error answer as its typed exception with
the body's `error`, `message`, `field` and the status."""

from __future__ import annotations

import sys

import pytest
from gpuctl_client import (
    ApiError,
    BadRequest,
    Client,
    Conflict,
    Forbidden,
    NotFound,
    Unauthorized,
    Unprocessable,
    models,
)
from sdk_helpers import spec

from gpuctl.controller import resource
from tests.conftest import Env
from tests.server.conftest import QUOTA
from tests.server.test_hostile import Served

NODE = "gpu-a100-0"
KEY = "g8s.host/rack"


def test_nodes_and_their_labels(admin: Client) -> None:
    names = [node.node_name for node in admin.nodes.iter(page_size=3)]
    assert len(names) == admin.nodes.list().total == 4 and NODE in names
    assert admin.nodes.get(NODE).node_name == NODE

    assert admin.nodes.set_label(NODE, KEY, "r1").label.value == "r1"
    batch = admin.nodes.set_labels([NODE, "gpu-a100-1", "no-such-node"], KEY, "r2", overwrite=True)
    assert sorted(batch.success) == [NODE, "gpu-a100-1"]
    assert [(f.node_name, f.error) for f in batch.failed] == [("no-such-node", "NodeNotFound")]
    assert admin.nodes.get_label(NODE, KEY).label.value == "r2"
    values = {(v.node_name, v.label_value) for v in admin.nodes.iter_label_values(KEY, page_size=1)}
    assert values == {(NODE, "r2"), ("gpu-a100-1", "r2")}
    assert len(list(admin.nodes.iter_all_labels(page_size=3))) == 4
    assert admin.nodes.delete_label(NODE, KEY).node_name == NODE
    with pytest.raises(NotFound) as missing:
        admin.nodes.get_label(NODE, KEY)
    assert missing.value.status == 404


def test_pools_quotas_webhooks_and_access(admin: Client, alice: Client) -> None:
    made = admin.pools.create("experiment", nodes=[NODE], gpu_type=["A100-80G"])
    assert made.status == "created"
    # the default pool (the nodes in no pool) is listed last
    assert [pool.name for pool in admin.pools.list().items] == ["experiment", "default"]
    assert admin.pools.get("experiment").name == "experiment"
    assert admin.pools.delete("experiment").status == "deleted"

    assert admin.quotas.create(QUOTA).users == ["alice", "bob"]
    assert [q.user_name for q in alice.quotas.list().items] == ["alice"]
    assert [q.user_name for q in admin.quotas.list().items] == ["alice", "bob"]
    assert admin.quotas.get("bob").items[0].user_name == "bob"
    assert "deleted" in admin.quotas.delete("bob").message

    hook = alice.webhooks.create("https://1.1.1.1/gpuctl-hook", ["job.succeeded"])
    assert hook.secret.startswith("whsec_")
    assert [h.id for h in alice.webhooks.list().items] == [hook.id]
    assert alice.webhooks.get(hook.id).url == "https://1.1.1.1/gpuctl-hook"
    assert alice.webhooks.delete(hook.id).id == hook.id

    decision = alice.auth.check("pools", "create")
    assert (decision.allowed, decision.user) == (False, "alice")


def test_a_pools_cap_and_nodes(admin: Client, alice: Client) -> None:
    admin.pools.create("tuning", nodes=[NODE], gpu_type=["A100-80G"], max_gpus=4)
    assert admin.pools.get("tuning").gpu_cap == 4
    capped = admin.pools.set_cap("tuning", 2)
    assert (capped.name, capped.gpu_cap, capped.nodes) == ("tuning", 2, [NODE])
    assert admin.pools.get("tuning").gpu_cap == 2
    assert admin.pools.set_cap("tuning", None).gpu_cap is None
    assert admin.pools.get("tuning").gpu_cap is None

    added = admin.pools.add_nodes("tuning", ["gpu-a100-1"])
    assert (added.status, added.nodes) == ("added", ["gpu-a100-1"])
    assert admin.pools.get("tuning").nodes == [NODE, "gpu-a100-1"]
    again = admin.pools.add_nodes("tuning", ["gpu-a100-1"])  # what a retry would send
    assert again.message == "node/gpu-a100-1 already in pool tuning"
    assert admin.pools.get("tuning").nodes == [NODE, "gpu-a100-1"]
    removed = admin.pools.remove_node("tuning", "gpu-a100-1")
    assert (removed.status, removed.nodes) == ("removed", ["gpu-a100-1"])
    assert admin.pools.get("tuning").nodes == [NODE]

    with pytest.raises(Conflict) as not_in_it:
        admin.pools.remove_node("tuning", "gpu-a100-1")
    assert not_in_it.value.error == "PoolConflict"
    with pytest.raises(Forbidden):
        alice.pools.set_cap("tuning", 8)
    with pytest.raises(Forbidden):
        alice.pools.add_nodes("tuning", ["gpu-a100-1"])
    with pytest.raises(NotFound):
        admin.pools.set_cap("no-such-pool", 1)
    assert admin.pools.get("tuning").gpu_cap is None
    assert admin.pools.delete("tuning").status == "deleted"


def test_the_gpu_workloads_each_caller_may_see(admin: Client, alice: Client, env: Env) -> None:
    absent = admin.workloads.list()
    assert (absent.installed, absent.items) == (False, [])
    env.cluster.create(resource.crd())
    admin.quotas.create(QUOTA)  # alice's and bob's namespaces
    for name, namespace in (("llama", "alice"), ("bert", "bob")):
        workload = {
            "apiVersion": resource.API_VERSION,
            "kind": resource.KIND,
            "metadata": {"name": name, "namespace": namespace},
            "spec": {"modelName": f"model-{name}", "gpuCount": 2},
        }
        env.cluster.create(workload)
    every = admin.workloads.list()
    assert every.installed is True
    assert [(w.namespace, w.name) for w in every.items] == [("alice", "llama"), ("bob", "bert")]
    own = alice.workloads.list().items
    assert [(w.namespace, w.name, w.model_name, w.gpu_count) for w in own] == [
        ("alice", "llama", "model-llama", 2)
    ]


def test_errors_are_typed_with_error_message_field_and_status(
    admin: Client, alice: Client, server: Served
) -> None:
    with pytest.raises(NotFound) as not_found:
        admin.jobs.get("default.nothing")
    assert (not_found.value.status, not_found.value.error) == (404, "JobNotFound")
    assert "nothing" in not_found.value.message

    with pytest.raises(BadRequest) as invalid:
        admin.jobs.create(spec("x").replace("gpu: 1", "gpu: lots"))
    assert (invalid.value.status, invalid.value.error) == (400, "InvalidYAML")
    assert invalid.value.field == "resources.gpu" and invalid.value.problems

    with pytest.raises(Unprocessable) as refused:
        alice.webhooks.create("http://127.0.0.1:9/hook", ["job.failed"])
    assert (refused.value.status, refused.value.field) == (422, "url")
    assert refused.value.error == "WebhookUrlNotAllowed"

    admin.jobs.create(spec("keyed"), idempotency_key="key-1")
    with pytest.raises(Unprocessable) as reused:
        admin.jobs.create(spec("other"), idempotency_key="key-1")
    assert (reused.value.error, reused.value.field) == ("IdempotencyKeyReused", "Idempotency-Key")
    again = admin.jobs.create(spec("keyed"), idempotency_key="key-1")
    assert again.job_id == "default.keyed"

    with pytest.raises(Conflict) as exists:
        admin.jobs.create(spec("keyed"))
    assert exists.value.status == 409

    with pytest.raises(Forbidden) as forbidden:
        alice.pools.create("mine", nodes=[NODE])
    assert forbidden.value.status == 403

    with Client(server.base, "not-a-token") as stranger, pytest.raises(Unauthorized) as who:
        stranger.jobs.list()
    assert who.value.status == 401 and isinstance(who.value, ApiError)
    assert str(who.value).startswith("401 ")


def test_a_list_page_is_the_generated_model(admin: Client) -> None:
    assert isinstance(admin.jobs.list(), models.JobList)


def test_a_refused_websocket_falls_back_to_the_chunked_stream_and_its_typed_error(
    admin: Client,
) -> None:
    """The WebSocket's refusal (close code 1008) carries no HTTP status: the chunked request
    made instead answers the typed error."""
    with pytest.raises(NotFound) as missing:
        list(admin.jobs.follow("default.nothing"))
    assert missing.value.error == "JobNotFound"


def test_without_websockets_the_chunked_stream_is_followed(
    admin: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "websockets.sync.client", None)  # import fails
    job = admin.jobs.create(spec("quick")).job_id
    lines = list(admin.jobs.follow(job))
    assert lines[0].endswith(": started") and lines[-1].endswith(": done"), lines
