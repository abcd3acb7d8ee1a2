"""The inventory layer: jobs, nodes, pools and quotas as read from a cluster, and the status
rules. Data only: rows and records, never printing."""
