"""`gpuctl serve`: the REST API on uvicorn. FastAPI and uvicorn are imported only here, when
the command runs, so that no other command pays for them."""

from __future__ import annotations

import errno
import ipaddress
import socket
from collections.abc import Callable
from typing import TYPE_CHECKING

import click

from gpuctl.errors import GpuctlError, UsageError

if TYPE_CHECKING:
    import uvicorn

    from gpuctl.server.webhooks.worker import Settings

# Seconds the shutdown waits for open requests (each followed log stream ends at once) before
# it cancels them: the process exits within a few seconds of SIGTERM or Ctrl-C.
GRACE = 3
STARTUP_FAILURE = 3  # uvicorn.run's exit code when the server could not start


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
@click.option(
    "--port",
    default=8000,
    show_default=True,
    type=click.IntRange(0, 65535),
    help="Port to listen on; one in use is refused before anything starts.",
)
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
    "--pushgateway-url",
    envvar="GPUCTL_PUSHGATEWAY_URL",
    help="Prometheus Pushgateway that the jobs' own metrics (POST /api/v1/metrics/custom) are "
    "relayed to; Prometheus scrapes it with honor_labels: true (default: "
    "$GPUCTL_PUSHGATEWAY_URL, else the context's pushgatewayUrl in gpuctl's config file; "
    "without one a push is 503).",
)
@click.option(
    "--tls-cert",
    type=click.Path(dir_okay=False, exists=True),
    help="Serve HTTPS with this certificate (PEM; with --tls-key). Give it, or put a TLS "
    "proxy in front, before --host 0.0.0.0: bearer tokens must not cross a network in clear.",
)
@click.option(
    "--tls-key",
    type=click.Path(dir_okay=False, exists=True),
    help="The private key (PEM) of --tls-cert.",
)
@click.option(
    "--max-log-streams",
    default=32,
    show_default=True,
    type=click.IntRange(1),
    help="Followed log streams open at once, all users together (429 beyond).",
)
@click.option(
    "--max-log-streams-per-user",
    default=8,
    show_default=True,
    type=click.IntRange(1),
    help="Followed log streams one user may have open at once (429 beyond).",
)
@click.option(
    "--allow-host-path",
    "host_paths",
    multiple=True,
    metavar="PREFIX",
    help="Token-file users may mount host paths (storage.workdirs) at or under PREFIX "
    "(repeatable; default: none). Admins and --auth kubernetes callers are the cluster's to "
    "decide (the namespace's Pod Security level).",
)
@click.option(
    "--allowed-host",
    "allowed_hosts",
    multiple=True,
    metavar="NAME",
    help="Without --tokens or --auth: also answer requests whose Host is NAME (repeatable; any "
    "port). By default only a loopback Host (localhost, 127.0.0.1, [::1]) and --host are "
    "answered, so that no other site's page can reach the server by DNS rebinding.",
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
    "--webhook-allow-cidr",
    "webhook_cidrs",
    multiple=True,
    metavar="CIDR",
    help="Webhooks may be delivered to addresses in CIDR (repeatable), which are refused by "
    "default: loopback, link-local (cloud metadata), private and cluster-internal ranges.",
)
@click.option(
    "--webhook-timeout",
    default=10.0,
    show_default=True,
    type=click.FloatRange(0.1, 60),
    help="Seconds one webhook delivery attempt may take.",
)
@click.option(
    "--webhook-retry-base",
    default=5.0,
    show_default=True,
    type=click.FloatRange(0.05, 3600),
    help="Seconds before a failed webhook's first retry; each next one waits 4 times longer "
    "(at most 6 h, with jitter), for 24 h; then the subscription is disabled.",
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
    pushgateway_url: str | None,
    tls_cert: str | None,
    tls_key: str | None,
    max_log_streams: int,
    max_log_streams_per_user: int,
    host_paths: tuple[str, ...],
    allowed_hosts: tuple[str, ...],
    cluster_timeout: float,
    webhook_cidrs: tuple[str, ...],
    webhook_timeout: float,
    webhook_retry_base: float,
    access_log: bool,
) -> None:
    """Serve the REST API (/api/v1, Swagger UI at /api/v1/docs, metrics at /metrics).

    \b
    gpuctl serve --kubeconfig ~/.kube/config
    gpuctl serve --kubeconfig ~/.kube/config --allowed-host gpu-box.local
    gpuctl serve --host 0.0.0.0 --port 8443 --tokens tokens.yaml \\
        --tls-cert tls.crt --tls-key tls.key
    gpuctl serve --host 0.0.0.0 --port 8000 --tokens tokens.yaml --allow-host-path /data
    gpuctl serve --host 0.0.0.0 --port 8000 --auth kubernetes
    gpuctl serve --tokens tokens.yaml --webhook-allow-cidr 10.20.0.0/16
    gpuctl serve --tokens tokens.yaml --pushgateway-url http://pushgateway.monitoring:9091
    """
    import uvicorn

    from gpuctl.cluster.client import Cluster
    from gpuctl.monitoring.prometheus import configured_url
    from gpuctl.server.app import create_app
    from gpuctl.server.auth import Authenticator, Policy, Tokens, allowed_prefixes, exposed
    from gpuctl.server.kubeauth import TokenReviews

    if tokens_file is not None and auth_mode is not None:
        raise UsageError("give --tokens FILE or --auth kubernetes, not both")
    policy = Policy(allowed_prefixes(host_paths))
    if tokens_file is None and auth_mode is None and not is_loopback(host):
        raise UsageError(
            f"--host {host} is not a loopback address: give --tokens FILE or --auth kubernetes, "
            "or every caller on the network would be an admin"
        )
    names = _allowed_hosts(allowed_hosts, host, tokens_file is None and auth_mode is None)
    if (tls_cert is None) != (tls_key is None):
        raise UsageError("give --tls-cert FILE and --tls-key FILE together")
    if tls_cert is not None and tls_key is not None:
        _check_tls(tls_cert, tls_key)
    auth: Authenticator | None = None
    if tokens_file is not None:
        auth = Tokens.load(tokens_file)
        warning = exposed(tokens_file)
        if warning is not None:
            click.echo(f"warning: {warning}", err=True)
    check_port_free(host, port)
    cluster = Cluster.connect(kubeconfig, context, read_timeout=cluster_timeout)
    if auth_mode == "kubernetes":
        auth = TokenReviews(cluster)
    app = create_app(
        cluster,
        auth,
        configured_url(prometheus_url, cluster.context),
        max_streams=max_log_streams,
        max_streams_per_user=max_log_streams_per_user,
        policy=policy,
        webhook_settings=_webhook_settings(webhook_cidrs, webhook_timeout, webhook_retry_base),
        deliver=True,
        pushgateway_url=_pushgateway_url(pushgateway_url, cluster.context),
        allowed_hosts=names,
    )
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="info",
        server_header=False,
        access_log=access_log,
        ssl_certfile=tls_cert,
        ssl_keyfile=tls_key,
        timeout_graceful_shutdown=GRACE,
    )
    server = _server(config, app.state.log_streams.stop_all)
    try:
        server.run()
    except OSError as exc:
        raise GpuctlError(f"cannot listen on {host}:{port}: {exc}") from exc
    if not server.started:
        raise SystemExit(STARTUP_FAILURE)


