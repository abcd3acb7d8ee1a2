from enum import StrEnum

class ListNodesAccept(StrEnum):
    APPLICATIONJSON = "application/json"
    APPLICATIONYAML = "application/yaml"

    def __str__(self) -> str:
        return str(self.value)
