"""The commands that never contact a cluster: render, validate, schema and completion. Heavy
modules are imported inside each command."""

from __future__ import annotations

import click

from gpuctl.cli.main import cli, file_option, given_or_global


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

    \b
    gpuctl render -f examples/training.yaml
    gpuctl render -f examples/ | kubectl apply -f -
    """
    from gpuctl.render import engine
    from gpuctl.spec.kinds import Options

    manifests = engine.render(
        files, Options(namespace=namespace, priority_classes=priority_classes)
    )
    text = engine.to_json(manifests) if output == "json" else engine.to_yaml(manifests)
    click.echo(text, nl=False)


@click.command()
@file_option
def validate(files: tuple[str, ...]) -> int:
    """Check the specs without rendering them: `FILE: ok`, or every problem found.
    Warnings (a workdir on a sensitive host path such as /etc) do not fail the check.

    \b
    gpuctl validate -f examples/
    """
    from gpuctl.errors import SpecError
    from gpuctl.render import engine
    from gpuctl.spec import document
    from gpuctl.spec.check import spec_warnings
    from gpuctl.spec.kinds import Options

    failed = False
    for name in document.expand_paths(files):
        shown = document.display_name(name)
        try:
            docs = document.load_text(shown, document.read_text(name))
            engine.render_documents(docs, Options())
        except SpecError as exc:
            failed = True
            for problem in exc.problems:
                click.echo(str(problem), err=True)
            continue
        for doc in docs:  # what create and apply would warn about too
            for warning in spec_warnings(doc):
                click.echo(f"warning: {warning}", err=True)
        click.echo(f"{shown}: ok")
    return 1 if failed else 0


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
