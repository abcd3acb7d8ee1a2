"""`python -m gpuctl.sandbox`: run a sandbox in the foreground until SIGTERM or Ctrl-C."""

from __future__ import annotations

import argparse
import contextlib
import json
import signal
import threading
from pathlib import Path

from gpuctl.sandbox.config import SandboxConfig
from gpuctl.sandbox.server import Sandbox


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m gpuctl.sandbox")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--config")
    parser.add_argument(
        "--kubeconfig", default=str(Path.home() / ".gpuctl" / "sandbox" / "kubeconfig")
    )
    parser.add_argument("--ready-file", help="written (with the URL) once the server listens")
    args = parser.parse_args(argv)
    config = SandboxConfig.load(args.config) if args.config else SandboxConfig()
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    with Sandbox(config, port=args.port) as sandbox:
        sandbox.write_kubeconfig(args.kubeconfig)
        if args.ready_file:
            Path(args.ready_file).write_text(json.dumps({"url": sandbox.url}))
        print(f"sandbox listening on {sandbox.url}; KUBECONFIG={args.kubeconfig}", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            done.wait()


if __name__ == "__main__":
    main()
