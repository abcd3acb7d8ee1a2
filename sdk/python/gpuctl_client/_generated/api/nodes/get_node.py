from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET, Unset
from ... import errors

from ...models.error_body import ErrorBody
from ...models.get_node_accept import GetNodeAccept
from ...models.node_detail import NodeDetail
from ...types import UNSET, Unset
from typing import cast



def _get_kwargs(
    node_name: str,
    *,
    accept: GetNodeAccept | Unset = UNSET,

) -> dict[str, Any]:
    

    

    params: dict[str, Any] = {}

    json_accept: str | Unset = UNSET
    if not isinstance(accept, Unset):
        json_accept = accept.value

    params["accept"] = json_accept


    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}


    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/nodes/{node_name}".format(node_name=quote(str(node_name), safe=""),),
        "params": params,
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorBody | NodeDetail:
    if response.status_code == 200:
        response_200 = NodeDetail.from_dict(response.json())



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



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorBody | NodeDetail]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    node_name: str,
    *,
    client: AuthenticatedClient,
    accept: GetNodeAccept | Unset = UNSET,

) -> Response[ErrorBody | NodeDetail]:
    """ One node: resources, labels, pools, pods

     One node: its resources, labels, pools and pods (a user sees other users' pods only as counts); YAML
    with `Accept: application/yaml` (or `?accept=application/yaml`).

    Args:
        node_name (str):
        accept (GetNodeAccept | Unset): the answer's media type, as the Accept header would ask
            for it

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | NodeDetail]
     """


    kwargs = _get_kwargs(
        node_name=node_name,
accept=accept,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    node_name: str,
    *,
    client: AuthenticatedClient,
    accept: GetNodeAccept | Unset = UNSET,

) -> ErrorBody | NodeDetail | None:
    """ One node: resources, labels, pools, pods

     One node: its resources, labels, pools and pods (a user sees other users' pods only as counts); YAML
    with `Accept: application/yaml` (or `?accept=application/yaml`).

    Args:
        node_name (str):
        accept (GetNodeAccept | Unset): the answer's media type, as the Accept header would ask
            for it

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | NodeDetail
     """


    return sync_detailed(
        node_name=node_name,
client=client,
accept=accept,

    ).parsed

async def asyncio_detailed(
    node_name: str,
    *,
    client: AuthenticatedClient,
    accept: GetNodeAccept | Unset = UNSET,

) -> Response[ErrorBody | NodeDetail]:
    """ One node: resources, labels, pools, pods

     One node: its resources, labels, pools and pods (a user sees other users' pods only as counts); YAML
    with `Accept: application/yaml` (or `?accept=application/yaml`).

    Args:
        node_name (str):
        accept (GetNodeAccept | Unset): the answer's media type, as the Accept header would ask
            for it

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | NodeDetail]
     """


    kwargs = _get_kwargs(
        node_name=node_name,
accept=accept,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    node_name: str,
    *,
    client: AuthenticatedClient,
    accept: GetNodeAccept | Unset = UNSET,

) -> ErrorBody | NodeDetail | None:
    """ One node: resources, labels, pools, pods

     One node: its resources, labels, pools and pods (a user sees other users' pods only as counts); YAML
    with `Accept: application/yaml` (or `?accept=application/yaml`).

    Args:
        node_name (str):
        accept (GetNodeAccept | Unset): the answer's media type, as the Accept header would ask
            for it

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | NodeDetail
     """


    return (await asyncio_detailed(
        node_name=node_name,
client=client,
accept=accept,

    )).parsed
