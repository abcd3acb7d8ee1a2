"""`Sandbox`, one simulated cluster: its store and API machinery, its HTTP server and its
simulated controllers, run in threads."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from types import TracebackType
from typing import Any

import yaml

from gpuctl.sandbox.api import Api
from gpuctl.sandbox.config import SandboxConfig
from gpuctl.sandbox.controllers import ControllerError, Controllers
from gpuctl.sandbox.faults import Faults, RequestLog
from gpuctl.sandbox.resources import Registry
from gpuctl.sandbox.server import Handler
from gpuctl.sandbox.store import Store
from gpuctl.sandbox.transport import HttpServer


class Sandbox:
    """One simulated cluster: `start()` it (or use it as a context manager), talk to `.url`."""

    def __init__(
        self, config: SandboxConfig | None = None, port: int = 0, host: str = "127.0.0.1"
    ) -> None:
        self.config = config or SandboxConfig()
        self.registry = Registry()
        self.store = Store(self.config.watch_history)
        self.api = Api(self.config, self.registry, self.store)
        self.faults = Faults()
        self.requests = RequestLog()
        self.stopping = threading.Event()
        self.streams_lock = threading.Lock()
        self.open_streams = 0  # watches and log follows being served right now
        self.controllers = Controllers(self.api, self.config, self.stopping)
        self._host = host
        self._port = port
        self._server: HttpServer | None = None
        self._threads: list[threading.Thread] = []
        self.controllers.bootstrap()

    @property
    def port(self) -> int:
        return self._server.server_address[1] if self._server else self._port

    @property
    def url(self) -> str:
        return f"http://{self._host}:{self.port}"

    def start(self) -> Sandbox:
        self._server = HttpServer((self._host, self._port), Handler)
        self._server.sandbox = self
        serve = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.01},
            name="sandbox-http",
            daemon=True,
        )
        loop = threading.Thread(
            target=self.controllers.run, name="sandbox-controllers", daemon=True
        )
        self._threads = [serve, loop]
        for thread in self._threads:
            thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self.faults.released.set()
        with self.store.lock:
            self.store.changed.notify_all()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server.close_connections()
        for thread in self._threads:
            thread.join(timeout=2)

    def controller_errors(self) -> list[ControllerError]:
        """What the simulated controllers raised so far; empty while the cluster is healthy."""
        return self.controllers.errors()

    def settle(self, timeout: float = 5.0) -> bool:
        """Wait until the controllers have nothing left to do: no change since their last pass
        and no timed transition pending (pods starting, jobs finishing, grace periods). False if
        that did not happen within `timeout` (a crash-looping pod never settles)."""
        deadline = time.monotonic() + timeout
        quiet_since: float | None = None
        while time.monotonic() < deadline:
            with self.store.lock:
                idle = self.controllers.idle()
            if idle:
                quiet_since = quiet_since or time.monotonic()
                if time.monotonic() - quiet_since >= 3 * self.config.tick_seconds:
                    return True
            else:
                quiet_since = None
            time.sleep(self.config.tick_seconds / 2)
        return False

    def __enter__(self) -> Sandbox:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def kubeconfig(self, namespace: str = "default") -> dict[str, Any]:
        return {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": "gpuctl-sandbox", "cluster": {"server": self.url}}],
            "users": [{"name": "gpuctl-sandbox", "user": {}}],
            "contexts": [
                {
                    "name": "gpuctl-sandbox",
                    "context": {
                        "cluster": "gpuctl-sandbox",
                        "user": "gpuctl-sandbox",
                        "namespace": namespace,
                    },
                }
            ],
            "current-context": "gpuctl-sandbox",
            "preferences": {},
        }

    def write_kubeconfig(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(yaml.safe_dump(self.kubeconfig(), sort_keys=False))
        return path
