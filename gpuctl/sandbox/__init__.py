"""A simulated GPU cluster: an in-memory Kubernetes API server over real HTTP.

Independent of the rest of gpuctl on purpose: it imports only pure parts of it (the accelerator
catalog, times, the workload adapters, the Pod Security rules), never the cluster layer or
anything after it, and nothing in gpuctl imports it; so it can be started by tests, by
`gpuctl sandbox up`, or by anyone who wants a cluster-shaped thing to talk to.
"""

from gpuctl.sandbox.config import SandboxConfig
from gpuctl.sandbox.faults import Faults, RequestLog
from gpuctl.sandbox.runner import Sandbox

__all__ = ["Faults", "RequestLog", "Sandbox", "SandboxConfig"]
