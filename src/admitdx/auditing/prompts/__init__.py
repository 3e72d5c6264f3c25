"""The auditing stage's prompt templates (evidence verifier, rationale teacher: EarlyDx appendix G)."""

from pathlib import Path

PROMPT_DIR = Path(__file__).parent
