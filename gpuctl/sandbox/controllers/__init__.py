"""The simulated control plane: one module per controller (namespaces, garbage collection, Job,
Deployment, ReplicaSet, StatefulSet, scheduler, kubelet, resource quota, HPA), the helpers they
share (`base`), what a new cluster holds (`bootstrap`) and the loop that runs them (`loop`)."""

from gpuctl.sandbox.controllers.base import Controller, template_hash
from gpuctl.sandbox.controllers.loop import ControllerError, Controllers

__all__ = ["Controller", "ControllerError", "Controllers", "template_hash"]
