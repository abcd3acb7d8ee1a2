"""A pod's `resize` subresource (in-place pod resize), as the 1.33 API server serves it.

A write through `pods/NAME/resize` takes only the containers' `resources` and `resizePolicy`
from the body (everything else it sends is ignored) and refuses, with 422 Invalid:
- a change of the pod's QoS class;
- a pod whose running containers report no `resources` in their status (the node's kubelet
  cannot resize: `Pod running on node without support for resize`);
- a request or limit removed, a memory limit lowered (unless the container's memory
  resizePolicy is RestartContainer);
- a change of anything but CPU and memory (an extended resource such as GPUs, a
  resizePolicy);
- containers added or removed.
What it writes is the pod's spec; its status is the kubelet's to change.
"""

from __future__ import annotations

import copy
from typing import Any

from gpuctl.sandbox import quantity
from gpuctl.sandbox.defaults import qos_class
from gpuctl.sandbox.errors import Cause

Obj = dict[str, Any]

# The only resources a resize may change.
RESIZABLE = ("cpu", "memory")


def resized(old: Obj, sent: Obj) -> tuple[Obj, list[Cause]]:
    """The pod a resize writes (the stored pod with the sent containers' resources and
    resizePolicy), and the reasons to refuse it (none when it may be written)."""
    new = copy.deepcopy(old)
    old_containers = (old.get("spec") or {}).get("containers") or []
    sent_containers = (sent.get("spec") or {}).get("containers") or []
    if [c.get("name") for c in sent_containers] != [c.get("name") for c in old_containers]:
        cause = Cause(
            "spec.containers", "Forbidden", "containers may not be added or removed on resize"
        )
        return new, [cause]
    for target, given in zip(new["spec"]["containers"], sent_containers, strict=True):
        for key in ("resources", "resizePolicy"):
            if key in given:
                target[key] = copy.deepcopy(given[key])
            else:
                target.pop(key, None)
    return new, _causes(old, new)


def _causes(old: Obj, new: Obj) -> list[Cause]:
    causes: list[Cause] = []
    before = (old.get("status") or {}).get("qosClass") or qos_class(old.get("spec") or {})
    if qos_class(new.get("spec") or {}) != before:
        causes.append(
            Cause(
                "spec",
                "Invalid value",
                "Pod QOS Class may not change as a result of resizing",
                before,
            )
        )
    if not _node_supports_resize(old):
        causes.append(Cause("spec", "Forbidden", "Pod running on node without support for resize"))
    olds = old["spec"]["containers"]
    news = new["spec"]["containers"]
    for index, (was, now) in enumerate(zip(olds, news, strict=True)):
        causes += _container_causes(index, was, now)
    if any(_other_change(was, now) for was, now in zip(olds, news, strict=True)):
        causes.append(Cause("spec", "Forbidden", "only cpu and memory resources are mutable"))
    return causes


def _node_supports_resize(pod: Obj) -> bool:
    """A 1.33 kubelet that can resize reports each running container's resources."""
    statuses = (pod.get("status") or {}).get("containerStatuses") or []
    return not any(
        "running" in (cs.get("state") or {}) and cs.get("resources") is None for cs in statuses
    )


def _container_causes(index: int, was: Obj, now: Obj) -> list[Cause]:
    path = f"spec.containers[{index}].resources"
    old_res, new_res = was.get("resources") or {}, now.get("resources") or {}
    causes = []
    for part, word in (("requests", "requests"), ("limits", "limits")):
        if set(old_res.get(part) or {}) - set(new_res.get(part) or {}):
            causes.append(
                Cause(f"{path}.{part}", "Forbidden", f"resource {word} cannot be removed")
            )
    old_memory = (old_res.get("limits") or {}).get("memory")
    new_memory = (new_res.get("limits") or {}).get("memory")
    if (
        old_memory is not None
        and new_memory is not None
        and quantity.is_quantity(old_memory)
        and quantity.is_quantity(new_memory)
        and quantity.parse(new_memory) < quantity.parse(old_memory)
        and _memory_policy(now) != "RestartContainer"
    ):
        causes.append(
            Cause(
                f"{path}.limits[memory]",
                "Forbidden",
                "memory limits cannot be decreased unless resizePolicy is RestartContainer",
            )
        )
    return causes


def _memory_policy(container: Obj) -> str:
    for policy in container.get("resizePolicy") or []:
        if policy.get("resourceName") == "memory":
            return str(policy.get("restartPolicy", "NotRequired"))
    return "NotRequired"


def _other_change(was: Obj, now: Obj) -> bool:
    """Did anything change but the CPU and memory amounts (another resource, the policy)?"""
    if was.get("resizePolicy") != now.get("resizePolicy"):
        return True
    old_res, new_res = was.get("resources") or {}, now.get("resources") or {}
    for part in ("requests", "limits"):
        before = {k: v for k, v in (old_res.get(part) or {}).items() if k not in RESIZABLE}
        after = {k: v for k, v in (new_res.get(part) or {}).items() if k not in RESIZABLE}
        if before != after:
            return True
    return False
