from enum import StrEnum

class JobDeletedStatus(StrEnum):
    TERMINATING = "terminating"

    def __str__(self) -> str:
        return str(self.value)
