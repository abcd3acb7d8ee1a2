"""`gpuctl sandbox up|down|status`: run a sandbox in the background for people and scripts."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
import yaml

from gpuctl.sandbox.config import SandboxConfig
from gpuctl.spec import accelerators

# The node labels that name a GPU model: a pool's (runwhere.ai/) first, else the one people set
# with `gpuctl label node` (g8s.host/). gpuctl reads them in this order too.
GPU_TYPE_LABELS = ("runwhere.ai/gpu-type", "g8s.host/gpu-type")


def state_dir() -> Path:
    return Path(os.environ.get("GPUCTL_SANDBOX_DIR") or Path.home() / ".gpuctl" / "sandbox")


def _state() -> dict[str, object] | None:
    path = state_dir() / "state.json"
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text())
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/readyz", timeout=1) as response:
            return bool(response.status == 200)
    except OSError:
        return False


def _gpuctl_command() -> list[str]:
    """How to start this gpuctl again: the single-file binary is itself (it has no `python -m`);
    an installed gpuctl is its Python with `-m gpuctl`."""
    if getattr(sys, "frozen", False):
        return [sys.executable]
    return [sys.executable, "-m", "gpuctl"]


def _server_options(command: Callable[..., None]) -> Callable[..., None]:
    """--config, --port and --kubeconfig: the same for `up` and `run`."""
    for option in reversed(
        (
            click.option(
                "--config",
                "config_file",
                type=click.Path(exists=True, dir_okay=False),
                help="Nodes and timings (YAML).",
            ),
            click.option(
                "--port",
                type=int,
                default=0,
                show_default=True,
                help="Port on 127.0.0.1 (0: any free port).",
            ),
            click.option(
                "--kubeconfig",
                type=click.Path(dir_okay=False),
                help="Where to write the kubeconfig [default: ~/.gpuctl/sandbox/kubeconfig].",
            ),
        )
    ):
        command = option(command)
    return command


@click.group()
def sandbox() -> None:
    """A simulated GPU cluster on this machine, for trying gpuctl without a real one.

    It speaks the Kubernetes API over HTTP (kubectl and gpuctl both work against it), has four
    simulated nodes (two with 8 A100s, one with 4 T4s, one CPU-only) and runs Jobs,
    Deployments and StatefulSets; nothing ever executes a container.
    """


def _keep_running(
    state: dict[str, object], config_file: str | None, port: int, kubeconfig: str | None
) -> None:
    """Print the running sandbox's export line, unless an option asks for something else."""
    url, pid = str(state["url"]), state["pid"]
    differs = []
    if config_file and str(Path(config_file).resolve()) != state.get("config"):
        differs.append(f"--config {config_file}")
    if port and not url.endswith(f":{port}"):
        differs.append(f"--port {port}")
    if kubeconfig and str(Path(kubeconfig).resolve()) != state.get("kubeconfig"):
        differs.append(f"--kubeconfig {kubeconfig}")
    if differs:
        raise click.ClickException(
            f"a sandbox is already running at {url} (pid {pid}) without "
            f"{', '.join(differs)}; run `gpuctl sandbox down` first"
        )
    click.echo(f"sandbox already running at {url} (pid {pid})", err=True)
    click.echo(f"export KUBECONFIG={state['kubeconfig']}")


@sandbox.command()
@_server_options
def up(config_file: str | None, port: int, kubeconfig: str | None) -> None:
    """Start the sandbox in the background and write a kubeconfig for it.

    When one is running already and the options asked for do not differ from its own, it is
    kept, and the export line printed again (so the command can be run twice)."""
    state = _state()
    if state and _alive(int(str(state["pid"]))) and _healthy(str(state["url"])):
        _keep_running(state, config_file, port, kubeconfig)
        return
    if config_file:
        try:  # refuse a bad file here, with its own message, rather than from the background
            SandboxConfig.load(config_file)
        except (ValueError, TypeError, KeyError, yaml.YAMLError) as exc:
            raise click.ClickException(f"{config_file}: {exc}") from None
    directory = state_dir()
    directory.mkdir(parents=True, exist_ok=True)
    kubeconfig_path = Path(kubeconfig).resolve() if kubeconfig else directory / "kubeconfig"
    ready = directory / "ready.json"
    ready.unlink(missing_ok=True)
    log = (directory / "sandbox.log").open("ab")
    command = [
        *_gpuctl_command(),
        "sandbox",
        "run",
        "--port",
        str(port),
        "--kubeconfig",
        str(kubeconfig_path),
        "--ready-file",
        str(ready),
    ]
    if config_file:
        command += ["--config", str(Path(config_file).resolve())]
    process = subprocess.Popen(
        command, stdout=log, stderr=log, stdin=subprocess.DEVNULL, start_new_session=True
    )
    info = _wait_ready(process, ready, directory)
    config_path = str(Path(config_file).resolve()) if config_file else None
    (directory / "state.json").write_text(
        json.dumps(
            {
                "pid": process.pid,
                "url": info["url"],
                "kubeconfig": str(kubeconfig_path),
                "config": config_path,
            }
        )
    )
    click.echo(f"sandbox running at {info['url']} (pid {process.pid})", err=True)
    click.echo(f"export KUBECONFIG={kubeconfig_path}")


