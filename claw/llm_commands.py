"""``claw llm serve``: a local model behind an OpenAI-compatible server, for ``--planner local``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Annotated

import typer

from claw.output import errors

llm_app = typer.Typer(
    help="Local models: claw llm serve starts llama.cpp's OpenAI-compatible server.",
    no_args_is_help=True,
)


@llm_app.command("serve")
def serve(
    model: Annotated[
        Path | None,
        typer.Option(help="A GGUF model [default: SmolLM2-135M-Instruct, from the local extra]."),
    ] = None,
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port on 127.0.0.1.")] = 8080,
    n_ctx: Annotated[int, typer.Option(min=512, help="Context window (tokens).")] = 4096,
    threads: Annotated[int | None, typer.Option(min=1, help="CPU threads.")] = None,
) -> None:
    """Serve a local model on 127.0.0.1 until interrupted; plan with --planner local."""
    from claw.planner.llm.local import server_command, shipped_model

    with errors():
        command = server_command(model or shipped_model(), port, n_ctx, threads)
    base = f"http://127.0.0.1:{port}/v1"
    hint = "" if port == 8080 else f" --api-base {base}"
    print(f"serving {command[command.index('--model') + 1]} at {base}; plan with: "
          f'claw "…" --planner local{hint}', file=sys.stderr)  # fmt: skip
    process = subprocess.Popen(command)
    try:
        raise typer.Exit(process.wait())
    except KeyboardInterrupt:
        process.terminate()
        process.wait(timeout=10)
        raise typer.Exit(130) from None
