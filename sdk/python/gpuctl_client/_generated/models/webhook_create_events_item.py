from enum import StrEnum

class WebhookCreateEventsItem(StrEnum):
    JOB_CREATED = "job.created"
    JOB_DELETED = "job.deleted"
    JOB_FAILED = "job.failed"
    JOB_RUNNING = "job.running"
    JOB_SUCCEEDED = "job.succeeded"

    def __str__(self) -> str:
        return str(self.value)
