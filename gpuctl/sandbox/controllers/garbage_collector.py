"""The garbage collector: deletes the dependents of removed owners, and finishes foreground
deletions once an owner's dependents are gone."""

from __future__ import annotations

from gpuctl.sandbox.controllers.base import Controller
from gpuctl.sandbox.store import Obj


class GarbageCollector(Controller):
    name = "garbage-collector"

    def reconcile(self, now: float) -> None:
        removed, self.api.removed_uids = self.api.removed_uids, []
        for uid in removed:
            for key, ns, name in self.store.dependents(uid):
                child = self.store.get(key, ns, name)
                if child is not None and not child["metadata"].get("deletionTimestamp"):
                    self.delete(self.api.registry.get(*key), child)
        for key, ns, name in sorted(self.store.terminating):
            obj = self.store.get(key, ns, name)
            if obj is None or "foregroundDeletion" not in (obj["metadata"].get("finalizers") or []):
                continue
            self._foreground(key, obj)

    def _foreground(self, key: tuple[str, str], obj: Obj) -> None:
        """Delete the owner's dependents (foreground too); drop its finalizer when none is left."""
        blocking = []
        for dkey, dns, dname in self.store.dependents(obj["metadata"]["uid"]):
            child = self.store.get(dkey, dns, dname)
            if child is None:
                continue
            blocking.append(child)
            if not child["metadata"].get("deletionTimestamp"):
                self.delete(self.api.registry.get(*dkey), child, "Foreground")
        if not blocking:
            self.api.deletion.remove_finalizer(
                self.api.registry.get(*key), obj, "foregroundDeletion"
            )
