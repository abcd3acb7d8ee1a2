from enum import StrEnum

class JobCreatedStatus(StrEnum):
    PENDING = "pending"

    def __str__(self) -> str:
        return str(self.value)
