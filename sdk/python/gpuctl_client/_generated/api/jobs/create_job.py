from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET, Unset
from ... import errors

from ...models.error_body import ErrorBody
from ...models.job_create import JobCreate
from ...models.job_created import JobCreated
from ...types import File, FileTypes
from ...types import UNSET, Unset
from io import BytesIO
from typing import cast



def _get_kwargs(
    *,
    body:    JobCreate  |     File  | Unset = UNSET,
    allow_pending: bool | Unset = False,
    idempotency_key: str | Unset = UNSET,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key



    

    params: dict[str, Any] = {}

    params["allowPending"] = allow_pending


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/jobs",
        "params": params,
    }

    if isinstance(body, JobCreate):
        _kwargs["json"] = body.to_dict()

        headers["Content-Type"] = "application/json"
    if isinstance(body, File):
        _kwargs["content"] = body.payload
        headers["Content-Type"] = "application/yaml"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorBody | JobCreated:
    if response.status_code == 200:
        response_200 = JobCreated.from_dict(response.json())



        return response_200

    if response.status_code == 201:
        response_201 = JobCreated.from_dict(response.json())



        return response_201

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())



        return response_400

    if response.status_code == 401:
        response_401 = ErrorBody.from_dict(response.json())



        return response_401

    if response.status_code == 403:
        response_403 = ErrorBody.from_dict(response.json())



        return response_403

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())



        return response_404

    if response.status_code == 409:
        response_409 = ErrorBody.from_dict(response.json())



        return response_409

    if response.status_code == 413:
        response_413 = ErrorBody.from_dict(response.json())



        return response_413

    if response.status_code == 422:
        response_422 = ErrorBody.from_dict(response.json())



        return response_422

    if response.status_code == 429:
        response_429 = ErrorBody.from_dict(response.json())



        return response_429

    if response.status_code == 503:
        response_503 = ErrorBody.from_dict(response.json())



        return response_503

    response_default = ErrorBody.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorBody | JobCreated]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body:    JobCreate  |     File  | Unset = UNSET,
    allow_pending: bool | Unset = False,
    idempotency_key: str | Unset = UNSET,

) -> Response[ErrorBody | JobCreated]:
    """ Create a job from its YAML spec

     Creates the job a spec describes: JSON `{"yamlContent": ...}`, or the spec itself with `Content-
    Type: application/yaml`. One job per request (`POST /jobs/batch` for several); a user's job goes to
    their own namespace. Answers 201 with the job's id (`<namespace>.<name>`), which `GET` and `DELETE
    /jobs/{jobId}` take.

    Args:
        allow_pending (bool | Unset): accept a job that no node could ever hold as asked (a GPU
            type no node carries, a pod larger than any node, a pool without nodes): it waits,
            pending, for nodes that join; without it such a job is 422 Unschedulable and nothing is
            created Default: False.
        idempotency_key (str | Unset): any string up to 255 visible ASCII characters, new for each
            logical create: a repeat with the same body answers the first result (200, the same
            jobId), with another body 422
        body (JobCreate):  Example: {'yamlContent': 'kind: training\\nversion: v0.1\\njob:\\n
            name: qwen2-7b-sft\\n  priority: medium\\nenvironment:\\n  image:
            registry.example.com/llama-factory:0.8.0\\n  command: ["llamafactory-cli",
            "train"]\\nresources:\\n  pool: training-pool\\n  gpu: 4\\n  gpu-type: a100-80g\\n  cpu:
            32\\n  memory: 128Gi\\n'}.
        body (File):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | JobCreated]
     """


    kwargs = _get_kwargs(
        body=body,
allow_pending=allow_pending,
idempotency_key=idempotency_key,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient,
    body:    JobCreate  |     File  | Unset = UNSET,
    allow_pending: bool | Unset = False,
    idempotency_key: str | Unset = UNSET,

) -> ErrorBody | JobCreated | None:
    """ Create a job from its YAML spec

     Creates the job a spec describes: JSON `{"yamlContent": ...}`, or the spec itself with `Content-
    Type: application/yaml`. One job per request (`POST /jobs/batch` for several); a user's job goes to
    their own namespace. Answers 201 with the job's id (`<namespace>.<name>`), which `GET` and `DELETE
    /jobs/{jobId}` take.

    Args:
        allow_pending (bool | Unset): accept a job that no node could ever hold as asked (a GPU
            type no node carries, a pod larger than any node, a pool without nodes): it waits,
            pending, for nodes that join; without it such a job is 422 Unschedulable and nothing is
            created Default: False.
        idempotency_key (str | Unset): any string up to 255 visible ASCII characters, new for each
            logical create: a repeat with the same body answers the first result (200, the same
            jobId), with another body 422
        body (JobCreate):  Example: {'yamlContent': 'kind: training\\nversion: v0.1\\njob:\\n
            name: qwen2-7b-sft\\n  priority: medium\\nenvironment:\\n  image:
            registry.example.com/llama-factory:0.8.0\\n  command: ["llamafactory-cli",
            "train"]\\nresources:\\n  pool: training-pool\\n  gpu: 4\\n  gpu-type: a100-80g\\n  cpu:
            32\\n  memory: 128Gi\\n'}.
        body (File):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | JobCreated
     """


    return sync_detailed(
        client=client,
body=body,
allow_pending=allow_pending,
idempotency_key=idempotency_key,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body:    JobCreate  |     File  | Unset = UNSET,
    allow_pending: bool | Unset = False,
    idempotency_key: str | Unset = UNSET,

) -> Response[ErrorBody | JobCreated]:
    """ Create a job from its YAML spec

     Creates the job a spec describes: JSON `{"yamlContent": ...}`, or the spec itself with `Content-
    Type: application/yaml`. One job per request (`POST /jobs/batch` for several); a user's job goes to
    their own namespace. Answers 201 with the job's id (`<namespace>.<name>`), which `GET` and `DELETE
    /jobs/{jobId}` take.

    Args:
        allow_pending (bool | Unset): accept a job that no node could ever hold as asked (a GPU
            type no node carries, a pod larger than any node, a pool without nodes): it waits,
            pending, for nodes that join; without it such a job is 422 Unschedulable and nothing is
            created Default: False.
        idempotency_key (str | Unset): any string up to 255 visible ASCII characters, new for each
            logical create: a repeat with the same body answers the first result (200, the same
            jobId), with another body 422
        body (JobCreate):  Example: {'yamlContent': 'kind: training\\nversion: v0.1\\njob:\\n
            name: qwen2-7b-sft\\n  priority: medium\\nenvironment:\\n  image:
            registry.example.com/llama-factory:0.8.0\\n  command: ["llamafactory-cli",
            "train"]\\nresources:\\n  pool: training-pool\\n  gpu: 4\\n  gpu-type: a100-80g\\n  cpu:
            32\\n  memory: 128Gi\\n'}.
        body (File):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | JobCreated]
     """


    kwargs = _get_kwargs(
        body=body,
allow_pending=allow_pending,
idempotency_key=idempotency_key,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient,
    body:    JobCreate  |     File  | Unset = UNSET,
    allow_pending: bool | Unset = False,
    idempotency_key: str | Unset = UNSET,

) -> ErrorBody | JobCreated | None:
    """ Create a job from its YAML spec

     Creates the job a spec describes: JSON `{"yamlContent": ...}`, or the spec itself with `Content-
    Type: application/yaml`. One job per request (`POST /jobs/batch` for several); a user's job goes to
    their own namespace. Answers 201 with the job's id (`<namespace>.<name>`), which `GET` and `DELETE
    /jobs/{jobId}` take.

    Args:
        allow_pending (bool | Unset): accept a job that no node could ever hold as asked (a GPU
            type no node carries, a pod larger than any node, a pool without nodes): it waits,
            pending, for nodes that join; without it such a job is 422 Unschedulable and nothing is
            created Default: False.
        idempotency_key (str | Unset): any string up to 255 visible ASCII characters, new for each
            logical create: a repeat with the same body answers the first result (200, the same
            jobId), with another body 422
        body (JobCreate):  Example: {'yamlContent': 'kind: training\\nversion: v0.1\\njob:\\n
            name: qwen2-7b-sft\\n  priority: medium\\nenvironment:\\n  image:
            registry.example.com/llama-factory:0.8.0\\n  command: ["llamafactory-cli",
            "train"]\\nresources:\\n  pool: training-pool\\n  gpu: 4\\n  gpu-type: a100-80g\\n  cpu:
            32\\n  memory: 128Gi\\n'}.
        body (File):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | JobCreated
     """


    return (await asyncio_detailed(
        client=client,
body=body,
allow_pending=allow_pending,
idempotency_key=idempotency_key,

    )).parsed
