"""admitdx: build, run and score admission-time diagnosis benchmarks on MIMIC-IV-shaped EHR data."""

__version__ = "0.1.0"
