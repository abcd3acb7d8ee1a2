from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.node_failure import NodeFailure





T = TypeVar("T", bound="LabelBatch")



@_attrs_define
class LabelBatch:
    """ 
        Example:
            {'failed': [{'error': 'NodeNotFound', 'message': 'node node-3 not found', 'nodeName': 'node-3'}], 'message':
                'some nodes failed: see `failed`', 'success': ['node-2']}

        Attributes:
            success (list[str]):
            failed (list[NodeFailure]):
            message (str):
     """

    success: list[str]
    failed: list[NodeFailure]
    message: str





    def to_dict(self) -> dict[str, Any]:
        from ..models.node_failure import NodeFailure # noqa: PLC0415
        success = self.success



        failed = []
        for failed_item_data in self.failed:
            failed_item = failed_item_data.to_dict()
            failed.append(failed_item)



        message = self.message


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "success": success,
            "failed": failed,
            "message": message,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.node_failure import NodeFailure # noqa: PLC0415
        d = dict(src_dict)
        success = cast(list[str], d.pop("success"))


        failed = []
        _failed = d.pop("failed")
        for failed_item_data in (_failed):
            failed_item = NodeFailure.from_dict(failed_item_data)



            failed.append(failed_item)


        message = d.pop("message")

        label_batch = cls(
            success=success,
            failed=failed,
            message=message,
        )

        return label_batch

