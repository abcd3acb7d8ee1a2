"""The scheduling controller for GPUWorkload objects (gpu.warp.dev/v1alpha1).

strategies and backoff are pure (no cluster, no kopf) so that any front end can use them;
resource builds the CRD and the deployment manifests; workload turns a GPUWorkload into the Job
gpuctl renders for a training spec; reconcile is the reconcile step on a gpuctl Cluster;
operator is the only module that imports kopf.
"""
