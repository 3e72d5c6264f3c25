"""The score stage: reads a dataset and prediction runs, picks the metric suite of the dataset's
task (:mod:`admitdx.scoring.suites`), and writes ``results.json``, ``per_instance.jsonl`` and a
manifest. Rendering those results is the report's job; this package writes no table or figure."""
