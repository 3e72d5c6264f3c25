"""Lines ``admitdx build`` prints about what a dataset can support, shared by every task's
``report_build``: a test split too small for intervals, and sections that are always empty.

The bootstrap resamples patients: with a few dozen patients its percentile intervals are coarse
or degenerate (zero width, or all of [0, 1]) and paired p-values have too few distinct resamples,
so a build says so when it writes such a split rather than leaving it to the reader of a report.
"""

from __future__ import annotations

from collections.abc import Sequence

MIN_TEST_ENCOUNTERS = 100
MIN_TEST_PATIENTS = 60


def split_size_warning(
    encounters: int, patients: int, fraction_option: str = "--test-fraction"
) -> str | None:
    """A warning when the test split is below :data:`MIN_TEST_ENCOUNTERS` encounters or
    :data:`MIN_TEST_PATIENTS` patients; None when it is large enough."""
    if encounters >= MIN_TEST_ENCOUNTERS and patients >= MIN_TEST_PATIENTS:
        return None
    return (
        f"[yellow]warning[/]: the test split has {encounters} encounters from {patients} patients, too few "
        f"for bootstrap intervals that mean something (aim for ≥ {MIN_TEST_ENCOUNTERS} encounters from "
        f"≥ {MIN_TEST_PATIENTS} patients): raise {fraction_option} or use a larger source."
    )


def absent_sections_note(sections: Sequence[str]) -> str | None:
    """Names the sections every instance will have empty because their source module is absent."""
    if not sections:
        return None
    return (
        f"[yellow]note[/]: always empty, their source module is absent from this MIMIC root: "
        f"{', '.join(sections)} (reports show them as absent, not as 0 % coverage)."
    )
