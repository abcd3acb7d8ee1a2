"""Resource pools: list, read, create (from the documents' JSON body) and delete. A pool is
created and deleted the way `gpuctl create|delete -f pool.yaml` does it: its record plus the
`runwhere.ai/pool` label on its nodes (a node of another pool, or of a GPU model the body's
`gpuType` does not allow, is refused, nothing written)."""

from __future__ import annotations

from typing import Any

import yaml
from fastapi import APIRouter, Request

from gpuctl import constants as c
from gpuctl.cluster.api import ClusterAPI
from gpuctl.inventory import pools
from gpuctl.inventory.pools import Inventory, PoolNotFound
from gpuctl.render.engine import Manifest
from gpuctl.server import answers, bodies, specs
from gpuctl.server.auth import require
from gpuctl.server.deps import Caller, Kube, Reads, caught_up, from_lists
from gpuctl.server.errors import verb_failed
from gpuctl.server.params import NodeName, PoolName
from gpuctl.server.views import pool_detail, pool_item
from gpuctl.verbs import pool_cap, pool_labels

# A pool record or a quota has no pods: deleting it takes a moment; the answer waits for it.
WAIT = 30.0

router = APIRouter(tags=["pools"])


@router.get(
    "/pools",
    operation_id="listPools",
    description=(
        "Every resource pool with its GPUs: total, used, free, their models and the models it "
        "allows."
    ),
    response_model=answers.PoolList,
    summary="List resource pools with their GPUs",
)
async def list_pools(principal: Caller, reads: Reads) -> dict[str, Any]:
    require(principal, "pools", "get")

    def every_pool(source: ClusterAPI) -> dict[str, Any]:
        inventory = Inventory.read(source)
        return {"items": [pool_item(inventory, pool) for pool in inventory.pools()]}

    return await from_lists(reads, every_pool)


@router.get(
    "/pools/{poolName}",
    operation_id="getPool",
    description=(
        "One pool: its nodes, its GPUs by model, and the jobs on it (a user sees other users' "
        "jobs only as counts)."
    ),
    response_model=answers.PoolDetail,
    summary="One pool: nodes, GPU types, jobs on it",
)
async def get_pool(poolName: PoolName, principal: Caller, reads: Reads) -> dict[str, Any]:
    require(principal, "pools", "get")

    def one_pool(source: ClusterAPI) -> dict[str, Any]:
        inventory = Inventory.read(source)
        return pool_detail(inventory, inventory.pool(poolName), principal.sees)

    return await from_lists(reads, one_pool)


def pool_spec(
    name: str,
    description: str,
    nodes: list[str],
    gpu_types: list[str],
    max_gpus: int | None = None,
    isolation: str = c.DEFAULT_POOL_ISOLATION,
) -> str:
    """The pool file the JSON body stands for. `gpuType` is the pool's allowed GPU models: the
    nodes are checked against it, and a node's hardware label is never written; `maxGpus` is
    its GPU cap; `isolation` whether its nodes are tainted."""
    spec: dict[str, object] = {
        "kind": "pool",
        "version": c.SPEC_VERSIONS[-1],
        "metadata": {"name": name, "description": description},
        "nodes": {node: {} for node in nodes},
        "isolation": isolation,
    }
    if gpu_types:
        spec["gpu-types"] = gpu_types
    if max_gpus is not None:
        spec["max-gpus"] = max_gpus
    return yaml.safe_dump(spec, sort_keys=False, allow_unicode=True)


@router.post(
    "/pools",
    operation_id="createPool",
    description=(
        "Creates a pool as `gpuctl create -f pool.yaml` does: its record, and the pool label (and"
        " unless `isolation` is shared, the pool's taint) on its nodes; `maxGpus` caps the GPUs"
        " its jobs may request together. A node of another pool, or of a GPU model `gpuType`"
        " does not allow, is refused (409) and nothing is written. Admin only."
    ),
    status_code=201,
    response_model=answers.PoolChanged,
    summary="Create a pool and label its nodes (admin)",
)
def create_pool(
    body: bodies.PoolCreate, principal: Caller, cluster: Kube, request: Request
) -> dict[str, Any]:
    require(principal, "pools", "create")
    text = pool_spec(
        body.name, body.description, body.nodes, body.gpu_type, body.max_gpus, body.isolation
    )
    work = specs.workset(cluster, text, "request body")
    result = specs.create(cluster, work, principal, request.app.state.policy)
    caught_up(request, "Node", body.nodes, None)
    caught_up(request, "ConfigMap", [pools.record_name(body.name)], c.SYSTEM_NAMESPACE)
    return {"name": body.name, "status": "created", "message": "; ".join(result.lines())}


