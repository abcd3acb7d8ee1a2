from enum import StrEnum

class JobStatus(StrEnum):
    FAILED = "failed"
    PARTIAL = "partial"
    PARTIALLY_RUNNING = "partially-running"
    PAUSED = "paused"
    PENDING = "pending"
    PREEMPTED = "preempted"
    QUEUED = "queued"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    TERMINATING = "terminating"

    def __str__(self) -> str:
        return str(self.value)
