"""Training on real pods: the script checks from inside its container what gpuctl promised (the
environment, /dev/shm, the DeepSpeed base config, the workdirs) and exits 0; get, logs and
logs -f tell its story."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path
from threading import Thread
from typing import Any

import pytest
import yaml

from tests.conftest import GPUCTL
from tests.kube import images, nodes
from tests.realpods.conftest import gpuctl
from tests.support.sandbox import Cluster, wait_for

pytestmark = pytest.mark.realpods

CHECKS = """
import json, os, sys, time
args = sys.argv[1:]
path = args[args.index("--deepspeed") + 1]
with open(path) as config:
    stage = json.load(config)["zero_optimization"]["stage"]
print(f"deepspeed config {path}: ZeRO stage {stage}", flush=True)
print(f"env TRAIN_NOTE={os.environ['TRAIN_NOTE']}", flush=True)
shm = os.statvfs("/dev/shm")
print(f"/dev/shm {shm.f_blocks * shm.f_frsize // 2**20} MiB", flush=True)
source, output = os.environ["INPUT_FILE"], os.environ["OUTPUT_DIR"]
print(f"{source} is a file: {os.path.isfile(source)}; {output} is a directory: "
      f"{os.path.isdir(output)}", flush=True)
with open(source) as given, open(os.path.join(output, "result.txt"), "w") as result:
    result.write(given.read().upper())
for step in range(1, 4):
    time.sleep(2)
    print(f"step {step}/3", flush=True)
print("training done", flush=True)
"""


def training_spec(name: str, command: list[str], **resources: Any) -> dict[str, Any]:
    """A training spec on the real nodes' pool, running `command` in the Python image."""
    return {
        "kind": "training",
        "version": "v0.1",
        "job": {"name": name, "priority": "medium"},
        "environment": {"image": images.PYTHON, "command": command},
        "resources": {"pool": nodes.POOL, "gpu": 1, "cpu": "500m", "memory": "512Mi", **resources},
    }


def job_status(cluster: Cluster, name: str) -> str:
    """The STATUS column of `get jobs` for `name` ("" while it is not listed)."""
    rows = [line.split() for line in gpuctl(cluster, "get", "jobs").stdout.splitlines()]
    if not rows or "STATUS" not in rows[0]:
        return ""
    row = next((row for row in rows[1:] if row[:1] == [name]), [])
    column = rows[0].index("STATUS")
    return row[column] if len(row) > column else ""


def rendered_shm_size(spec: dict[str, Any]) -> str:
    """The size `gpuctl render` gives the job's memory-backed /dev/shm, as the script prints it
    ("256Mi" -> "256 MiB")."""
    rendered = subprocess.run(
        [str(GPUCTL), "render", "-f", "-"], input=yaml.safe_dump(spec), capture_output=True,
        text=True, timeout=60, check=False,
    )  # fmt: skip
    assert rendered.returncode == 0, rendered.stderr
    job = next(o for o in yaml.safe_load_all(rendered.stdout) if o and o["kind"] == "Job")
    volumes = job["spec"]["template"]["spec"]["volumes"]
    size = next(v["emptyDir"]["sizeLimit"] for v in volumes if v["name"] == "dshm")
    assert str(size).endswith("Mi"), size
    return f"{str(size).removesuffix('Mi')} MiB"


def lines_as_they_come(process: subprocess.Popen[str]) -> tuple[list[tuple[float, str]], Thread]:
    """Each line of the process's stdout with the moment it arrived, collected by a thread of
    its own (join it) until the stream ends."""
    assert process.stdout is not None
    stdout = process.stdout
    arrived: list[tuple[float, str]] = []

    def read() -> None:
        arrived.extend((time.monotonic(), line.rstrip("\n")) for line in stdout)

    reader = Thread(target=read, daemon=True)
    reader.start()
    return arrived, reader


def test_the_training_script_finds_what_gpuctl_promised(real_pods: Cluster, tmp_path: Path) -> None:
    work = tmp_path / "work"
    (work / "out").mkdir(parents=True)
    (work / "input.json").write_text('{"text": "tokens"}\n')
    spec = training_spec("check", ["python3", "-c", CHECKS, "--deepspeed", "ds_config.json"])
    spec["environment"]["env"] = [
        {"name": "TRAIN_NOTE", "value": "from the spec"},
        {"name": "INPUT_FILE", "value": str(work / "input.json")},
        {"name": "OUTPUT_DIR", "value": str(work / "out")},
    ]
    spec["storage"] = {
        "workdirs": [{"path": str(work / "input.json")}, {"path": str(work / "out")}]
    }
    shm = rendered_shm_size(spec)
    created = gpuctl(real_pods, "create", "-f", "-", stdin=yaml.safe_dump(spec))
    assert created.returncode == 0, created.stderr
    follow = subprocess.Popen(
        [str(GPUCTL), "logs", "check", "-f", "--kubeconfig", str(real_pods.kubeconfig),
         "-n", real_pods.namespace],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    arrived, reader = lines_as_they_come(follow)
    try:
        wait_for(
            lambda: job_status(real_pods, "check") in ("Succeeded", "Failed"), 180, 1, "the job"
        )
        follow.wait(timeout=60)  # it ends by itself with the pod
        reader.join(timeout=10)
    finally:
        follow.kill()
    errors = follow.stderr.read() if follow.stderr else ""
    followed = [line for _, line in arrived]
    expected = [
        "deepspeed config /etc/gpuctl/deepspeed/ds_config.json: ZeRO stage 2",
        "env TRAIN_NOTE=from the spec",
        f"/dev/shm {shm}",
        f"{work / 'input.json'} is a file: True; {work / 'out'} is a directory: True",
        "step 1/3",
        "step 2/3",
        "step 3/3",
        "training done",
    ]
    logs = gpuctl(real_pods, "logs", "check")
    assert logs.stdout.splitlines() == expected, logs.stdout + logs.stderr
    assert job_status(real_pods, "check") == "Succeeded"
    assert followed == expected, errors
    assert follow.returncode == 0
    # followed as printed: the three steps come 2 s apart, so the last line arrives well after
    # the first (a read at the end would bring them all at once)
    assert arrived[-1][0] - arrived[0][0] > 3, arrived
    assert (work / "out" / "result.txt").read_text() == '{"TEXT": "TOKENS"}\n'


def test_logs_since_and_tail_read_the_real_log(real_pods: Cluster) -> None:
    """Five lines, half a minute of silence, one more: --since 15s is the last line alone."""
    ticks = "import time\nfor i in range(1, 6): print(f'tick {i}', flush=True)\n"
    ticks += "time.sleep(30)\nprint('late line', flush=True)\ntime.sleep(600)\n"
    spec = training_spec("ticks", ["python3", "-c", ticks])
    created = gpuctl(real_pods, "create", "-f", "-", stdin=yaml.safe_dump(spec))
    assert created.returncode == 0, created.stderr
    wait_for(lambda: "late line" in gpuctl(real_pods, "logs", "ticks").stdout, 180, 0.5, "the log")
    since = gpuctl(real_pods, "logs", "ticks", "--since", "15s").stdout.splitlines()
    assert since == ["late line"]
    tail = gpuctl(real_pods, "logs", "ticks", "--tail", "2").stdout.splitlines()
    assert tail == ["tick 5", "late line"]
    everything = gpuctl(real_pods, "logs", "ticks", "--since", "1h").stdout.splitlines()
    assert everything == [*(f"tick {i}" for i in range(1, 6)), "late line"]
