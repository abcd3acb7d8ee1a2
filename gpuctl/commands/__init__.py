"""Click commands of the operate layer (get, describe, logs, pause, label, pools, quotas).

This package is part of the CLI layer: it prints. The logic lives in gpuctl.jobs,
gpuctl.nodes, gpuctl.pools and gpuctl.quotas, which never print.
"""
