"""admitdx tasks inside evaluation harnesses (Inspect AI, lm-evaluation-harness), both ways: export a
system's prompts as a harness task, and read the harness's log back as a prediction run."""
