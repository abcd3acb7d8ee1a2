from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET, Unset
from ... import errors

from ...models.error_body import ErrorBody
from ...models.pool_cap_changed import PoolCapChanged
from ...models.pool_cap_set import PoolCapSet
from typing import cast



def _get_kwargs(
    pool_name: str,
    *,
    body: PoolCapSet,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "patch",
        "url": "/api/v1/pools/{pool_name}".format(pool_name=quote(str(pool_name), safe=""),),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorBody | PoolCapChanged:
    if response.status_code == 200:
        response_200 = PoolCapChanged.from_dict(response.json())



        return response_200

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



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorBody | PoolCapChanged]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    pool_name: str,
    *,
    client: AuthenticatedClient,
    body: PoolCapSet,

) -> Response[ErrorBody | PoolCapChanged]:
    """ Set or remove a pool's GPU cap (admin)

     Sets (or with `null` removes) an existing pool's GPU cap as `gpuctl apply -f pool.yaml` with a new
    `max-gpus` does: the pool's record, and where Kueue is installed its ClusterQueue's GPU quota,
    change in place; its nodes, their labels and taints, its allowed GPU types and isolation stay as
    they are. Answers the pool as GET /pools/{poolName} does, with what was written in `message`. A cap
    below the GPUs in use stops no running job: new jobs wait (Kueue) or are refused. Admin only.

    Args:
        pool_name (str):
        body (PoolCapSet):  Example: {'maxGpus': 12}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | PoolCapChanged]
     """


    kwargs = _get_kwargs(
        pool_name=pool_name,
body=body,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    pool_name: str,
    *,
    client: AuthenticatedClient,
    body: PoolCapSet,

) -> ErrorBody | PoolCapChanged | None:
    """ Set or remove a pool's GPU cap (admin)

     Sets (or with `null` removes) an existing pool's GPU cap as `gpuctl apply -f pool.yaml` with a new
    `max-gpus` does: the pool's record, and where Kueue is installed its ClusterQueue's GPU quota,
    change in place; its nodes, their labels and taints, its allowed GPU types and isolation stay as
    they are. Answers the pool as GET /pools/{poolName} does, with what was written in `message`. A cap
    below the GPUs in use stops no running job: new jobs wait (Kueue) or are refused. Admin only.

    Args:
        pool_name (str):
        body (PoolCapSet):  Example: {'maxGpus': 12}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | PoolCapChanged
     """


    return sync_detailed(
        pool_name=pool_name,
client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    pool_name: str,
    *,
    client: AuthenticatedClient,
    body: PoolCapSet,

) -> Response[ErrorBody | PoolCapChanged]:
    """ Set or remove a pool's GPU cap (admin)

     Sets (or with `null` removes) an existing pool's GPU cap as `gpuctl apply -f pool.yaml` with a new
    `max-gpus` does: the pool's record, and where Kueue is installed its ClusterQueue's GPU quota,
    change in place; its nodes, their labels and taints, its allowed GPU types and isolation stay as
    they are. Answers the pool as GET /pools/{poolName} does, with what was written in `message`. A cap
    below the GPUs in use stops no running job: new jobs wait (Kueue) or are refused. Admin only.

    Args:
        pool_name (str):
        body (PoolCapSet):  Example: {'maxGpus': 12}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | PoolCapChanged]
     """


    kwargs = _get_kwargs(
        pool_name=pool_name,
body=body,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    pool_name: str,
    *,
    client: AuthenticatedClient,
    body: PoolCapSet,

) -> ErrorBody | PoolCapChanged | None:
    """ Set or remove a pool's GPU cap (admin)

     Sets (or with `null` removes) an existing pool's GPU cap as `gpuctl apply -f pool.yaml` with a new
    `max-gpus` does: the pool's record, and where Kueue is installed its ClusterQueue's GPU quota,
    change in place; its nodes, their labels and taints, its allowed GPU types and isolation stay as
    they are. Answers the pool as GET /pools/{poolName} does, with what was written in `message`. A cap
    below the GPUs in use stops no running job: new jobs wait (Kueue) or are refused. Admin only.

    Args:
        pool_name (str):
        body (PoolCapSet):  Example: {'maxGpus': 12}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | PoolCapChanged
     """


    return (await asyncio_detailed(
        pool_name=pool_name,
client=client,
body=body,

    )).parsed
