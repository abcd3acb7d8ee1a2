from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET, Unset
from ... import errors

from ...models.error_body import ErrorBody
from ...models.pool_changed import PoolChanged
from ...models.pool_create import PoolCreate
from typing import cast



def _get_kwargs(
    *,
    body: PoolCreate,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/pools",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorBody | PoolChanged:
    if response.status_code == 201:
        response_201 = PoolChanged.from_dict(response.json())



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

    if response.status_code == 429:
        response_429 = ErrorBody.from_dict(response.json())



        return response_429

    if response.status_code == 503:
        response_503 = ErrorBody.from_dict(response.json())



        return response_503

    response_default = ErrorBody.from_dict(response.json())



    return response_default



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorBody | PoolChanged]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: PoolCreate,

) -> Response[ErrorBody | PoolChanged]:
    """ Create a pool and label its nodes (admin)

     Creates a pool as `gpuctl create -f pool.yaml` does: its record, and the pool label (and unless
    `isolation` is shared, the pool's taint) on its nodes; `maxGpus` caps the GPUs its jobs may request
    together. A node of another pool, or of a GPU model `gpuType` does not allow, is refused (409) and
    nothing is written. Admin only.

    Args:
        body (PoolCreate):  Example: {'description': 'A100 nodes for training', 'gpuType':
            ['a100-80g'], 'name': 'training-pool', 'nodes': ['node-1', 'node-2']}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | PoolChanged]
     """


    kwargs = _get_kwargs(
        body=body,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient,
    body: PoolCreate,

) -> ErrorBody | PoolChanged | None:
    """ Create a pool and label its nodes (admin)

     Creates a pool as `gpuctl create -f pool.yaml` does: its record, and the pool label (and unless
    `isolation` is shared, the pool's taint) on its nodes; `maxGpus` caps the GPUs its jobs may request
    together. A node of another pool, or of a GPU model `gpuType` does not allow, is refused (409) and
    nothing is written. Admin only.

    Args:
        body (PoolCreate):  Example: {'description': 'A100 nodes for training', 'gpuType':
            ['a100-80g'], 'name': 'training-pool', 'nodes': ['node-1', 'node-2']}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | PoolChanged
     """


    return sync_detailed(
        client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: PoolCreate,

) -> Response[ErrorBody | PoolChanged]:
    """ Create a pool and label its nodes (admin)

     Creates a pool as `gpuctl create -f pool.yaml` does: its record, and the pool label (and unless
    `isolation` is shared, the pool's taint) on its nodes; `maxGpus` caps the GPUs its jobs may request
    together. A node of another pool, or of a GPU model `gpuType` does not allow, is refused (409) and
    nothing is written. Admin only.

    Args:
        body (PoolCreate):  Example: {'description': 'A100 nodes for training', 'gpuType':
            ['a100-80g'], 'name': 'training-pool', 'nodes': ['node-1', 'node-2']}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | PoolChanged]
     """


    kwargs = _get_kwargs(
        body=body,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient,
    body: PoolCreate,

) -> ErrorBody | PoolChanged | None:
    """ Create a pool and label its nodes (admin)

     Creates a pool as `gpuctl create -f pool.yaml` does: its record, and the pool label (and unless
    `isolation` is shared, the pool's taint) on its nodes; `maxGpus` caps the GPUs its jobs may request
    together. A node of another pool, or of a GPU model `gpuType` does not allow, is refused (409) and
    nothing is written. Admin only.

    Args:
        body (PoolCreate):  Example: {'description': 'A100 nodes for training', 'gpuType':
            ['a100-80g'], 'name': 'training-pool', 'nodes': ['node-1', 'node-2']}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | PoolChanged
     """


    return (await asyncio_detailed(
        client=client,
body=body,

    )).parsed
