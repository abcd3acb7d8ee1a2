"""`gpuctl serve`: the REST API on uvicorn. FastAPI and uvicorn are imported only here, when
the command runs, so that no other command pays for them."""

from __future__ import annotations

import ipaddress
import socket

import click

from gpuctl.errors import GpuctlError, UsageError


def is_loopback(host: str) -> bool:
    """True when every address `host` names is a loopback one (127.0.0.0/8, ::1)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        try:
            infos = socket.getaddrinfo(host, None)
        except OSError:
            return False
        return bool(infos) and all(ipaddress.ip_address(i[4][0]).is_loopback for i in infos)


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535))
@click.option(
    "--tokens",
    "tokens_file",
    type=click.Path(dir_okay=False),
    help="Token-file mode: YAML, tokens: [{token, user, role: user|admin}]. Without --tokens "
    "or --auth there is no authentication, every caller is an admin, and only a loopback "
    "--host is allowed.",
)
@click.option(
    "--auth",
    "auth_mode",
    type=click.Choice(["kubernetes"]),
    help="kubernetes: callers send Kubernetes bearer tokens, which the cluster reviews "
    "(TokenReview); every request is made as the caller (impersonation), so the cluster's RBAC "
    "decides. Not with --tokens.",
)
@click.option("--kubeconfig", type=click.Path(dir_okay=False), help="Path to the kubeconfig.")
@click.option("--context", help="The kubeconfig context to use.")
@click.option(
    "--prometheus-url",
    envvar="GPUCTL_PROMETHEUS_URL",
    help="Prometheus with the DCGM exporter's series, for the jobs' metrics (default: "
    "$GPUCTL_PROMETHEUS_URL, else the context's prometheusUrl in gpuctl's config file; "
    "without one the series are empty).",
)
@click.option(
    "--cluster-timeout",
    default=5.0,
    show_default=True,
    type=click.FloatRange(0.5, 300),
    help="Seconds to wait for one answer of the cluster before the request fails with 503 "
    "ClusterUnreachable (watches excepted).",
)
@click.option(
    "--access-log/--no-access-log",
    default=False,
    show_default=True,
    help="Log every request (a line each; /metrics counts them either way).",
)
def serve(
    host: str,
    port: int,
    tokens_file: str | None,
    auth_mode: str | None,
    kubeconfig: str | None,
    context: str | None,
    prometheus_url: str | None,
    cluster_timeout: float,
    access_log: bool,
) -> None:
    """Serve the REST API (/api/v1, Swagger UI at /api/v1/docs, metrics at /metrics).

    \b
    gpuctl serve --kubeconfig ~/.kube/config
    gpuctl serve --host 0.0.0.0 --port 8000 --tokens tokens.yaml
    gpuctl serve --host 0.0.0.0 --port 8000 --auth kubernetes
    """
    import uvicorn

    from gpuctl.cluster.client import Cluster
    from gpuctl.monitoring.prometheus import configured_url
    from gpuctl.server.app import create_app
    from gpuctl.server.auth import Authenticator, Tokens
    from gpuctl.server.kubeauth import TokenReviews

    if tokens_file is not None and auth_mode is not None:
        raise UsageError("give --tokens FILE or --auth kubernetes, not both")
    if tokens_file is None and auth_mode is None and not is_loopback(host):
        raise UsageError(
            f"--host {host} is not a loopback address: give --tokens FILE or --auth kubernetes, "
            "or every caller on the network would be an admin"
        )
    cluster = Cluster.connect(kubeconfig, context, read_timeout=cluster_timeout)
    auth: Authenticator | None = None
    if tokens_file is not None:
        auth = Tokens.load(tokens_file)
    elif auth_mode == "kubernetes":
        auth = TokenReviews(cluster)
    app = create_app(cluster, auth, configured_url(prometheus_url, cluster.context))
    try:
        uvicorn.run(
            app,
            host=host,
            port=port,
            log_level="info",
            server_header=False,
            access_log=access_log,
        )
    except OSError as exc:
        raise GpuctlError(f"cannot listen on {host}:{port}: {exc}") from exc
