from enum import StrEnum

class NodeStatus(StrEnum):
    ACTIVE = "active"
    FAULTY = "faulty"
    MAINTAINING = "maintaining"

    def __str__(self) -> str:
        return str(self.value)
