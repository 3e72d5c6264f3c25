"""Task builders: one package per benchmark (EarlyDx now; CliniBench and ER-Reason later).

A builder turns a MIMIC-IV root into a dataset directory of :class:`admitdx.contracts.Instance`
records plus a manifest; the systems, matchers and metrics only ever read that directory.
"""
