"""The commands that never contact a cluster: render, validate, schema and completion. Heavy
modules are imported inside each command."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import click

from gpuctl import constants as c
from gpuctl.cli.main import cli, file_option, given_or_global

if TYPE_CHECKING:
    from gpuctl.render.engine import Manifest, NodeLabels


@click.command()
@file_option
@click.option(
    "-o",
    "--output",
    type=click.Choice(["yaml", "json"]),
    default="yaml",
    show_default=True,
    help="yaml: multi-document YAML for `kubectl apply -f -`; json: one v1 List.",
)
@click.option(
    "-n",
    "--namespace",
    callback=given_or_global,
    help="Namespace for every job (wins over job.namespace).",
)
@click.option(
    "--priority-classes/--no-priority-classes",
    default=True,
    show_default=True,
    help="Set priorityClassName gpuctl-<priority> (see `gpuctl priority-classes`).",
)
def render(
    files: tuple[str, ...], output: str, namespace: str | None, priority_classes: bool
) -> None:
    """Check the specs and print the Kubernetes objects; never contacts a cluster.

    The objects are complete for `kubectl apply -f -`: first the PriorityClasses the pods
    name (gpuctl-high/-medium/-low, as `gpuctl priority-classes` prints them; only those
    named), so that a cluster without them admits the pods. What no object can carry is
    printed on stderr as kubectl commands: the labels (and the taint) a pool file puts on
    its nodes, and the token Secret of a notebook that sets no token (each render prints a
    new random token), which `gpuctl create` writes.

    \b
    gpuctl render -f examples/training.yaml
    gpuctl render -f examples/ | kubectl apply -f -
    """
    from gpuctl.render import engine
    from gpuctl.spec.check import load_specs
    from gpuctl.spec.kinds import Options

    specs = load_specs(files, engine.render_problems)
    options = Options(namespace=namespace, priority_classes=priority_classes)
    manifests = engine.with_priority_classes(engine.render_specs(specs, options))
    text = engine.to_json(manifests) if output == "json" else engine.to_yaml(manifests)
    click.echo(text, nl=False)
    commands = node_commands(engine.node_labels(specs)) + token_commands(manifests)
    if commands:
        click.echo(
            "# Nodes and notebook tokens are not printed (nodes are not gpuctl's to replace; "
            "a token is a secret): `gpuctl create` labels a pool's nodes and makes the "
            "tokens; with kubectl:",
            err=True,
        )
        for command in commands:
            click.echo(command, err=True)


def node_commands(claims: Sequence[NodeLabels]) -> list[str]:
    """The kubectl commands that label (and, for an isolated pool, taint) the pools' nodes as
    `gpuctl create` does. Without --overwrite, as create: a node already in another pool is
    refused."""
    commands = []
    for claim in claims:
        labels = " ".join(f"{key}={value}" for key, value in claim.labels.items())
        commands.append(f"kubectl label node {claim.node} {labels}")
        if claim.taint:
            commands.append(f"kubectl taint node {claim.node} {claim.taint}")
    return commands


def token_commands(manifests: Sequence[Manifest]) -> list[str]:
    """The kubectl commands that make the token Secret of each notebook that sets no token,
    with a random token (32 hex digits, as create's). Unlike create's, such a Secret is owned
    by nothing: deleting the notebook leaves it."""
    import secrets

    from gpuctl.render.notebook_token import secret_name

    commands = []
    for manifest in manifests:
        name = secret_name(manifest)
        if name is not None:
            commands.append(
                f"kubectl create secret generic {name} -n {manifest.namespace} "
                f"--from-literal={c.NOTEBOOK_TOKEN_KEY}={secrets.token_hex(16)}"
            )
    return commands


@click.command()
@file_option
def validate(files: tuple[str, ...]) -> int:
    """Check the specs as create would, without a cluster: `FILE: ok`, or every problem found.

    Each file on its own, then the files together (a node two files put in two pools, an
    object two files render): what create and apply refuse, validate refuses alike. Warnings
    (a workdir on a sensitive host path such as /etc) do not fail the check.

    \b
    gpuctl validate -f examples/
    """
    from gpuctl.errors import Problem, SpecError
    from gpuctl.render import engine
    from gpuctl.spec import document
    from gpuctl.spec.check import Spec, check_documents, spec_warnings
    from gpuctl.spec.kinds import Options

    found: dict[str, list[Problem]] = {}  # each file's problems, in the order given
    passed: list[Spec] = []
    for name in document.expand_paths(files):
        shown = document.display_name(name)
        try:
            specs = check_documents(document.load_text(shown, document.read_text(name)))
            engine.render_specs(specs, Options())
        except SpecError as exc:
            found[shown] = list(exc.problems)
            continue
        found[shown] = []
        passed += specs
    try:  # what only the files together show, as create refuses it: a node in two pools
        engine.render_specs(passed, Options())
    except SpecError as exc:
        for problem in exc.problems:
            found.setdefault(problem.file, []).append(problem)
    warned: dict[str, list[Problem]] = {}
    for spec in passed:
        warned.setdefault(spec.document.source, []).extend(spec_warnings(spec.document))
    for shown, problems in found.items():
        for problem in problems:
            click.echo(str(problem), err=True)
        if not problems:  # what create and apply would warn about too
            for warning in warned.get(shown, []):
                click.echo(f"warning: {warning}", err=True)
            click.echo(f"{shown}: ok")
    return 1 if any(found.values()) else 0


@click.command()
@click.argument("kind")
def schema(kind: str) -> None:
    """Print the JSON Schema of a kind, self-contained, for editors.

    \b
    gpuctl schema training > training.schema.json
    # then in a spec:  # yaml-language-server: $schema=training.schema.json
    """
    import json

    from gpuctl.errors import UsageError
    from gpuctl.spec import kinds
    from gpuctl.spec import schema as schemas

    found = kinds.lookup(kind)
    if found is None:
        hint = schemas.did_you_mean(kind, kinds.spellings())
        raise UsageError(f"unknown kind {kind!r} ({hint})")
    click.echo(json.dumps(schemas.bundle(found.schema), indent=2, ensure_ascii=False))


@click.command()
@click.argument("shell", type=click.Choice(["bash", "zsh", "fish"]))
def completion(shell: str) -> None:
    """Print the shell completion script.

    \b
    eval "$(gpuctl completion bash)"      # or add it to ~/.bashrc
    """
    from click.shell_completion import get_completion_class

    completion_class = get_completion_class(shell)
    assert completion_class is not None
    click.echo(completion_class(cli, {}, "gpuctl", "_GPUCTL_COMPLETE").source())
