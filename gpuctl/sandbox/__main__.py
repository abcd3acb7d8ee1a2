"""`python -m gpuctl.sandbox`: run a sandbox in the foreground until SIGTERM or Ctrl-C."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import threading
from pathlib import Path

from gpuctl.sandbox.config import SandboxConfig
from gpuctl.sandbox.runner import Sandbox


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m gpuctl.sandbox")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--config")
    parser.add_argument(
        "--kubeconfig", default=str(Path.home() / ".gpuctl" / "sandbox" / "kubeconfig")
    )
    parser.add_argument("--ready-file", help="written (with the URL) once the server listens")
    args = parser.parse_args(argv)
    serve(args.config, args.port, args.kubeconfig, args.ready_file)


def serve(config_file: str | None, port: int, kubeconfig: str, ready_file: str | None) -> None:
    """Run a sandbox until SIGTERM or Ctrl-C; write `ready_file` (with the URL) once it
    listens."""
    config = SandboxConfig.load(config_file) if config_file else SandboxConfig()
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    with Sandbox(config, port=port) as sandbox:
        sandbox.write_kubeconfig(kubeconfig)
        if ready_file:  # whole or absent: `sandbox up` reads it as soon as it exists
            partial = Path(f"{ready_file}.partial")
            partial.write_text(json.dumps({"url": sandbox.url}))
            os.replace(partial, ready_file)
        print(f"sandbox listening on {sandbox.url}; KUBECONFIG={kubeconfig}", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            done.wait()


if __name__ == "__main__":
    main()
