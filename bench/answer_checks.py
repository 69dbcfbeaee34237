"""The answer checks (saga_kgqa.checks) on SPINACH's released QALD-10 answers and traces, LLM-free (issue 13).

How many of SPINACH's F1 = 0 answers each check flags, and how many F1 = 1 answers it flags
wrongly (answers with 0 < F1 < 1 are left out). See bench.grounding_eval.answer_checks_spinach.

Usage: python bench/answer_checks.py --data-dir ../shared/data
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from saga_kgqa.checks import CHECKS

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository root: bench.grounding_eval
from bench.grounding_eval.answer_checks_spinach import measure, property_exists
from saga_kgqa.kg.core.profiles import WIKIDATA_PREFIXES


def main() -> None:
    """Measure, print per check, end with the RESULT line."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/data"))
    parser.add_argument("--examples", type=int, default=5, help="right answers flagged, listed")
    args = parser.parse_args()
    tally = measure(args.data_dir, WIKIDATA_PREFIXES, property_exists(args.data_dir), examples=args.examples)
    print(f"SPINACH QALD-10: {tally.wrong} answers with F1 = 0, {tally.right} with F1 = 1")
    print(f"{'check':<18}{'flags wrong':<22}flags right")
    fields = []
    for name in CHECKS:
        wrong, right = tally.flagged_wrong.get(name, 0), tally.flagged_right.get(name, 0)
        print(
            f"{name:<18}{f'{tally.share(wrong, tally.wrong):.3f} ({wrong}/{tally.wrong})':<22}"
            f"{tally.share(right, tally.right):.3f} ({right}/{tally.right})"
        )
        fields.append(
            f"{name}_wrong={tally.share(wrong, tally.wrong):.3f} {name}_right={tally.share(right, tally.right):.3f}"
        )
    print(
        f"{'any':<18}{f'{tally.share(tally.any_wrong, tally.wrong):.3f} ({tally.any_wrong}/{tally.wrong})':<22}"
        f"{tally.share(tally.any_right, tally.right):.3f} ({tally.any_right}/{tally.right})"
    )
    for line in tally.examples:
        print(line)
    print(
        f"RESULT checks_flag_wrong={tally.share(tally.any_wrong, tally.wrong):.3f} "
        f"checks_flag_right={tally.share(tally.any_right, tally.right):.3f} " + " ".join(fields)
    )


if __name__ == "__main__":
    main()
