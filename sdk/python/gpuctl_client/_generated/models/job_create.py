from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="JobCreate")



@_attrs_define
class JobCreate:
    """ 
        Example:
            {'yamlContent': 'kind: training\\nversion: v0.1\\njob:\\n  name: qwen2-7b-sft\\n  priority:
                medium\\nenvironment:\\n  image: registry.example.com/llama-factory:0.8.0\\n  command: ["llamafactory-cli",
                "train"]\\nresources:\\n  pool: training-pool\\n  gpu: 4\\n  gpu-type: a100-80g\\n  cpu: 32\\n  memory:
                128Gi\\n'}

        Attributes:
            yaml_content (str): a job spec, as in a YAML file
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

        job_create = cls(
            yaml_content=yaml_content,
        )

        return job_create

