"""The REST API front end (`gpuctl serve`): `/api/v1` on FastAPI over the same verbs and
inventory as the CLI. The only layer besides the CLI that turns errors into answers (HTTP codes
and the one error body). Nothing else in gpuctl imports this package or FastAPI."""
