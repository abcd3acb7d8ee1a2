from enum import StrEnum

class AuthCheckAction(StrEnum):
    CREATE = "create"
    DELETE = "delete"
    GET = "get"

    def __str__(self) -> str:
        return str(self.value)
