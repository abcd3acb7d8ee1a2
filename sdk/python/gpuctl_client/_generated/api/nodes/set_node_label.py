from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET, Unset
from ... import errors

from ...models.error_body import ErrorBody
from ...models.label_create import LabelCreate
from ...models.label_set import LabelSet
from typing import cast



def _get_kwargs(
    node_name: str,
    *,
    body: LabelCreate,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/nodes/{node_name}/labels".format(node_name=quote(str(node_name), safe=""),),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorBody | LabelSet:
    if response.status_code == 200:
        response_200 = LabelSet.from_dict(response.json())



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



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorBody | LabelSet]:
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
    body: LabelCreate,

) -> Response[ErrorBody | LabelSet]:
    """ Set a g8s.host/ label on a node

     Sets a `g8s.host/` label on a node; a label the node has with another value is 409 `LabelConflict`
    unless `overwrite` is true.

    Args:
        node_name (str):
        body (LabelCreate):  Example: {'key': 'g8s.host/gpu-type', 'overwrite': False, 'value':
            'a100-80g'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | LabelSet]
     """


    kwargs = _get_kwargs(
        node_name=node_name,
body=body,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    node_name: str,
    *,
    client: AuthenticatedClient,
    body: LabelCreate,

) -> ErrorBody | LabelSet | None:
    """ Set a g8s.host/ label on a node

     Sets a `g8s.host/` label on a node; a label the node has with another value is 409 `LabelConflict`
    unless `overwrite` is true.

    Args:
        node_name (str):
        body (LabelCreate):  Example: {'key': 'g8s.host/gpu-type', 'overwrite': False, 'value':
            'a100-80g'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | LabelSet
     """


    return sync_detailed(
        node_name=node_name,
client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    node_name: str,
    *,
    client: AuthenticatedClient,
    body: LabelCreate,

) -> Response[ErrorBody | LabelSet]:
    """ Set a g8s.host/ label on a node

     Sets a `g8s.host/` label on a node; a label the node has with another value is 409 `LabelConflict`
    unless `overwrite` is true.

    Args:
        node_name (str):
        body (LabelCreate):  Example: {'key': 'g8s.host/gpu-type', 'overwrite': False, 'value':
            'a100-80g'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | LabelSet]
     """


    kwargs = _get_kwargs(
        node_name=node_name,
body=body,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    node_name: str,
    *,
    client: AuthenticatedClient,
    body: LabelCreate,

) -> ErrorBody | LabelSet | None:
    """ Set a g8s.host/ label on a node

     Sets a `g8s.host/` label on a node; a label the node has with another value is 409 `LabelConflict`
    unless `overwrite` is true.

    Args:
        node_name (str):
        body (LabelCreate):  Example: {'key': 'g8s.host/gpu-type', 'overwrite': False, 'value':
            'a100-80g'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | LabelSet
     """


    return (await asyncio_detailed(
        node_name=node_name,
client=client,
body=body,

    )).parsed
