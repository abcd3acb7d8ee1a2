from enum import StrEnum

class AuthCheckResource(StrEnum):
    JOBS = "jobs"
    LABELS = "labels"
    NODES = "nodes"
    POOLS = "pools"
    QUOTAS = "quotas"

    def __str__(self) -> str:
        return str(self.value)
