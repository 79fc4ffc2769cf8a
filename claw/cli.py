"""The ``claw`` command line."""

import typer

app = typer.Typer(no_args_is_help=True)


def main() -> None:
    app()
