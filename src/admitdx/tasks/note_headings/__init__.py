"""The heading grammar both note cutters share (CliniBench, ER-Reason): see README.md."""

from admitdx.tasks.note_headings.grammar import HeadingLine, heading_key, heading_lines, run_on_headings

__all__ = ["HeadingLine", "heading_key", "heading_lines", "run_on_headings"]
