from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET, Unset
from ... import errors

from ...models.error_body import ErrorBody
from ...models.label_batch import LabelBatch
from ...models.label_batch_create import LabelBatchCreate
from typing import cast



def _get_kwargs(
    *,
    body: LabelBatchCreate,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/nodes/labels/batch",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorBody | LabelBatch:
    if response.status_code == 200:
        response_200 = LabelBatch.from_dict(response.json())



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



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorBody | LabelBatch]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: LabelBatchCreate,

) -> Response[ErrorBody | LabelBatch]:
    """ Set one label on several nodes, each on its own

     Sets one `g8s.host/` label on several nodes, each on its own: 200 with `success` and `failed` (each
    failure in the error shape). A refused key or value fails the whole request and nothing is written.

    Args:
        body (LabelBatchCreate):  Example: {'key': 'g8s.host/gpu-type', 'nodeNames': ['node-2',
            'node-3'], 'overwrite': True, 'value': 'a100-40g'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | LabelBatch]
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
    body: LabelBatchCreate,

) -> ErrorBody | LabelBatch | None:
    """ Set one label on several nodes, each on its own

     Sets one `g8s.host/` label on several nodes, each on its own: 200 with `success` and `failed` (each
    failure in the error shape). A refused key or value fails the whole request and nothing is written.

    Args:
        body (LabelBatchCreate):  Example: {'key': 'g8s.host/gpu-type', 'nodeNames': ['node-2',
            'node-3'], 'overwrite': True, 'value': 'a100-40g'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | LabelBatch
     """


    return sync_detailed(
        client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: LabelBatchCreate,

) -> Response[ErrorBody | LabelBatch]:
    """ Set one label on several nodes, each on its own

     Sets one `g8s.host/` label on several nodes, each on its own: 200 with `success` and `failed` (each
    failure in the error shape). A refused key or value fails the whole request and nothing is written.

    Args:
        body (LabelBatchCreate):  Example: {'key': 'g8s.host/gpu-type', 'nodeNames': ['node-2',
            'node-3'], 'overwrite': True, 'value': 'a100-40g'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | LabelBatch]
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
    body: LabelBatchCreate,

) -> ErrorBody | LabelBatch | None:
    """ Set one label on several nodes, each on its own

     Sets one `g8s.host/` label on several nodes, each on its own: 200 with `success` and `failed` (each
    failure in the error shape). A refused key or value fails the whole request and nothing is written.

    Args:
        body (LabelBatchCreate):  Example: {'key': 'g8s.host/gpu-type', 'nodeNames': ['node-2',
            'node-3'], 'overwrite': True, 'value': 'a100-40g'}.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | LabelBatch
     """


    return (await asyncio_detailed(
        client=client,
body=body,

    )).parsed
