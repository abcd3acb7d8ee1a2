from enum import StrEnum

class ListNodesStatus(StrEnum):
    ACTIVE = "active"
    FAULTY = "faulty"
    MAINTAINING = "maintaining"
    NOTREADY = "NotReady"
    READY = "Ready"
    SCHEDULINGDISABLED = "SchedulingDisabled"

    def __str__(self) -> str:
        return str(self.value)
