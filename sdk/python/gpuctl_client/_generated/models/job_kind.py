from enum import StrEnum

class JobKind(StrEnum):
    COMPUTE = "compute"
    INFERENCE = "inference"
    NOTEBOOK = "notebook"
    TRAINING = "training"

    def __str__(self) -> str:
        return str(self.value)
