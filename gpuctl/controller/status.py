"""A GPUWorkload's status as the controller writes it: phase, reason, message, the Scheduled
condition, the retries and when the next one is due, and what a reconcile did (`Outcome`).

- No node fits, or the create verb refused the Job before writing it (a pool at its cap, a
  namespace quota or Pod Security level it breaks): the attempt is counted in status.retries
  and retried after min(300, backoffSeconds·2^n) plus jitter; after maxRetries retries the
  phase is Failed.
- An API request failed: a refused object (422 Invalid) is Failed until the spec changes;
  anything else is tried again after ERROR_RETRY_SECONDS (a placed workload keeps its phase).
- Each write's resourceVersion is remembered until a copy of the workload at least that new
  is reconciled: an older copy (a watch behind the write) would place the workload again.
"""

from __future__ import annotations

import logging
import random
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from gpuctl.cluster.api import StatusCluster
from gpuctl.cluster.errors import Invalid, KubeError
from gpuctl.controller import backoff, resource
from gpuctl.controller.metrics import Metrics
from gpuctl.controller.resource import Phase
from gpuctl.controller.workload import Workload
from gpuctl.times import micro_rfc3339, parse_rfc3339, rfc3339

log = logging.getLogger("gpuctl.controller")

ERROR_RETRY_SECONDS: Final = 5.0  # after an API error, before trying again
CONDITION: Final = "Scheduled"


class Reason:
    NO_SUITABLE_NODE: Final = "NoSuitableNode"
    RETRIES_EXHAUSTED: Final = "RetriesExhausted"
    INVALID_SPEC: Final = "InvalidSpec"
    JOB_NAME_TAKEN: Final = "JobNameTaken"
    API_ERROR: Final = "APIError"
    SCHEDULED: Final = "Scheduled"
    ADOPTED: Final = "JobAdopted"
    NODE_LOST: Final = "NodeNotReady"
    # the create verb refused the Job before writing anything: no node could ever run it as
    # asked (its namespace's quota, its Pod Security level), or another check (a pool's cap)
    UNSCHEDULABLE: Final = "Unschedulable"
    REFUSED: Final = "CreateRefused"


@dataclass(frozen=True)
class Outcome:
    """What a reconcile did (the `result` label of the duration metric) and when to call it
    again (None: only on the next change)."""

    result: str
    requeue_after: float | None = None
    message: str = ""


