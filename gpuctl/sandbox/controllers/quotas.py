"""The resource quota controller: keeps each ResourceQuota's status.used current."""

from __future__ import annotations

from gpuctl.sandbox import quantity
from gpuctl.sandbox.controllers.base import Controller


class ResourceQuotaController(Controller):
    name = "resourcequota-controller"

    def reconcile(self, now: float) -> None:
        for quota in self.store.objects(self.quotas.key, None):
            hard = (quota.get("spec") or {}).get("hard") or {}
            used = self.api.quotas.used(quota["metadata"]["namespace"], hard)
            status = {
                "hard": dict(hard),
                "used": {
                    k: quantity.format_quantity(v, quantity.is_binary(hard[k]) or "memory" in k)
                    for k, v in used.items()
                },
            }
            self.set_status(self.quotas, quota, status)
