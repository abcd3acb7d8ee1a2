"""The README's and the docs' command lines work as written: the README's first set-up command
(a background sandbox, every example applied, the jobs listed), and each example line that sends
`-f examples/…` to a cluster, in the order each page gives them."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import signal
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from gpuctl.sandbox import SandboxConfig
from tests.conftest import EXAMPLES, GPUCTL, REPO
from tests.core.test_readme import INSTALL, PAGES, setup_commands
from tests.support.sandbox import SandboxCluster

CLUSTER_VERBS = ("create", "apply", "diff", "delete")


def example_runs() -> list[list[list[str]]]:
    """Per bash block of the README and the docs pages, its `gpuctl VERB -f examples/…` lines as
    argument lists."""
    runs = []
    blocks = [b for text in PAGES.values() for b in re.findall(r"```bash\n(.*?)```", text, re.S)]
    for block in blocks:
        joined = block.replace("\\\n", " ")  # a line ending in a backslash goes on
        lines = [shlex.split(line, comments=True) for line in joined.splitlines()]
        wanted = [
            words
            for words in lines
            if words[:1] == ["gpuctl"]
            and words[1:2] != []
            and words[1] in CLUSTER_VERBS
            and any(word.startswith("examples/") for word in words)
        ]
        if wanted:
            runs.append(wanted)
    return runs


def test_the_readme_has_example_lines_for_each_cluster_verb() -> None:
    verbs = {words[1] for run in example_runs() for words in run}
    assert verbs == set(CLUSTER_VERBS)
    assert ["gpuctl", "apply", "-f", "examples/", "--dry-run=server"] in example_runs()[0]
    assert len(example_runs()) > 1  # the docs pages' examples too


@pytest.mark.parametrize("block", range(len(example_runs())))
def test_readme_example_lines_run_against_the_example_sandbox(
    make_sandbox: Callable[..., SandboxCluster], block: int
) -> None:
    nodes = SandboxConfig.load(EXAMPLES / "sandbox" / "cluster.yaml").nodes
    sandbox = make_sandbox(SandboxConfig.fast(nodes=nodes, job_run_seconds=3600))
    for words in example_runs()[block]:
        done = subprocess.run(
            [str(GPUCTL), *words[1:], "--kubeconfig", str(sandbox.kubeconfig)],
            capture_output=True,
            text=True,
            cwd=REPO,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, f"{shlex.join(words)}:\n{done.stdout}{done.stderr}"


@pytest.fixture
def home(tmp_path: Path) -> Iterator[dict[str, str]]:
    """An environment with its own HOME and sandbox directory; the sandbox is stopped after."""
    environ = {key: value for key, value in os.environ.items() if key != "KUBECONFIG"}
    environ.update(
        HOME=str(tmp_path),
        GPUCTL_SANDBOX_DIR=str(tmp_path / "sandbox"),
        GPUCTL_CACHE_DIR=str(tmp_path / "cache"),
        NO_COLOR="1",
    )
    yield environ
    subprocess.run([str(GPUCTL), "sandbox", "down"], env=environ, capture_output=True, check=False)
    state = tmp_path / "sandbox" / "state.json"
    if state.exists():  # `down` failed: do not leave a server behind
        with contextlib.suppress(ProcessLookupError, ValueError, KeyError):
            os.kill(int(json.loads(state.read_text())["pid"]), signal.SIGKILL)


def test_the_first_setup_command_runs_the_examples_on_a_sandbox(home: dict[str, str]) -> None:
    first = setup_commands()[0]
    assert first.startswith(INSTALL)  # the install itself is test_wheel's business
    steps = first.removeprefix(INSTALL).replace(".venv/bin/gpuctl", str(GPUCTL))
    done = subprocess.run(
        ["bash", "-c", steps],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=home,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "sandbox running at http://127.0.0.1:" in done.stderr
    assert "job.batch/qwen2-7b-llamafactory-sft created" in done.stdout
    lines = done.stdout.splitlines()
    header = next(index for index, line in enumerate(lines) if line.startswith("NAME "))
    assert lines[header].split() == ["NAME", "KIND", "POOL", "STATUS", "READY", "GPU", "AGE"]
    listed = [line.split()[0] for line in lines[header + 1 :]]
    assert listed == [
        "bert-finetune-binpack",
        "data-prep-notebook",
        "llama3-8b-inference",
        "llama3-8b-vllm-metrics",
        "qwen2-7b-chat",
        "qwen2-7b-full-ft",
        "qwen2-7b-inference-amd",
        "qwen2-7b-llamafactory-sft",
        "qwen2-7b-sft-ascend",
        "qwen2-7b-sft-metrics",
        "test-nginx",
    ]
