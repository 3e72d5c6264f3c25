"""Clinical code systems: ICD-9-CM / ICD-10-CM titles, chapters, categories (``icd``), condition
code sets (``codesets``), ICD-9-CM → ICD-10-CM through every GEM target (``gems``), CCSR
categories (``ccsr``) and CMS-HCC categories (``hcc``). Codes are handled in MIMIC's dot-less form
throughout."""
