"""Instruction to plan: the offline and LLM planners and the closed-loop executor."""
