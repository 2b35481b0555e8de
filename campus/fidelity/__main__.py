"""Print the scorecard; exit 1 when a case fails (or a known gap starts to pass)."""

import sys

from campus.fidelity import failed, run, summary_line, table


def main() -> int:
    outcomes = run()
    print(table(outcomes))
    print()
    print(summary_line(outcomes))
    for o in outcomes:
        if o.error:
            print(f"  {o.case.id}: {o.error}")
    bad = failed(outcomes)
    if bad:
        print("failing: " + ", ".join(o.case.id for o in bad))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
