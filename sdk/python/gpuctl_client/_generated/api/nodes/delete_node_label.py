from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET, Unset
from ... import errors

from ...models.error_body import ErrorBody
from ...models.label_deleted import LabelDeleted
from typing import cast



def _get_kwargs(
    node_name: str,
    key: str,

) -> dict[str, Any]:
    

    

    

    _kwargs: dict[str, Any] = {
        "method": "delete",
        "url": "/api/v1/nodes/{node_name}/labels/{key}".format(node_name=quote(str(node_name), safe=""),key=quote(str(key), safe=""),),
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorBody | LabelDeleted:
    if response.status_code == 200:
        response_200 = LabelDeleted.from_dict(response.json())



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



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorBody | LabelDeleted]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    node_name: str,
    key: str,
    *,
    client: AuthenticatedClient,

) -> Response[ErrorBody | LabelDeleted]:
    """ Remove a g8s.host/ label

     Removes a `g8s.host/` label from a node.

    Args:
        node_name (str):
        key (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | LabelDeleted]
     """


    kwargs = _get_kwargs(
        node_name=node_name,
key=key,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    node_name: str,
    key: str,
    *,
    client: AuthenticatedClient,

) -> ErrorBody | LabelDeleted | None:
    """ Remove a g8s.host/ label

     Removes a `g8s.host/` label from a node.

    Args:
        node_name (str):
        key (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | LabelDeleted
     """


    return sync_detailed(
        node_name=node_name,
key=key,
client=client,

    ).parsed

async def asyncio_detailed(
    node_name: str,
    key: str,
    *,
    client: AuthenticatedClient,

) -> Response[ErrorBody | LabelDeleted]:
    """ Remove a g8s.host/ label

     Removes a `g8s.host/` label from a node.

    Args:
        node_name (str):
        key (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | LabelDeleted]
     """


    kwargs = _get_kwargs(
        node_name=node_name,
key=key,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    node_name: str,
    key: str,
    *,
    client: AuthenticatedClient,

) -> ErrorBody | LabelDeleted | None:
    """ Remove a g8s.host/ label

     Removes a `g8s.host/` label from a node.

    Args:
        node_name (str):
        key (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | LabelDeleted
     """


    return (await asyncio_detailed(
        node_name=node_name,
key=key,
client=client,

    )).parsed
