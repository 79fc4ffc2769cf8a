"""claw's tests, one folder per package (CONTRIBUTING.md, "Test"). A package, so that pytest
names each module by its folder (``tests.planner.llm.test_hybrid``) and the shared helpers here
import as ``tests.reading``, ``tests.fake_server``, ``tests.witness``."""