def check_port_free(host: str, port: int) -> None:
    """Bind `host`:`port` as uvicorn will (SO_REUSEADDR, every address `host` names) and let
    go at once: a port in use is one line before the app starts, not uvicorn's errno after
    "Application startup complete". Port 0 (any free one) always binds."""
    try:
        addresses = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except OSError as exc:
        raise GpuctlError(f"cannot listen on {host}:{port}: {exc}") from None
    for family, kind, protocol, _, address in addresses:
        with socket.socket(family, kind, protocol) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(address)
            except OSError as exc:
                if exc.errno == errno.EADDRINUSE:
                    raise GpuctlError(
                        f"port {port} is in use (by another process): pick another with --port"
                    ) from None
                raise GpuctlError(f"cannot listen on {host}:{port}: {exc.strerror}") from None


def _allowed_hosts(given: tuple[str, ...], host: str, open_mode: bool) -> tuple[str, ...]:
    """The Host names a server without authentication answers besides the loopback ones:
    `--allowed-host`'s, and the (loopback) name it listens on. UsageError for a value that is
    not a host name or address, and for --allowed-host with authentication (where the Host is
    not checked: a browser never sends the bearer token by itself)."""
    from gpuctl.server.origins import allowed_host_name

    if given and not open_mode:
        raise UsageError(
            "--allowed-host applies only without --tokens and --auth (with them the Host is "
            "not checked): leave it out"
        )
    names = []
    for text in given:
        name = allowed_host_name(text)
        if name is None:
            raise UsageError(
                f"--allowed-host {text}: give a host name or an address without a port "
                "(e.g. gpu-box.local)"
            )
        names.append(name)
    own = allowed_host_name(host)
    return tuple(dict.fromkeys([*names, *([own] if own else [])]))


def _pushgateway_url(option: str | None, context: str | None) -> str | None:
    """--pushgateway-url (or $GPUCTL_PUSHGATEWAY_URL), else the one the CLI finds for
    `context` (gpuctl.monitoring.custom.configured: the config file's)."""
    from gpuctl.monitoring import custom

    if option:
        if not option.startswith(("http://", "https://")):
            raise UsageError(f"--pushgateway-url {option}: not an http(s) URL")
        return option
    gateway = custom.configured(context)
    return gateway.url if gateway else None


def _webhook_settings(cidrs: tuple[str, ...], timeout: float, retry_base: float) -> Settings:
    from gpuctl.server.webhooks.worker import Settings

    allowed = []
    for text in cidrs:
        try:
            allowed.append(ipaddress.ip_network(text, strict=False))
        except ValueError:
            raise UsageError(f"--webhook-allow-cidr {text}: not an address range") from None
    return Settings(tuple(allowed), timeout=timeout, retry_base=retry_base)


def _server(config: uvicorn.Config, on_shutdown: Callable[[], None]) -> uvicorn.Server:
    """uvicorn's server, which at the start of its shutdown (SIGTERM, Ctrl-C) calls
    `on_shutdown` (ending every followed log stream) before it waits for the open requests."""
    import uvicorn

    class Server(uvicorn.Server):
        async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
            on_shutdown()
            await super().shutdown(sockets)

    return Server(config)


def _check_tls(cert: str, key: str) -> None:
    """The certificate and key load, and belong together (else one clear line, before
    anything listens)."""
    import ssl

    try:
        ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER).load_cert_chain(cert, key)
    except (OSError, ssl.SSLError) as exc:
        raise GpuctlError(f"--tls-cert {cert} --tls-key {key}: cannot load them: {exc}") from None
