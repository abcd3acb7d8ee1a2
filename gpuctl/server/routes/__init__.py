"""The `/api/v1` routes, one module per resource. Endpoints that call the cluster are plain
`def`s: FastAPI runs them in its thread pool, so the event loop never waits on the cluster."""
