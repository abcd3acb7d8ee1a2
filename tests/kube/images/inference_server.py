"""The inference image's server: plain HTTP from Python's standard library.

    python3 /srv/inference/server.py [--port 8000]

GET /health answers 200 once the "model" is loaded (READY_AFTER seconds after start, default
0) and 503 before; with HEALTH=fail it always answers 500, as a server whose model failed to
load. GET / answers {"version": $VERSION, "host": the pod's name}. Every request is logged on
stdout, one line each.
"""

import argparse
import json
import os
import socket
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

STARTED = time.monotonic()


class Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path.split("?", 1)[0] == "/health":
            self._health()
        else:
            body = {"version": os.environ.get("VERSION", ""), "host": socket.gethostname()}
            self._answer(200, json.dumps(body))

    def _health(self) -> None:
        if os.environ.get("HEALTH") == "fail":
            self._answer(500, "model failed to load")
        elif time.monotonic() - STARTED < float(os.environ.get("READY_AFTER", "0")):
            self._answer(503, "loading the model")
        else:
            self._answer(200, "ok")

    def _answer(self, code: int, text: str) -> None:
        data = (text + "\n").encode()
        self.send_response(code)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:
        print(format % args, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    port = parser.parse_args().port
    print(f"serving on :{port}", flush=True)
    ThreadingHTTPServer(("", port), Handler).serve_forever()


if __name__ == "__main__":
    main()
