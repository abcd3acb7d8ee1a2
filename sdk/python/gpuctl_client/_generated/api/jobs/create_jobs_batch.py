from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET, Unset
from ... import errors

from ...models.error_body import ErrorBody
from ...models.job_batch import JobBatch
from ...models.job_batch_create import JobBatchCreate
from ...models.job_batch_refused import JobBatchRefused
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    *,
    body: JobBatchCreate,
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
        "url": "/api/v1/jobs/batch",
        "params": params,
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorBody | JobBatch | JobBatchRefused:
    if response.status_code == 200:
        response_200 = JobBatch.from_dict(response.json())



        return response_200

    if response.status_code == 201:
        response_201 = JobBatch.from_dict(response.json())



        return response_201

    if response.status_code == 207:
        response_207 = JobBatch.from_dict(response.json())



        return response_207

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
        response_422 = JobBatchRefused.from_dict(response.json())



        return response_422

    if response.status_code == 429:
        response_429 = ErrorBody.from_dict(response.json())



        return response_429

    if response.status_code == 503:
        response_503 = ErrorBody.from_dict(response.json())



        return response_503

    response_default = ErrorBody.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorBody | JobBatch | JobBatchRefused]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: JobBatchCreate,
    allow_pending: bool | Unset = False,
    idempotency_key: str | Unset = UNSET,

) -> Response[ErrorBody | JobBatch | JobBatchRefused]:
    """ Create several jobs, each on its own

     201 when every item was created, 207 when some were and some failed, 422 when every
    item failed; `failed` gives each failure in the error shape, with its index. With an
    `Idempotency-Key` an earlier request with the same body sent, the items it created answer
    their jobs (not created again) and only the items it failed are tried again: 200 when
    nothing was left to create; the same key with another body is 422, nothing created.

    Args:
        allow_pending (bool | Unset): accept a job that no node could ever hold as asked (a GPU
            type no node carries, a pod larger than any node, a pool without nodes): it waits,
            pending, for nodes that join; without it such a job is 422 Unschedulable and nothing is
            created Default: False.
        idempotency_key (str | Unset): any string up to 255 visible ASCII characters, new for each
            logical create: a repeat with the same body answers the first result (200, the same
            jobId), with another body 422
        body (JobBatchCreate):  Example: {'yamlContents': ['kind: training\\nversion:
            v0.1\\njob:\\n  name: qwen2-7b-sft\\n  priority: medium\\nenvironment:\\n  image:
            registry.example.com/llama-factory:0.8.0\\n  command: ["llamafactory-cli",
            "train"]\\nresources:\\n  pool: training-pool\\n  gpu: 4\\n  gpu-type: a100-80g\\n  cpu:
            32\\n  memory: 128Gi\\n']}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | JobBatch | JobBatchRefused]
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
    body: JobBatchCreate,
    allow_pending: bool | Unset = False,
    idempotency_key: str | Unset = UNSET,

) -> ErrorBody | JobBatch | JobBatchRefused | None:
    """ Create several jobs, each on its own

     201 when every item was created, 207 when some were and some failed, 422 when every
    item failed; `failed` gives each failure in the error shape, with its index. With an
    `Idempotency-Key` an earlier request with the same body sent, the items it created answer
    their jobs (not created again) and only the items it failed are tried again: 200 when
    nothing was left to create; the same key with another body is 422, nothing created.

    Args:
        allow_pending (bool | Unset): accept a job that no node could ever hold as asked (a GPU
            type no node carries, a pod larger than any node, a pool without nodes): it waits,
            pending, for nodes that join; without it such a job is 422 Unschedulable and nothing is
            created Default: False.
        idempotency_key (str | Unset): any string up to 255 visible ASCII characters, new for each
            logical create: a repeat with the same body answers the first result (200, the same
            jobId), with another body 422
        body (JobBatchCreate):  Example: {'yamlContents': ['kind: training\\nversion:
            v0.1\\njob:\\n  name: qwen2-7b-sft\\n  priority: medium\\nenvironment:\\n  image:
            registry.example.com/llama-factory:0.8.0\\n  command: ["llamafactory-cli",
            "train"]\\nresources:\\n  pool: training-pool\\n  gpu: 4\\n  gpu-type: a100-80g\\n  cpu:
            32\\n  memory: 128Gi\\n']}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | JobBatch | JobBatchRefused
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
    body: JobBatchCreate,
    allow_pending: bool | Unset = False,
    idempotency_key: str | Unset = UNSET,

) -> Response[ErrorBody | JobBatch | JobBatchRefused]:
    """ Create several jobs, each on its own

     201 when every item was created, 207 when some were and some failed, 422 when every
    item failed; `failed` gives each failure in the error shape, with its index. With an
    `Idempotency-Key` an earlier request with the same body sent, the items it created answer
    their jobs (not created again) and only the items it failed are tried again: 200 when
    nothing was left to create; the same key with another body is 422, nothing created.

    Args:
        allow_pending (bool | Unset): accept a job that no node could ever hold as asked (a GPU
            type no node carries, a pod larger than any node, a pool without nodes): it waits,
            pending, for nodes that join; without it such a job is 422 Unschedulable and nothing is
            created Default: False.
        idempotency_key (str | Unset): any string up to 255 visible ASCII characters, new for each
            logical create: a repeat with the same body answers the first result (200, the same
            jobId), with another body 422
        body (JobBatchCreate):  Example: {'yamlContents': ['kind: training\\nversion:
            v0.1\\njob:\\n  name: qwen2-7b-sft\\n  priority: medium\\nenvironment:\\n  image:
            registry.example.com/llama-factory:0.8.0\\n  command: ["llamafactory-cli",
            "train"]\\nresources:\\n  pool: training-pool\\n  gpu: 4\\n  gpu-type: a100-80g\\n  cpu:
            32\\n  memory: 128Gi\\n']}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | JobBatch | JobBatchRefused]
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
    body: JobBatchCreate,
    allow_pending: bool | Unset = False,
    idempotency_key: str | Unset = UNSET,

) -> ErrorBody | JobBatch | JobBatchRefused | None:
    """ Create several jobs, each on its own

     201 when every item was created, 207 when some were and some failed, 422 when every
    item failed; `failed` gives each failure in the error shape, with its index. With an
    `Idempotency-Key` an earlier request with the same body sent, the items it created answer
    their jobs (not created again) and only the items it failed are tried again: 200 when
    nothing was left to create; the same key with another body is 422, nothing created.

    Args:
        allow_pending (bool | Unset): accept a job that no node could ever hold as asked (a GPU
            type no node carries, a pod larger than any node, a pool without nodes): it waits,
            pending, for nodes that join; without it such a job is 422 Unschedulable and nothing is
            created Default: False.
        idempotency_key (str | Unset): any string up to 255 visible ASCII characters, new for each
            logical create: a repeat with the same body answers the first result (200, the same
            jobId), with another body 422
        body (JobBatchCreate):  Example: {'yamlContents': ['kind: training\\nversion:
            v0.1\\njob:\\n  name: qwen2-7b-sft\\n  priority: medium\\nenvironment:\\n  image:
            registry.example.com/llama-factory:0.8.0\\n  command: ["llamafactory-cli",
            "train"]\\nresources:\\n  pool: training-pool\\n  gpu: 4\\n  gpu-type: a100-80g\\n  cpu:
            32\\n  memory: 128Gi\\n']}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | JobBatch | JobBatchRefused
     """


    return (await asyncio_detailed(
        client=client,
body=body,
allow_pending=allow_pending,
idempotency_key=idempotency_key,

    )).parsed
