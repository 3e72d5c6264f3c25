"""Studies: one YAML file names data roots, tasks, systems, matchers and scoring options; ``admitdx
study`` runs every stage in order through the stages' own resumable functions and ends with one
leaderboard (with the papers' published numbers beside it) and a per-encounter browser per task.
"""
