from enum import StrEnum

class GetNodeAccept(StrEnum):
    APPLICATIONJSON = "application/json"
    APPLICATIONYAML = "application/yaml"

    def __str__(self) -> str:
        return str(self.value)
