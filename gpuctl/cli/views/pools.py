"""`get pools` rows and `describe pool` text."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from gpuctl import constants as c
from gpuctl.cli import table
from gpuctl.cli.views.nodes import gpu_cell, indent
from gpuctl.inventory import status
from gpuctl.inventory.nodes import NONE, node_gpus, node_name_of, node_status, pool_of
from gpuctl.inventory.pools import (
    Inventory,
    Pool,
    record_name,
    recorded_nodes,
)
from gpuctl.placement.capacity import free_of

POOL_HEADERS = ("NAME", "NODES", "GPU", "CAP", "GPU-TYPES", "DESCRIPTION", "AGE")


POOL_WIDE_HEADERS = (
    "NAME",
    "NODES",
    "GPU",
    "CAP",
    "GPU-TYPES",
    "NODE-NAMES",
    "DESCRIPTION",
    "AGE",
)


def cap_cell(inventory: Inventory, pool: Pool) -> str:
    """CAP: the GPUs the pool's jobs request / its cap (max-gpus); <none> without a cap."""
    used, cap = inventory.cap(pool)
    return NONE if cap is None else f"{used}/{cap}"


def pool_rows(
    inventory: Inventory, pools: Sequence[Pool], *, wide: bool = False, at: datetime | None = None
) -> list[list[str]]:
    rows = []
    for pool in pools:
        total, used = inventory.gpus(pool)
        stamp = (pool.record or {}).get("metadata", {}).get("creationTimestamp")
        row = [
            pool.name,
            str(len(pool.members)),
            gpu_cell(total, used),
            cap_cell(inventory, pool),
            ",".join(sorted(inventory.gpu_types(pool))) or NONE,
        ]
        if wide:
            row.append(",".join(pool.members) or NONE)
        row += [pool.description, table.age(stamp, at) if stamp else NONE]
        rows.append(row)
    return rows


def _cap_text(inventory: Inventory, pool: Pool) -> str:
    used, cap = inventory.cap(pool)
    if cap is None:
        return "none (max-gpus not set)"
    return f"{cap} GPUs, {used} requested by the pool's unfinished pods"


def describe_pool(inventory: Inventory, name: str, at: datetime | None = None) -> str:
    """`describe pool`: record, GPUs, GPU types with counts, nodes, and the jobs on them."""
    pool = inventory.pool(name)
    total, used = inventory.gpus(pool)
    stamp = (pool.record or {}).get("metadata", {}).get("creationTimestamp")
    types = inventory.gpu_types(pool)
    lines = table.fields(
        [
            ("Name", pool.name),
            ("Description", pool.description or NONE),
            (
                "Record",
                f"configmap/{record_name(name)} in {c.SYSTEM_NAMESPACE}"
                + (f" (created {table.age(stamp, at)} ago)" if stamp else "")
                if pool.record
                else "none (only node labels name this pool)",
            ),
            ("GPU", f"{total} total, {used} used, {free_of(total, used)} free"),
            ("GPU cap", _cap_text(inventory, pool)),
            ("GPU types", ", ".join(f"{k}: {v}" for k, v in sorted(types.items())) or NONE),
        ]
    )
    recorded = recorded_nodes(pool.record)
    node_rows = []
    for node in pool.members:
        live = inventory.nodes.get(node)
        if live is None:
            note = "not found in the cluster"
        elif not pool_of(live):
            note = f"not labelled {c.Labels.POOL}"
        elif node not in recorded and pool.record:
            note = "not in the record"
        else:
            note = ""
        node_rows.append(
            [
                node,
                node_status(live) if live else "Missing",
                gpu_cell(node_gpus(live), inventory.used.get(node, 0)) if live else NONE,
                inventory.gpu_type(pool, node) or NONE,
                note,
            ]
        )
    lines += [f"Nodes: ({len(pool.members)})"]
    lines += (
        indent(table.table(("NAME", "STATUS", "GPU", "GPU-TYPE", "NOTE"), node_rows))
        if node_rows
        else [f"  {NONE}"]
    )
    jobs = inventory.jobs_in(pool)
    job_rows = [
        [
            namespace,
            job,
            str(len(pods)),
            str(sum(status.pod_gpus(p) for p in pods)),
            ",".join(sorted({node_name_of(p) for p in pods})),
        ]
        for (namespace, job), pods in sorted(jobs.items())
    ]
    lines += [f"Jobs: ({len(job_rows)} running)"]
    lines += (
        indent(table.table(("NAMESPACE", "JOB", "PODS", "GPU", "NODES"), job_rows))
        if job_rows
        else [f"  {NONE}"]
    )
    return "\n".join(lines) + "\n"


QUERY_HEADERS = ("NAME", "NODES", "GPU-TOTAL", "GPU-USED", "GPU-FREE", "OCCUPANCY", "GPU-TYPES")


def occupancy(total: int, used: int) -> str:
    """GPUs in use as a percentage of the pool's GPUs (`-` for a pool without GPUs)."""
    return f"{round(100 * used / total)}%" if total else "-"


def query_rows(inventory: Inventory, pools: Sequence[Pool]) -> list[list[str]]:
    """`query pools` rows: the pool's GPUs taken by running pods, with GPU models and counts."""
    rows = []
    for pool in pools:
        total, used = inventory.gpus(pool)
        types = inventory.gpu_types(pool)
        rows.append(
            [
                pool.name,
                str(len(pool.members)),
                str(total),
                str(used),
                str(free_of(total, used)),
                occupancy(total, used),
                ",".join(f"{kind}:{count}" for kind, count in sorted(types.items())) or NONE,
            ]
        )
    return rows
