from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET, Unset
from ... import errors

from ...models.error_body import ErrorBody
from ...models.quota_list import QuotaList
from typing import cast



def _get_kwargs(
    user_name: str,

) -> dict[str, Any]:
    

    

    

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/quotas/{user_name}".format(user_name=quote(str(user_name), safe=""),),
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorBody | QuotaList:
    if response.status_code == 200:
        response_200 = QuotaList.from_dict(response.json())



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



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorBody | QuotaList]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    user_name: str,
    *,
    client: AuthenticatedClient,

) -> Response[ErrorBody | QuotaList]:
    """ One user's quota: used/hard and percent

     One user's quotas: used, hard and percent for each resource.

    Args:
        user_name (str): = namespace

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | QuotaList]
     """


    kwargs = _get_kwargs(
        user_name=user_name,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    user_name: str,
    *,
    client: AuthenticatedClient,

) -> ErrorBody | QuotaList | None:
    """ One user's quota: used/hard and percent

     One user's quotas: used, hard and percent for each resource.

    Args:
        user_name (str): = namespace

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | QuotaList
     """


    return sync_detailed(
        user_name=user_name,
client=client,

    ).parsed

async def asyncio_detailed(
    user_name: str,
    *,
    client: AuthenticatedClient,

) -> Response[ErrorBody | QuotaList]:
    """ One user's quota: used/hard and percent

     One user's quotas: used, hard and percent for each resource.

    Args:
        user_name (str): = namespace

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | QuotaList]
     """


    kwargs = _get_kwargs(
        user_name=user_name,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    user_name: str,
    *,
    client: AuthenticatedClient,

) -> ErrorBody | QuotaList | None:
    """ One user's quota: used/hard and percent

     One user's quotas: used, hard and percent for each resource.

    Args:
        user_name (str): = namespace

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | QuotaList
     """


    return (await asyncio_detailed(
        user_name=user_name,
client=client,

    )).parsed
