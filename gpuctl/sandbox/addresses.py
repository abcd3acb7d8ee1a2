"""A Service's cluster IP (10.96.0.0/16, in order) and node ports (30000-32767, at random),
allocated at create and update, kept across updates and released at delete."""

from __future__ import annotations

import random

from gpuctl.sandbox.errors import Cause, invalid
from gpuctl.sandbox.resources import Resource
from gpuctl.sandbox.store import Obj


class ServiceAddresses:
    """The cluster IPs handed out so far, and the node ports in use."""

    def __init__(self) -> None:
        self._next_ip = 0
        self._node_ports: set[int] = set()

    def allocate(self, res: Resource, obj: Obj, old: Obj | None, dry_run: bool) -> None:
        if res.kind != "Service":
            return
        spec = obj["spec"]
        old_spec = (old or {}).get("spec") or {}
        if not spec.get("clusterIP") and old_spec.get("clusterIP"):
            spec["clusterIP"] = old_spec["clusterIP"]
            spec["clusterIPs"] = old_spec.get("clusterIPs", [old_spec["clusterIP"]])
        if not spec.get("clusterIP"):
            if spec.get("type") == "ExternalName":
                return
            n = self._next_ip
            if not dry_run:
                self._next_ip += 1
            spec["clusterIP"] = f"10.96.{n // 254}.{n % 254 + 1}"
        spec.setdefault("clusterIPs", [spec["clusterIP"]])
        if spec.get("type") in ("NodePort", "LoadBalancer"):
            old_ports = {
                (p.get("port"), p.get("protocol")): p.get("nodePort")
                for p in old_spec.get("ports") or []
            }
            mine = {p for p in old_ports.values() if p}
            for i, port in enumerate(spec.get("ports") or []):
                wanted = port.get("nodePort") or old_ports.get(
                    (port.get("port"), port.get("protocol"))
                )
                if wanted:
                    if wanted in self._node_ports and wanted not in mine:
                        raise invalid(
                            res,
                            obj["metadata"]["name"],
                            [
                                Cause(
                                    f"spec.ports[{i}].nodePort",
                                    "Invalid value",
                                    "provided port is already allocated",
                                    wanted,
                                )
                            ],
                        )
                else:
                    free = [p for p in range(30000, 32768) if p not in self._node_ports]
                    if not free:
                        raise invalid(
                            res,
                            obj["metadata"]["name"],
                            [
                                Cause(
                                    f"spec.ports[{i}].nodePort", "Invalid value", "range is full", 0
                                )
                            ],
                        )
                    wanted = random.choice(free)
                port["nodePort"] = wanted
                if not dry_run:
                    self._node_ports.add(wanted)
            if old is not None and not dry_run:
                kept = {p.get("nodePort") for p in spec.get("ports") or []}
                self._node_ports -= mine - kept

    def release(self, res: Resource, obj: Obj) -> None:
        if res.kind == "Service":
            for port in (obj.get("spec") or {}).get("ports") or []:
                self._node_ports.discard(port.get("nodePort"))