class StatusWriter:
    def __init__(
        self,
        cluster: StatusCluster,
        metrics: Metrics,
        rng: random.Random,
        clock: Callable[[], float],
    ) -> None:
        self.cluster = cluster
        self.metrics = metrics
        self.rng = rng
        self.clock = clock
        # (namespace, name) -> the resourceVersion of the last status this controller wrote,
        # until a copy of the workload at least that new is reconciled
        self._written: dict[tuple[str, str], int] = {}
        self._written_lock = threading.Lock()

    def retry_wait(self, workload: Workload) -> float | None:
        """Seconds until the next retry is due, or None when it is due now."""
        if workload.status.get("phase") != Phase.PENDING:
            return None
        due = parse_rfc3339(str(workload.status.get("nextRetryTime", "")))
        if due is None:
            return None
        left = due - self.clock()
        return left if left > 0 else None

    def api_error(self, workload: Workload, error: KubeError) -> Outcome:
        """An API request failed: logged, counted, and said in the workload's status. A
        refused object (422 Invalid) is refused again until the spec changes: Failed. Anything
        else is tried again after ERROR_RETRY_SECONDS (a placed workload keeps its phase)."""
        self.metrics.failed.labels(Reason.API_ERROR).inc()
        final = isinstance(error, Invalid)
        what = "refused" if final else f"failed, retrying in {ERROR_RETRY_SECONDS:.0f}s"
        message = f"an API request {what}: {error}"
        log.warning("%s/%s: %s", workload.namespace, workload.name, message)
        if workload.status.get("phase") == Phase.SCHEDULED:
            return Outcome("error", ERROR_RETRY_SECONDS, message)
        phase = Phase.FAILED if final else Phase.PENDING
        retry_at = micro_rfc3339(self.clock() + ERROR_RETRY_SECONDS)
        fields = {} if final else {"nextRetryTime": retry_at}
        try:
            self.write(workload, phase, Reason.API_ERROR, message, **fields)
        except KubeError as again:
            log.warning(
                "%s/%s: its status could not be written either: %s",
                workload.namespace,
                workload.name,
                again,
            )
        return Outcome("error", None if final else ERROR_RETRY_SECONDS, message)

    def no_node(
        self, workload: Workload, why: str, reason: str = Reason.NO_SUITABLE_NODE
    ) -> Outcome:
        """Not placed this time (`reason`: no node fits, or the create verb refused the
        Job): retried after a backoff, Failed after maxRetries retries."""
        self.metrics.failed.labels(reason).inc()
        retries = int(workload.status.get("retries") or 0)
        if retries >= workload.max_retries:
            return self.fail(
                workload,
                Reason.RETRIES_EXHAUSTED,
                f"{why}; gave up after {retries} retries",
                retries=retries,
            )
        wait = backoff.delay(workload.backoff_seconds, retries, self.rng)
        self.metrics.retries.inc()
        self.write(
            workload,
            Phase.PENDING,
            reason,
            f"{why}; retry {retries + 1} of {workload.max_retries} in {wait:.0f}s",
            retries=retries + 1,
            nextRetryTime=micro_rfc3339(self.clock() + wait),
        )
        return Outcome("retry", wait, why)

    def fail(self, workload: Workload, reason: str, message: str, **fields: Any) -> Outcome:
        if reason != Reason.RETRIES_EXHAUSTED:
            self.metrics.failed.labels(reason).inc()
        self.write(workload, Phase.FAILED, reason, message, **fields)
        return Outcome("failed", None, message)

    def write(
        self, workload: Workload, phase: str, reason: str, message: str, **fields: Any
    ) -> None:
        status: dict[str, Any] = {}
        if workload.unreadable_status:  # merge patch: remove every field it may have wrong
            status = dict.fromkeys(resource.status_schema()["properties"])
        status |= {
            "phase": phase,
            "reason": reason,
            "message": message,
            "observedGeneration": workload.generation,
            "retries": int(workload.status.get("retries") or 0),
            "conditions": [self._condition(workload, phase, reason, message)],
            **fields,
        }
        if phase != Phase.PENDING:
            status["nextRetryTime"] = None  # merge patch: remove it
        log.info("%s/%s %s (%s): %s", workload.namespace, workload.name, phase, reason, message)
        written = self.cluster.patch_status(
            resource.KIND, workload.name, workload.namespace, status
        )
        version = str((written.get("metadata") or {}).get("resourceVersion") or "")
        if version.isdigit():
            with self._written_lock:
                self._written[(workload.namespace, workload.name)] = int(version)

    def _condition(
        self, workload: Workload, phase: str, reason: str, message: str
    ) -> dict[str, Any]:
        return {
            "type": CONDITION,
            "status": "True" if phase == Phase.SCHEDULED else "False",
            "reason": reason,
            "message": message,
            "lastTransitionTime": rfc3339(self.clock()),
            "observedGeneration": workload.generation,
        }

    def behind(self, obj: dict[str, Any]) -> bool:
        """Is `obj` older than the status this controller last wrote on it (a watch that has
        not brought that write yet)? Reconciling such a copy would place the workload again."""
        meta = obj.get("metadata") or {}
        key = (str(meta.get("namespace") or "default"), str(meta.get("name") or ""))
        version = str(meta.get("resourceVersion") or "")
        with self._written_lock:
            wrote = self._written.get(key)
            if wrote is None or not version.isdigit():
                return False
            if int(version) >= wrote:
                del self._written[key]
                return False
            return True

    def forget(self, namespace: str, name: str) -> None:
        """The workload is gone: nothing is remembered of it."""
        with self._written_lock:
            self._written.pop((namespace, name), None)
