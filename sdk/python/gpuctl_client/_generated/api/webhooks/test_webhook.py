from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET, Unset
from ... import errors

from ...models.error_body import ErrorBody
from ...models.webhook_test_queued import WebhookTestQueued
from typing import cast



def _get_kwargs(
    webhook_id: str,

) -> dict[str, Any]:
    

    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/webhooks/{webhook_id}/test".format(webhook_id=quote(str(webhook_id), safe=""),),
    }


    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorBody | WebhookTestQueued:
    if response.status_code == 202:
        response_202 = WebhookTestQueued.from_dict(response.json())



        return response_202

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



def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorBody | WebhookTestQueued]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    webhook_id: str,
    *,
    client: AuthenticatedClient,

) -> Response[ErrorBody | WebhookTestQueued]:
    """ Send a signed webhook.test event to the subscription's URL

     Queued like any event (GET /webhooks/{webhookId} shows its delivery). At most 5 test
    events of one subscription at once, then 5 a minute: 429 TooManyRequests with
    Retry-After beyond.

    Args:
        webhook_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | WebhookTestQueued]
     """


    kwargs = _get_kwargs(
        webhook_id=webhook_id,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    webhook_id: str,
    *,
    client: AuthenticatedClient,

) -> ErrorBody | WebhookTestQueued | None:
    """ Send a signed webhook.test event to the subscription's URL

     Queued like any event (GET /webhooks/{webhookId} shows its delivery). At most 5 test
    events of one subscription at once, then 5 a minute: 429 TooManyRequests with
    Retry-After beyond.

    Args:
        webhook_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | WebhookTestQueued
     """


    return sync_detailed(
        webhook_id=webhook_id,
client=client,

    ).parsed

async def asyncio_detailed(
    webhook_id: str,
    *,
    client: AuthenticatedClient,

) -> Response[ErrorBody | WebhookTestQueued]:
    """ Send a signed webhook.test event to the subscription's URL

     Queued like any event (GET /webhooks/{webhookId} shows its delivery). At most 5 test
    events of one subscription at once, then 5 a minute: 429 TooManyRequests with
    Retry-After beyond.

    Args:
        webhook_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | WebhookTestQueued]
     """


    kwargs = _get_kwargs(
        webhook_id=webhook_id,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    webhook_id: str,
    *,
    client: AuthenticatedClient,

) -> ErrorBody | WebhookTestQueued | None:
    """ Send a signed webhook.test event to the subscription's URL

     Queued like any event (GET /webhooks/{webhookId} shows its delivery). At most 5 test
    events of one subscription at once, then 5 a minute: 429 TooManyRequests with
    Retry-After beyond.

    Args:
        webhook_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | WebhookTestQueued
     """


    return (await asyncio_detailed(
        webhook_id=webhook_id,
client=client,

    )).parsed
