"""User-written text never reaches a terminal raw: `describe job` and `get jobs` show a
description's or an image's control characters escaped (a window-title sequence, a screen
clear, colours), while gpuctl's own colours still print."""

from __future__ import annotations

from typing import Any

import pytest

from gpuctl import terminal
from gpuctl.cli import table
from tests.conftest import Env

HOSTILE = "\x1b]0;pwned\x07\x1b[2J\x1b[31mred\x1b[0m"
SHOWN = "\\x1b]0;pwned\\x07\\x1b[2J\\x1b[31mred\\x1b[0m"

SPEC = """kind: compute
version: v0.1
job:
  name: web
  description: "\\e]0;pwned\\a\\e[2J\\e[31mred\\e[0m"
environment:
  image: nginx
resources:
  cpu: 1
  memory: 1Gi
"""


@pytest.mark.parametrize(
    ("text", "multiline", "expected"),
    [
        (HOSTILE, False, SHOWN),
        ("tab\there\r\nnext", False, "tab\\there\\r\\nnext"),
        ("one\ntwo\r", True, "one\ntwo\\r"),
        ("\x7f\x9b2J \u202egnp.exe", False, "\\x7f\\x9b2J \\u202egnp.exe"),
        ("训练任务 ok", False, "训练任务 ok"),
    ],
)
def test_control_characters_are_shown_escaped(text: str, multiline: bool, expected: str) -> None:
    assert terminal.shown(text, multiline=multiline) == expected


def test_the_table_printer_escapes_cells_but_keeps_its_own_colour() -> None:
    painted = table.paint("Running", "green", True)
    printed = table.table(["NAME", "STATUS"], [[HOSTILE, painted]])
    assert SHOWN in printed
    assert "\x1b[32mRunning\x1b[0m" in printed
    assert printed.count("\x1b") == 2  # the green and its reset: nothing of the user's


def test_describe_job_shows_a_hostile_description_escaped(env: Env) -> None:
    created = env.gpuctl("create", "-f", "-", stdin=SPEC)
    assert created.returncode == 0, created.stderr
    described = env.gpuctl("describe", "job", "web")
    assert described.returncode == 0, described.stderr
    assert f"Description: {SHOWN}\n" in described.stdout
    assert "\x1b" not in described.stdout and "\x07" not in described.stdout


def _deployment(image: str) -> dict[str, Any]:
    labels = {
        "app": "imported",
        "app.kubernetes.io/managed-by": "gpuctl",
        "runwhere.ai/job-type": "compute",
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "imported", "namespace": "default", "labels": labels},
        "spec": {
            "replicas": 0,
            "selector": {"matchLabels": {"app": "imported"}},
            "template": {
                "metadata": {"labels": {"app": "imported"}},
                "spec": {"containers": [{"name": "main", "image": image}]},
            },
        },
    }


def test_get_jobs_shows_a_hostile_image_escaped(env: Env) -> None:
    """An image written by other means than gpuctl (the API server takes any text without
    spaces) is shown escaped in the wide table, on a terminal too."""
    env.cluster.create(_deployment("nginx" + HOSTILE))
    listed = env.gpuctl("get", "jobs", "-o", "wide")
    assert listed.returncode == 0, listed.stderr
    assert "nginx" + SHOWN in listed.stdout
    assert "\x1b" not in listed.stdout
    on_terminal = env.gpuctl_on_terminal("get", "jobs", "-o", "wide")
    assert "nginx" + SHOWN in on_terminal
    assert "\x1b[2J" not in on_terminal and "\x1b]0;" not in on_terminal
