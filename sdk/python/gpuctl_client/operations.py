"""Each operation of the API's contract (its `operationId` in docs/openapi.json) and the
Client method that calls it, as "group.method" (`client.jobs.create`). A test fails when the
contract has an operation this map does not name, or a name that is no method sending that
operation's request: a new endpoint cannot go without its method."""

from __future__ import annotations

OPERATIONS: dict[str, str] = {
    # jobs
    "createJob": "jobs.create",
    "listJobs": "jobs.list",
    "createJobsBatch": "jobs.create_batch",
    "getJob": "jobs.get",
    "deleteJob": "jobs.delete",
    "getJobManifests": "jobs.manifests",
    "getJobLogs": "jobs.logs",
    "getJobMetrics": "jobs.metrics",
    # metrics
    "pushCustomMetrics": "metrics.push",
    "listJobsUtilisation": "metrics.utilisation",
    # pools
    "listPools": "pools.list",
    "createPool": "pools.create",
    "getPool": "pools.get",
    "setPoolCap": "pools.set_cap",
    "deletePool": "pools.delete",
    "addPoolNodes": "pools.add_nodes",
    "removePoolNode": "pools.remove_node",
    # nodes
    "listNodes": "nodes.list",
    "listNodeLabelValues": "nodes.label_values",
    "listAllNodeLabels": "nodes.all_labels",
    "setNodeLabelsBatch": "nodes.set_labels",
    "getNode": "nodes.get",
    "setNodeLabel": "nodes.set_label",
    "getNodeLabel": "nodes.get_label",
    "deleteNodeLabel": "nodes.delete_label",
    # quotas
    "listQuotas": "quotas.list",
    "createQuota": "quotas.create",
    "getQuota": "quotas.get",
    "deleteQuota": "quotas.delete",
    # auth
    "checkAccess": "auth.check",
    # webhooks
    "listWebhooks": "webhooks.list",
    "createWebhook": "webhooks.create",
    "getWebhook": "webhooks.get",
    "deleteWebhook": "webhooks.delete",
    "testWebhook": "webhooks.test",
    "rotateWebhookSecret": "webhooks.rotate_secret",
    "enableWebhook": "webhooks.enable",
    # workloads
    "listWorkloads": "workloads.list",
}
