"""Offline evaluation: suites, mocked LLMs, metrics and reports."""