def _wait_ready(process: subprocess.Popen[bytes], ready: Path, directory: Path) -> Any:
    """What the background sandbox writes to `ready` once it listens; its last log line as
    the error if it exits first, or a timeout after 20 seconds."""
    deadline = time.monotonic() + 20
    while not ready.exists():
        if process.poll() is not None:
            tail = (directory / "sandbox.log").read_text(errors="replace").strip().splitlines()[-1:]
            raise click.ClickException(
                f"the sandbox did not start: {tail[0] if tail else 'no output'}"
            )
        if time.monotonic() > deadline:
            process.terminate()
            raise click.ClickException("the sandbox did not start within 20 seconds")
        time.sleep(0.05)
    return json.loads(ready.read_text())


@sandbox.command()
@_server_options
@click.option("--ready-file", hidden=True, help="Written (with the URL) once it listens.")
def run(config_file: str | None, port: int, kubeconfig: str | None, ready_file: str | None) -> None:
    """Run the sandbox in the foreground until Ctrl-C (`up` starts this in the background)."""
    from gpuctl.sandbox.__main__ import serve

    serve(config_file, port, kubeconfig or str(state_dir() / "kubeconfig"), ready_file)


@sandbox.command()
def down() -> None:
    """Stop the background sandbox."""
    state = _state()
    if not state or not _alive(int(str(state["pid"]))):
        (state_dir() / "state.json").unlink(missing_ok=True)
        raise click.ClickException("no sandbox is running")
    pid = int(str(state["pid"]))
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 5
    while _alive(pid) and time.monotonic() < deadline:
        with contextlib.suppress(ChildProcessError):  # reap it if it happens to be our child
            os.waitpid(pid, os.WNOHANG)
        time.sleep(0.05)
    if _alive(pid):
        os.kill(pid, signal.SIGKILL)
    (state_dir() / "state.json").unlink(missing_ok=True)
    click.echo(f"sandbox stopped (pid {pid})")


def _get_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=5) as response:
        return json.loads(response.read())


@sandbox.command()
def status() -> None:
    """Show whether the sandbox runs, where, and its nodes.

    Exits 1 with "degraded" when a simulated controller raised an error: such a cluster may
    have stopped scheduling or starting pods.
    """
    state = _state()
    if not state or not _alive(int(str(state["pid"]))) or not _healthy(str(state["url"])):
        raise click.ClickException("no sandbox is running (start one with `gpuctl sandbox up`)")
    url = str(state["url"])
    nodes = _get_json(f"{url}/api/v1/nodes")["items"]
    errors = _get_json(f"{url}/sandbox/errors")["controllerErrors"]
    click.echo(f"{'degraded' if errors else 'running'} at {url} (pid {state['pid']})")
    click.echo(f"kubeconfig: {state['kubeconfig']}")
    for node in nodes:
        cap = node["status"]["capacity"]
        gpus = str(accelerators.gpu_count(cap))
        labels = node["metadata"].get("labels") or {}
        gpu_type = next((labels[k] for k in GPU_TYPE_LABELS if labels.get(k)), "-")
        click.echo(
            f"  {node['metadata']['name']:<14} gpus={gpus:<3} type={gpu_type:<10} "
            f"cpu={cap.get('cpu')} memory={cap.get('memory')}"
        )
    if errors:
        click.echo(f"degraded: the simulated controllers raised {len(errors)} error(s):")
        for error in errors:
            repeats = f" ({error['count']} times, last {error['lastTime']})"
            click.echo(
                f"  {error['controller']}: {error['error']} at {error['firstTime']}"
                + (repeats if error["count"] > 1 else "")
            )
        click.echo(f"tracebacks: {state_dir() / 'sandbox.log'}")
        sys.exit(1)
