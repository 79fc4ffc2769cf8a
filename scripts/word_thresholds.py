"""Choose the thresholds of grounding words by meaning on the development word list.

Scores every word of ``eval/suites/words_dev.yaml`` once (MiniLM), sweeps the threshold and the
margin (:func:`claw.eval.words.sweep_thresholds`: right matches minus twice the wrong and false
ones, the middle of the best plateau) and prints the choice beside the shipped constants
(``claw.planner.language.meaning.THRESHOLD`` and ``MARGIN``) and a grid of counts around it. Only
the development list is read: the held-out list measures the choice, it never makes it. Run:
``python scripts/word_thresholds.py``.
"""

from __future__ import annotations

import numpy as np

from claw.eval.suite import SUITES_DIR
from claw.eval.words import judge_word, load_word_list, sweep_thresholds
from claw.planner.language.meaning import MARGIN, THRESHOLD, grounder


def main() -> None:
    _, entries = load_word_list(SUITES_DIR / "words_dev.yaml")
    judged = [(e, grounder().candidates(e.word, e.categories)) for e in entries]
    choice = sweep_thresholds(judged)
    print(f"chosen: threshold {choice.threshold}, margin {choice.margin} "
          f"(objective {choice.objective}: {choice.counts})")  # fmt: skip
    print(f"shipped: threshold {THRESHOLD}, margin {MARGIN}")
    margins = np.round(np.arange(0.0, 0.161, 0.02), 2)
    print("correct/wrong/false matches; threshold down, margin across")
    print("      " + " ".join(f"{m:>9.2f}" for m in margins))
    for threshold in np.round(np.arange(0.40, 0.701, 0.025), 3):
        cells = []
        for margin in margins:
            got = [judge_word(e, f, threshold, margin).outcome for e, f in judged]
            cells.append(f"{got.count('correct')}/{got.count('wrong')}/{got.count('false_match')}")
        print(f"{threshold:.3f} " + " ".join(f"{c:>9}" for c in cells))


if __name__ == "__main__":
    main()
