"""The scheduling controller for GPUWorkload objects (gpu.warp.dev/v1alpha1).

The placement strategies live in gpuctl.placement.strategies (shared with `gpuctl create`) and
the free-GPU accounting in gpuctl.placement.capacity; backoff is pure (no cluster);
resource builds the CRD and the deployment manifests; workload turns a GPUWorkload into the
training spec's manifests and the controller's marks on its Job; reconcile is the reconcile
step on a gpuctl cluster connection (its state machine; the Job is written by the Create verb,
whose node and pod lists `reads` serves from the caches), view what it reads of the cluster and
where workloads would go, placer where a workload goes (on the capacity model of
gpuctl.placement), nodeloss whether a placed workload lost its node, status the status it
writes; queue is the work queue; operator feeds the queue from the GPUWorkload watch and runs
the workers, the probes and the Lease.
"""
