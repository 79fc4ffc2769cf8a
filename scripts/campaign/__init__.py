"""The machinery of scripts/adversarial.py, the hostile-input campaign against the `claw` CLI.

- limits: the API key, deadlines by class name, the memory cap, the verdict classes
- answers, fake_llm: what a fake OpenAI-compatible server answers, and the server
- process: one command run in its own session, its process tree watched and killed by id
- model: a case (its command, files and expectations) and its outcome
- verdicts: the standard checks of a run, and the named checks a row may add
- context: one case's folder, environment and commands
- fixtures, inputs, texts: results made once by the CLI, generated files, named texts
- scenarios, composites: cases of several commands with their own checks
- table: the case table (scripts/adversarial_cases/*.yaml), validated, read as cases
"""
