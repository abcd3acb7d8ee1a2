from enum import StrEnum

class PoolCreateIsolation(StrEnum):
    ISOLATED = "isolated"
    SHARED = "shared"

    def __str__(self) -> str:
        return str(self.value)
