"""The namespace controller: empties a terminating namespace, then removes it."""

from __future__ import annotations

from gpuctl.sandbox.controllers.base import Controller


class NamespaceController(Controller):
    name = "namespace-controller"

    def reconcile(self, now: float) -> None:
        for ns in self.store.objects(self.namespaces.key, None):
            if not ns["metadata"].get("deletionTimestamp"):
                continue
            name = ns["metadata"]["name"]
            remaining = 0
            for res in self.api.registry.all():
                if not res.namespaced:
                    continue
                for obj in self.store.objects(res.key, name):
                    remaining += 1
                    if not obj["metadata"].get("deletionTimestamp"):
                        self.delete(res, obj)
            if remaining == 0:
                self.api.remove_now(self.namespaces, ns)
