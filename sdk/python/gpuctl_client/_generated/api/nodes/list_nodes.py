from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET, Unset
from ... import errors

from ...models.error_body import ErrorBody
from ...models.list_nodes_accept import ListNodesAccept
from ...models.list_nodes_status import ListNodesStatus
from ...models.node_list import NodeList
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    *,
    pool: str | Unset = UNSET,
    gpu_type: str | Unset = UNSET,
    status: ListNodesStatus | Unset = UNSET,
    page: int | Unset = 1,
    page_size: int | Unset = 20,
    accept: ListNodesAccept | Unset = UNSET,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    params["pool"] = pool

    params["gpuType"] = gpu_type

    json_status: str | Unset = UNSET
    if not isinstance(status, Unset):
        json_status = status.value

    params["status"] = json_status

    params["page"] = page

    params["pageSize"] = page_size

    json_accept: str | Unset = UNSET
    if not isinstance(accept, Unset):
        json_accept = accept.value

    params["accept"] = json_accept


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/nodes",
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorBody | NodeList:
    if response.status_code == 200:
        response_200 = NodeList.from_dict(response.json())



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



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorBody | NodeList]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    pool: str | Unset = UNSET,
    gpu_type: str | Unset = UNSET,
    status: ListNodesStatus | Unset = UNSET,
    page: int | Unset = 1,
    page_size: int | Unset = 20,
    accept: ListNodesAccept | Unset = UNSET,

) -> Response[ErrorBody | NodeList]:
    """ List nodes with their GPUs (Accept: application/yaml for YAML)

     One page of the nodes with their GPUs, filtered by pool, GPU model and status; YAML with `Accept:
    application/yaml` (or `?accept=application/yaml`).

    Args:
        pool (str | Unset): a label value
        gpu_type (str | Unset):
        status (ListNodesStatus | Unset): only nodes in this status
        page (int | Unset): 1-based page number Default: 1.
        page_size (int | Unset): items a page Default: 20.
        accept (ListNodesAccept | Unset): the answer's media type, as the Accept header would ask
            for it

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | NodeList]
     """


    kwargs = _get_kwargs(
        pool=pool,
gpu_type=gpu_type,
status=status,
page=page,
page_size=page_size,
accept=accept,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient,
    pool: str | Unset = UNSET,
    gpu_type: str | Unset = UNSET,
    status: ListNodesStatus | Unset = UNSET,
    page: int | Unset = 1,
    page_size: int | Unset = 20,
    accept: ListNodesAccept | Unset = UNSET,

) -> ErrorBody | NodeList | None:
    """ List nodes with their GPUs (Accept: application/yaml for YAML)

     One page of the nodes with their GPUs, filtered by pool, GPU model and status; YAML with `Accept:
    application/yaml` (or `?accept=application/yaml`).

    Args:
        pool (str | Unset): a label value
        gpu_type (str | Unset):
        status (ListNodesStatus | Unset): only nodes in this status
        page (int | Unset): 1-based page number Default: 1.
        page_size (int | Unset): items a page Default: 20.
        accept (ListNodesAccept | Unset): the answer's media type, as the Accept header would ask
            for it

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | NodeList
     """


    return sync_detailed(
        client=client,
pool=pool,
gpu_type=gpu_type,
status=status,
page=page,
page_size=page_size,
accept=accept,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    pool: str | Unset = UNSET,
    gpu_type: str | Unset = UNSET,
    status: ListNodesStatus | Unset = UNSET,
    page: int | Unset = 1,
    page_size: int | Unset = 20,
    accept: ListNodesAccept | Unset = UNSET,

) -> Response[ErrorBody | NodeList]:
    """ List nodes with their GPUs (Accept: application/yaml for YAML)

     One page of the nodes with their GPUs, filtered by pool, GPU model and status; YAML with `Accept:
    application/yaml` (or `?accept=application/yaml`).

    Args:
        pool (str | Unset): a label value
        gpu_type (str | Unset):
        status (ListNodesStatus | Unset): only nodes in this status
        page (int | Unset): 1-based page number Default: 1.
        page_size (int | Unset): items a page Default: 20.
        accept (ListNodesAccept | Unset): the answer's media type, as the Accept header would ask
            for it

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | NodeList]
     """


    kwargs = _get_kwargs(
        pool=pool,
gpu_type=gpu_type,
status=status,
page=page,
page_size=page_size,
accept=accept,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient,
    pool: str | Unset = UNSET,
    gpu_type: str | Unset = UNSET,
    status: ListNodesStatus | Unset = UNSET,
    page: int | Unset = 1,
    page_size: int | Unset = 20,
    accept: ListNodesAccept | Unset = UNSET,

) -> ErrorBody | NodeList | None:
    """ List nodes with their GPUs (Accept: application/yaml for YAML)

     One page of the nodes with their GPUs, filtered by pool, GPU model and status; YAML with `Accept:
    application/yaml` (or `?accept=application/yaml`).

    Args:
        pool (str | Unset): a label value
        gpu_type (str | Unset):
        status (ListNodesStatus | Unset): only nodes in this status
        page (int | Unset): 1-based page number Default: 1.
        page_size (int | Unset): items a page Default: 20.
        accept (ListNodesAccept | Unset): the answer's media type, as the Accept header would ask
            for it

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | NodeList
     """


    return (await asyncio_detailed(
        client=client,
pool=pool,
gpu_type=gpu_type,
status=status,
page=page,
page_size=page_size,
accept=accept,

    )).parsed
