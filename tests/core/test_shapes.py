"""The Kubernetes shapes gpuctl reads (gpuctl.shapes): a field read under a misspelt
name is a type error. mypy, run on two small modules that read a Job and a pod, passes the
one that spells the fields right and names each misspelt field of the other."""

from __future__ import annotations

import re
from pathlib import Path

from mypy import api

RIGHT = """
from gpuctl import shapes


def succeeded(obj: dict[str, object]) -> int:
    status: shapes.JobStatus = shapes.job(obj).get("status") or {}
    return status.get("succeeded", 0)


def node_name(obj: dict[str, object]) -> str:
    spec: shapes.PodSpec = shapes.pod(obj).get("spec") or {}
    return spec["nodeName"]
"""

MISSPELT = """
from gpuctl import shapes


def succeeded(obj: dict[str, object]) -> int:
    status: shapes.JobStatus = shapes.job(obj).get("status") or {}
    return status.get("succeded", 0)


def node_name(obj: dict[str, object]) -> str:
    spec: shapes.PodSpec = shapes.pod(obj).get("spec") or {}
    return spec["nodename"]


def ready(obj: dict[str, object]) -> int:
    status: shapes.StatefulSetStatus = shapes.stateful_set(obj).get("status") or {}
    return status.get("readyReplica", 0)
"""


def test_a_misspelt_field_of_a_shape_is_a_type_error(tmp_path: Path) -> None:
    (tmp_path / "right.py").write_text(RIGHT)
    (tmp_path / "misspelt.py").write_text(MISSPELT)
    out, err, _ = api.run(
        [
            "--strict",
            "--no-incremental",
            "--follow-imports=silent",
            "--show-error-codes",
            str(tmp_path / "right.py"),
            str(tmp_path / "misspelt.py"),
        ]
    )
    errors = re.findall(r"^(\S+?\.py):(\d+): error: (.*)$", out, re.MULTILINE)
    by_line: dict[tuple[str, int], list[str]] = {}
    for name, line, message in errors:
        by_line.setdefault((Path(name).name, int(line)), []).append(message)
    assert sorted(by_line) == [("misspelt.py", 7), ("misspelt.py", 12), ("misspelt.py", 17)], (
        out + err
    )
    # .get of a key the shape lacks gives `object`; [...] of one is refused outright
    assert 'got "object", expected "int"' in " ".join(by_line["misspelt.py", 7])
    assert 'TypedDict "PodSpec" has no key "nodename"' in " ".join(by_line["misspelt.py", 12])
    assert 'got "object", expected "int"' in " ".join(by_line["misspelt.py", 17])
