"""Clinical code systems: ICD-9-CM / ICD-10-CM titles, chapters, categories (``icd``) and condition
code sets (``codesets``). Codes are handled in MIMIC's dot-less form throughout."""