@router.patch(
    "/pools/{poolName}",
    operation_id="setPoolCap",
    description=(
        "Sets (or with `null` removes) an existing pool's GPU cap as `gpuctl apply -f "
        "pool.yaml` with a new `max-gpus` does: the pool's record, and where Kueue is installed"
        " its ClusterQueue's GPU quota, change in place; its nodes, their labels and taints, its"
        " allowed GPU types and isolation stay as they are. Answers the pool as GET "
        "/pools/{poolName} does, with what was written in `message`. A cap below the GPUs in "
        "use stops no running job: new jobs wait (Kueue) or are refused. Admin only."
    ),
    response_model=answers.PoolCapChanged,
    summary="Set or remove a pool's GPU cap (admin)",
)
def set_pool_cap(
    poolName: PoolName,
    body: bodies.PoolCapSet,
    principal: Caller,
    cluster: Kube,
    request: Request,
) -> dict[str, Any]:
    require(principal, "pools", "create")

    def render(text: str) -> list[Manifest]:
        manifests = specs.workset(cluster, text, f"pool {poolName}").manifests
        request.app.state.policy.admit(principal, manifests)
        return manifests

    result = pool_cap.SetPoolCap(cluster, render).run(poolName, body.max_gpus)
    if not result.ok:
        raise verb_failed(result, 409, "PoolConflict")
    caught_up(request, "ConfigMap", [pools.record_name(poolName)], c.SYSTEM_NAMESPACE)
    inventory = Inventory.read(cluster)
    answer = pool_detail(inventory, inventory.pool(poolName), principal.sees)
    return {**answer, "message": "; ".join(result.lines())}


@router.delete(
    "/pools/{poolName}",
    operation_id="deletePool",
    description="Deletes a pool's record and takes the pool label off its nodes. Admin only.",
    response_model=answers.PoolChanged,
    summary="Delete a pool and unlabel its nodes (admin)",
)
def delete_pool(
    poolName: PoolName, principal: Caller, cluster: Kube, request: Request
) -> dict[str, Any]:
    from gpuctl.verbs.delete import Delete

    require(principal, "pools", "delete")
    labelled = cluster.list("Node", label_selector=f"{c.Labels.POOL}={poolName}")
    if pools.read_record(cluster, poolName) is None and not labelled:
        raise PoolNotFound(f"pool {poolName} not found")
    work = specs.workset(cluster, pool_spec(poolName, "", [], []), "pool name")
    # a pool only node labels name has no record: that one is not an error
    gone = Delete(cluster, wait=True, timeout=WAIT, ignore_not_found=True)
    result = gone.files(work.manifests, work.node_labels)
    if not result.ok:
        raise verb_failed(result, 502, "DeleteFailed")
    caught_up(request, "Node", [n["metadata"]["name"] for n in labelled], None)
    caught_up(request, "ConfigMap", [pools.record_name(poolName)], c.SYSTEM_NAMESPACE)
    return {"name": poolName, "status": "deleted", "message": "; ".join(result.lines())}


@router.post(
    "/pools/{poolName}/nodes",
    operation_id="addPoolNodes",
    description=(
        "Adds nodes to an existing pool as `gpuctl add node NODE... --pool POOL` does: the pool "
        "label (and an isolating pool's taint) on each node, and the node in the pool's record. "
        "Every node is checked first: a missing node, a node of another pool (unless "
        "`overwrite`) or of a GPU model the pool does not allow is refused (409) and nothing is "
        "written. Admin only."
    ),
    response_model=answers.PoolNodesChanged,
    summary="Add nodes to a pool (admin)",
)
def add_pool_nodes(
    poolName: PoolName,
    body: bodies.PoolNodesAdd,
    principal: Caller,
    cluster: Kube,
    request: Request,
) -> dict[str, Any]:
    require(principal, "pools", "create")
    names = list(dict.fromkeys(body.nodes))
    result = pool_labels.add_nodes(cluster, poolName, names, body.overwrite)
    if not result.ok:
        raise verb_failed(result, 409, "PoolConflict")
    caught_up(request, "Node", names, None)
    caught_up(request, "ConfigMap", [pools.record_name(poolName)], c.SYSTEM_NAMESPACE)
    return {
        "name": poolName,
        "nodes": names,
        "status": "added",
        "message": "; ".join(result.lines()),
    }


@router.delete(
    "/pools/{poolName}/nodes/{nodeName}",
    operation_id="removePoolNode",
    description=(
        "Takes a node out of a pool as `gpuctl remove node NODE --pool POOL` does: its pool "
        "label and taint, and its entry in the pool's record. A node that is not in the pool is "
        "refused (409), a pool that does not exist is 404. Admin only."
    ),
    response_model=answers.PoolNodesChanged,
    summary="Remove a node from a pool (admin)",
)
def remove_pool_node(
    poolName: PoolName, nodeName: NodeName, principal: Caller, cluster: Kube, request: Request
) -> dict[str, Any]:
    require(principal, "pools", "delete")
    result = pool_labels.remove_nodes(cluster, poolName, [nodeName])
    if not result.ok:
        raise verb_failed(result, 409, "PoolConflict")
    caught_up(request, "Node", [nodeName], None)
    caught_up(request, "ConfigMap", [pools.record_name(poolName)], c.SYSTEM_NAMESPACE)
    return {
        "name": poolName,
        "nodes": [nodeName],
        "status": "removed",
        "message": "; ".join(result.lines()),
    }
