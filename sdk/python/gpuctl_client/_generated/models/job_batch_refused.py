from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.item_failure import ItemFailure
  from ..models.job_made import JobMade





T = TypeVar("T", bound="JobBatchRefused")



@_attrs_define
class JobBatchRefused:
    """ A batch none of whose items was created (422). When the request itself was refused
    before any item was tried (an Idempotency-Key sent before with another body), every item
    failed with that error, and `error`, `message` and `field` give it as the error shape.

        Example:
            {'error': 'IdempotencyKeyReused', 'failed': [{'error': 'IdempotencyKeyReused', 'field': 'Idempotency-Key',
                'index': 0, 'message': "Idempotency-Key 'batch-7' was used for another request (it made job alice.task1); send a
                new key for a new job: nothing was created"}], 'field': 'Idempotency-Key', 'message': "Idempotency-Key 'batch-7'
                was used for another request (it made job alice.task1); send a new key for a new job: nothing was created",
                'success': []}

        Attributes:
            success (list[JobMade]):
            failed (list[ItemFailure]):
            error (None | str | Unset):
            message (None | str | Unset):
            field (None | str | Unset):
     """

    success: list[JobMade]
    failed: list[ItemFailure]
    error: None | str | Unset = UNSET
    message: None | str | Unset = UNSET
    field: None | str | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.item_failure import ItemFailure # noqa: PLC0415
        from ..models.job_made import JobMade # noqa: PLC0415
        success = []
        for success_item_data in self.success:
            success_item = success_item_data.to_dict()
            success.append(success_item)



        failed = []
        for failed_item_data in self.failed:
            failed_item = failed_item_data.to_dict()
            failed.append(failed_item)



        error: None | str | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        else:
            error = self.error

        message: None | str | Unset
        if isinstance(self.message, Unset):
            message = UNSET
        else:
            message = self.message

        field: None | str | Unset
        if isinstance(self.field, Unset):
            field = UNSET
        else:
            field = self.field


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "success": success,
            "failed": failed,
        })
        if error is not UNSET:
            field_dict["error"] = error
        if message is not UNSET:
            field_dict["message"] = message
        if field is not UNSET:
            field_dict["field"] = field

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.item_failure import ItemFailure # noqa: PLC0415
        from ..models.job_made import JobMade # noqa: PLC0415
        d = dict(src_dict)
        success = []
        _success = d.pop("success")
        for success_item_data in (_success):
            success_item = JobMade.from_dict(success_item_data)



            success.append(success_item)


        failed = []
        _failed = d.pop("failed")
        for failed_item_data in (_failed):
            failed_item = ItemFailure.from_dict(failed_item_data)



            failed.append(failed_item)


        def _parse_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        error = _parse_error(d.pop("error", UNSET))


        def _parse_message(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        message = _parse_message(d.pop("message", UNSET))


        def _parse_field(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        field = _parse_field(d.pop("field", UNSET))


        job_batch_refused = cls(
            success=success,
            failed=failed,
            error=error,
            message=message,
            field=field,
        )

        return job_batch_refused

