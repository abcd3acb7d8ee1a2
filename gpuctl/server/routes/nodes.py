"""Nodes and their labels. Label writes follow the CLI's rule: only `g8s.host/` keys."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request

from gpuctl.cluster.api import ClusterAPI
from gpuctl.inventory import nodes
from gpuctl.inventory.pools import Inventory
from gpuctl.server import answers, bodies, media
from gpuctl.server.auth import require
from gpuctl.server.deps import Caller, Kube, Reads, caught_up, from_lists, remembered
from gpuctl.server.errors import body_of
from gpuctl.server.params import (
    LABEL_VALUE,
    LabelKey,
    LabelValue,
    NodeName,
    Page,
    PageSize,
    one_of,
    page_of,
)
from gpuctl.server.views import NODE_STATUS, gpu_labels, node_detail, node_item
from gpuctl.verbs import node_labels
from gpuctl.verbs.errors import LabelNotFound
from gpuctl.verbs.node_labels import LabelChange

router = APIRouter(tags=["nodes"])


@router.get(
    "/nodes",
    operation_id="listNodes",
    description=(
        "One page of the nodes with their GPUs, filtered by pool, GPU model and status; YAML "
        "with `Accept: application/yaml` (or `?accept=application/yaml`)."
    ),
    response_model=answers.NodeList,
    responses={200: media.yaml_answer(answers.NodeList)},
    summary="List nodes with their GPUs (Accept: application/yaml for YAML)",
)
async def list_nodes(
    request: Request,
    principal: Caller,
    reads: Reads,
    pool: LabelValue = None,
    gpu_type: Annotated[
        str | None, Query(alias="gpuType", max_length=63, pattern=LABEL_VALUE)
    ] = None,
    status: Annotated[
        str | None,
        Query(
            description="only nodes in this status", json_schema_extra={"enum": list(NODE_STATUS)}
        ),
    ] = None,
    page: Page = 1,
    page_size: PageSize = 20,
    accept: media.Accept = None,
) -> Any:
    require(principal, "nodes", "get")
    one_of("query.status", status, NODE_STATUS)

    def one_page(source: ClusterAPI) -> dict[str, Any]:
        inventory = Inventory.read(source)
        chosen = nodes.list_nodes(source, pool, gpu_type) if pool else None
        wanted = {nodes.name_of(n) for n in chosen} if chosen is not None else None
        items = [
            node_item(inventory, node)
            for name, node in sorted(inventory.nodes.items())
            if (wanted is None or name in wanted) and nodes.node_matches(node, gpu_type, status)
        ]
        return page_of(items, page, page_size)

    key = ("nodes", pool, gpu_type, status, page, page_size)
    body = await from_lists(reads, lambda source: remembered(source, key, lambda: one_page(source)))
    return media.as_requested(request, accept, body)


@router.get(
    "/nodes/labels",
    operation_id="listNodeLabelValues",
    description="The value of one label key on every node that has it.",
    response_model=answers.LabelValues,
    summary="One label key on every node that has it",
)
async def label_values(
    principal: Caller,
    reads: Reads,
    key: Annotated[str, Query(description="e.g. g8s.host/gpu-type")],
    page: Page = 1,
    page_size: PageSize = 20,
) -> dict[str, Any]:
    require(principal, "labels", "get")

    def one_page(source: ClusterAPI) -> dict[str, Any]:
        items = [
            {
                "nodeName": nodes.name_of(node),
                "labelKey": key,
                "labelValue": nodes.labels_of(node)[key],
            }
            for node in sorted(source.list("Node"), key=nodes.name_of)
            if key in nodes.labels_of(node)
        ]
        return page_of(items, page, page_size)

    return await from_lists(reads, one_page)


@router.get(
    "/nodes/labels/all",
    operation_id="listAllNodeLabels",
    description="Every node's GPU labels (`g8s.host/`) and the pools it is bound to.",
    response_model=answers.AllLabels,
    summary="Every node's GPU labels and pools",
)
async def all_labels(
    principal: Caller, reads: Reads, page: Page = 1, page_size: PageSize = 20
) -> dict[str, Any]:
    from gpuctl.server.views import bound_pools

    require(principal, "labels", "get")

    def one_page(source: ClusterAPI) -> dict[str, Any]:
        inventory = Inventory.read(source)
        items = [
            {
                "nodeName": name,
                "gpuLabels": gpu_labels(node),
                "boundPools": bound_pools(inventory, name),
            }
            for name, node in sorted(inventory.nodes.items())
        ]
        return page_of(items, page, page_size)

    return await from_lists(reads, one_page)


@router.post(
    "/nodes/labels/batch",
    operation_id="setNodeLabelsBatch",
    description=(
        "Sets one `g8s.host/` label on several nodes, each on its own: 200 with `success` and "
        "`failed` (each failure in the error shape). A refused key or value fails the whole "
        "request and nothing is written."
    ),
    response_model=answers.LabelBatch,
    response_model_exclude_unset=True,  # a failure's `field` only where a field is at fault
    summary="Set one label on several nodes, each on its own",
)
def label_batch(
    body: bodies.LabelBatchCreate, principal: Caller, cluster: Kube, request: Request
) -> dict[str, Any]:
    require(principal, "labels", "create")
    change = LabelChange(body.key, body.value)
    change.check()  # a refused key or value fails the whole request: nothing was written
    success: list[str] = []
    failed: list[dict[str, Any]] = []
    for name in dict.fromkeys(body.node_names):
        try:
            node_labels.change_label(cluster, name, change, body.overwrite)
        except Exception as exc:  # each node answers for itself, in the one error shape
            failed.append({"nodeName": name, **body_of(exc)})
            continue
        success.append(name)
    caught_up(request, "Node", success, None)
    message = "labelled every node" if not failed else "some nodes failed: see `failed`"
    return {"success": success, "failed": failed, "message": message}


@router.get(
    "/nodes/{nodeName}",
    operation_id="getNode",
    description=(
        "One node: its resources, labels, pools and pods (a user sees other users' pods only as"
        " counts); YAML with `Accept: application/yaml` (or `?accept=application/yaml`)."
    ),
    response_model=answers.NodeDetail,
    responses={200: media.yaml_answer(answers.NodeDetail)},
    summary="One node: resources, labels, pools, pods",
)
def get_node(
    nodeName: NodeName,
    request: Request,
    principal: Caller,
    cluster: Kube,
    reads: Reads,
    accept: media.Accept = None,
) -> Any:
    require(principal, "nodes", "get")
    node = nodes.get_node(cluster, nodeName)
    inventory = Inventory.read(reads)
    inventory.nodes[nodeName] = node
    return media.as_requested(request, accept, node_detail(inventory, node, principal.sees))


@router.post(
    "/nodes/{nodeName}/labels",
    operation_id="setNodeLabel",
    description=(
        "Sets a `g8s.host/` label on a node; a label the node has with another value is 409 "
        "`LabelConflict` unless `overwrite` is true."
    ),
    response_model=answers.LabelSet,
    summary="Set a g8s.host/ label on a node",
)
def set_label(
    nodeName: NodeName,
    body: bodies.LabelCreate,
    principal: Caller,
    cluster: Kube,
    request: Request,
) -> dict[str, Any]:
    require(principal, "labels", "create")
    change = LabelChange(body.key, body.value)
    change.check()
    message = node_labels.change_label(cluster, nodeName, change, body.overwrite).line()
    caught_up(request, "Node", [nodeName], None)
    return {
        "nodeName": nodeName,
        "label": {"key": body.key, "value": body.value},
        "message": message,
    }


@router.get(
    "/nodes/{nodeName}/labels/{key:path}",
    operation_id="getNodeLabel",
    description=(
        "One label of one node (the key may contain a slash); 404 `LabelNotFound` when the node"
        " has none."
    ),
    response_model=answers.LabelRead,
    summary="One label of one node",
)
def get_label(
    nodeName: NodeName, key: LabelKey, principal: Caller, cluster: Kube
) -> dict[str, Any]:
    require(principal, "labels", "get")
    value = nodes.labels_of(nodes.get_node(cluster, nodeName)).get(key)
    if value is None:
        raise LabelNotFound(f"node/{nodeName} has no label {key}")
    return {"nodeName": nodeName, "label": {"key": key, "value": value}}


@router.delete(
    "/nodes/{nodeName}/labels/{key:path}",
    operation_id="deleteNodeLabel",
    description="Removes a `g8s.host/` label from a node.",
    response_model=answers.LabelDeleted,
    summary="Remove a g8s.host/ label",
)
def delete_label(
    nodeName: NodeName, key: LabelKey, principal: Caller, cluster: Kube, request: Request
) -> dict[str, Any]:
    require(principal, "labels", "delete")
    change = LabelChange(key, None)
    change.check()
    message = node_labels.change_label(cluster, nodeName, change, overwrite=False).line()
    caught_up(request, "Node", [nodeName], None)
    return {"nodeName": nodeName, "labelKey": key, "message": message}
