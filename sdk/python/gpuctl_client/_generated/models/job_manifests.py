from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.rendered_manifest import RenderedManifest





T = TypeVar("T", bound="JobManifests")



@_attrs_define
class JobManifests:
    """ 
        Example:
            {'jobId': 'alice.qwen2-7b-sft', 'manifests': [{'kind': 'Job', 'name': 'qwen2-7b-sft', 'namespace': 'alice',
                'yaml': 'apiVersion: batch/v1\\nkind: Job\\n...'}], 'message': ''}

        Attributes:
            job_id (str):
            manifests (list[RenderedManifest]):
            message (str):
     """

    job_id: str
    manifests: list[RenderedManifest]
    message: str





    def to_dict(self) -> dict[str, Any]:
        from ..models.rendered_manifest import RenderedManifest # noqa: PLC0415
        job_id = self.job_id

        manifests = []
        for manifests_item_data in self.manifests:
            manifests_item = manifests_item_data.to_dict()
            manifests.append(manifests_item)



        message = self.message


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "jobId": job_id,
            "manifests": manifests,
            "message": message,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.rendered_manifest import RenderedManifest # noqa: PLC0415
        d = dict(src_dict)
        job_id = d.pop("jobId")

        manifests = []
        _manifests = d.pop("manifests")
        for manifests_item_data in (_manifests):
            manifests_item = RenderedManifest.from_dict(manifests_item_data)



            manifests.append(manifests_item)


        message = d.pop("message")

        job_manifests = cls(
            job_id=job_id,
            manifests=manifests,
            message=message,
        )

        return job_manifests

