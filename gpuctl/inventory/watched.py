"""The sets of objects the REST API's list reads keep in its watch cache
(gpuctl.cluster.cache): every gpuctl workload and the jobs' other objects (GET /jobs, partial
jobs too), every node, every pod that holds resources and the pool records (GET /nodes, /pools,
/nodes/labels: pools and GPUs in use). The selectors are the ones the inventory's own list
reads use, so the cache answers them."""

from __future__ import annotations

from gpuctl import constants as c
from gpuctl.cluster.cache import Watched
from gpuctl.inventory import jobs, nodes, pools

LISTED = (
    *(Watched(kind, label_selector=jobs.selector()) for kind in jobs.WORKLOADS),
    *(Watched(kind, label_selector=jobs.selector()) for kind in jobs.PART_KINDS),  # partial jobs
    Watched("Node"),
    Watched("Pod", field_selector=nodes.ACTIVE_PODS),
    Watched("ConfigMap", c.SYSTEM_NAMESPACE, label_selector=pools.RECORD_SELECTOR),
)
