"""A client for gpuctl's REST API: `Client(url, token)`, typed methods for every endpoint,
typed errors, paging iterators, log following, and retries that never make a job twice.

    from gpuctl_client import Client

    with Client("http://127.0.0.1:8000", token="...") as client:
        job = client.jobs.create(open("job.yaml").read())
        for line in client.jobs.follow(job.job_id):
            print(line)
"""

from gpuctl_client._generated import models
from gpuctl_client.client import FINISHED, Client, WaitTimeout
from gpuctl_client.errors import (
    ApiError,
    BadRequest,
    Conflict,
    ConnectionFailed,
    Forbidden,
    GpuctlClientError,
    LogStreamBroken,
    NotFound,
    PayloadTooLarge,
    RateLimited,
    ServerError,
    Unauthorized,
    Unprocessable,
)
from gpuctl_client.retry import RetryPolicy

__version__ = "0.1.0"
__all__ = [
    "FINISHED",
    "ApiError",
    "BadRequest",
    "Client",
    "Conflict",
    "ConnectionFailed",
    "Forbidden",
    "GpuctlClientError",
    "LogStreamBroken",
    "NotFound",
    "PayloadTooLarge",
    "RateLimited",
    "RetryPolicy",
    "ServerError",
    "Unauthorized",
    "Unprocessable",
    "WaitTimeout",
    "models",
]
