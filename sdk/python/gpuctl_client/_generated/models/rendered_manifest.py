from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="RenderedManifest")



@_attrs_define
class RenderedManifest:
    """ 
        Attributes:
            kind (str):
            name (str):
            namespace (None | str):
            yaml (str): the object as rendered, in YAML
     """

    kind: str
    name: str
    namespace: None | str
    yaml: str





    def to_dict(self) -> dict[str, Any]:
        kind = self.kind

        name = self.name

        namespace: None | str
        namespace = self.namespace

        yaml = self.yaml


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "kind": kind,
            "name": name,
            "namespace": namespace,
            "yaml": yaml,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        kind = d.pop("kind")

        name = d.pop("name")

        def _parse_namespace(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        namespace = _parse_namespace(d.pop("namespace"))


        yaml = d.pop("yaml")

        rendered_manifest = cls(
            kind=kind,
            name=name,
            namespace=namespace,
            yaml=yaml,
        )

        return rendered_manifest

