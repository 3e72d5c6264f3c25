"""Reading EHR data: DuckDB views over a MIMIC-IV root (real or synthetic)."""
