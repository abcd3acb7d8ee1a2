from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET, Unset
from ... import errors

from ...models.error_body import ErrorBody
from ...models.label_values import LabelValues
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    *,
    key: str,
    page: int | Unset = 1,
    page_size: int | Unset = 20,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    params["key"] = key

    params["page"] = page

    params["pageSize"] = page_size


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/nodes/labels",
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorBody | LabelValues:
    if response.status_code == 200:
        response_200 = LabelValues.from_dict(response.json())



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



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorBody | LabelValues]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    key: str,
    page: int | Unset = 1,
    page_size: int | Unset = 20,

) -> Response[ErrorBody | LabelValues]:
    """ One label key on every node that has it

     The value of one label key on every node that has it.

    Args:
        key (str): e.g. g8s.host/gpu-type
        page (int | Unset): 1-based page number Default: 1.
        page_size (int | Unset): items a page Default: 20.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | LabelValues]
     """


    kwargs = _get_kwargs(
        key=key,
page=page,
page_size=page_size,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient,
    key: str,
    page: int | Unset = 1,
    page_size: int | Unset = 20,

) -> ErrorBody | LabelValues | None:
    """ One label key on every node that has it

     The value of one label key on every node that has it.

    Args:
        key (str): e.g. g8s.host/gpu-type
        page (int | Unset): 1-based page number Default: 1.
        page_size (int | Unset): items a page Default: 20.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | LabelValues
     """


    return sync_detailed(
        client=client,
key=key,
page=page,
page_size=page_size,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    key: str,
    page: int | Unset = 1,
    page_size: int | Unset = 20,

) -> Response[ErrorBody | LabelValues]:
    """ One label key on every node that has it

     The value of one label key on every node that has it.

    Args:
        key (str): e.g. g8s.host/gpu-type
        page (int | Unset): 1-based page number Default: 1.
        page_size (int | Unset): items a page Default: 20.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | LabelValues]
     """


    kwargs = _get_kwargs(
        key=key,
page=page,
page_size=page_size,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient,
    key: str,
    page: int | Unset = 1,
    page_size: int | Unset = 20,

) -> ErrorBody | LabelValues | None:
    """ One label key on every node that has it

     The value of one label key on every node that has it.

    Args:
        key (str): e.g. g8s.host/gpu-type
        page (int | Unset): 1-based page number Default: 1.
        page_size (int | Unset): items a page Default: 20.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | LabelValues
     """


    return (await asyncio_detailed(
        client=client,
key=key,
page=page,
page_size=page_size,

    )).parsed
