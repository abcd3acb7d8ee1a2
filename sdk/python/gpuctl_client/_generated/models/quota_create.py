from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="QuotaCreate")



@_attrs_define
class QuotaCreate:
    """ 
        Example:
            {'yamlContent': 'kind: quota\\nversion: v0.1\\nmetadata:\\n  name: team-quota\\nusers:\\n  alice:\\n    cpu:
                32\\n    memory: 128Gi\\n    gpu: 8\\n'}

        Attributes:
            yaml_content (str): a quota spec (kind: quota)
     """

    yaml_content: str





    def to_dict(self) -> dict[str, Any]:
        yaml_content = self.yaml_content


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "yamlContent": yaml_content,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        yaml_content = d.pop("yamlContent")

        quota_create = cls(
            yaml_content=yaml_content,
        )

        return quota_create

