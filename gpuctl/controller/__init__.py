"""The scheduling controller for GPUWorkload objects (gpu.warp.dev/v1alpha1).

The placement strategies live in gpuctl.placement.strategies (shared with `gpuctl create`) and
the free-GPU accounting in gpuctl.inventory.free_gpus; backoff is pure (no cluster, no kopf);
resource builds the CRD and the deployment manifests; workload turns a GPUWorkload into the Job
gpuctl renders for a training spec; reconcile is the reconcile step on a gpuctl Cluster;
operator is the only module that imports kopf.
"""
