"""Render docs/results.md and its plots from one ``claw bench all`` results file.

Usage::

    python scripts/results_page.py docs/results.json [--out docs/results.md] [--img DIR]
        [--readme README.md]

The page, its plots and the README's block of figures are never typed by hand: every figure
comes from the file (:mod:`claw.results_page`). A file that is not a results file: one line, exit 2.
"""

from __future__ import annotations

import sys

from claw.results_page import main

if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
