"""The ``admitdx predict --config`` file: named systems and the hosts patient data may go to.

::

    allow_hosts:                       # optional; see admitdx.llm.egress
      - host: my-endpoint.example.org  # each entry a mapping: a bare `- NAME` is an error
        attestation: "zero-retention agreement, contract 2026-04"
    systems:
      knn-dense-bio:                   # the name predictions are filed under
        kind: knn                      # a registered kind (`admitdx systems` lists them)
        retriever: dense
        retriever_options: {model: /models/pubmedbert-st}
      tfidf-tuned:
        kind: tfidf
        emit: threshold

``--system NAME`` looks NAME up in the file first; a NAME that is not there but is a registered
kind runs that kind with its default options, so ``--system frequency`` needs no file at all.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from admitdx.errors import UsageError
from admitdx.llm.egress import AllowedHost, parse_allow_hosts
from admitdx.systems import registered
from admitdx.yaml_reader import read_yaml_file

CONFIG_KEYS = {"systems", "allow_hosts"}


@dataclass(frozen=True)
class SystemChoice:
    """A system to run: its name, the registered kind that builds it, and the kind's options."""

    name: str
    kind: str
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class RunConfig:
    systems: dict[str, SystemChoice] = field(default_factory=dict)
    allow_hosts: list[AllowedHost] = field(default_factory=list)

    def choose(self, name: str) -> SystemChoice:
        """The configured system ``name``, else the registered kind ``name`` with default options."""
        if name in self.systems:
            return self.systems[name]
        if name in registered():
            return SystemChoice(name, name)
        known = sorted(set(self.systems) | set(registered()))
        raise UsageError(
            f"no system named {name!r} in the config file or among the registered kinds",
            hint=f"choose one of: {', '.join(known)} (or add it under `systems:` in --config)",
        )


def load_config(path: Path | None) -> RunConfig:
    """Read and check a config file (None: an empty config). Errors name the file and the key."""
    if path is None:
        return RunConfig()
    path = Path(path)
    if not path.is_file():
        raise UsageError(f"config file {path} does not exist")
    data = read_yaml_file(path) or {}
    if not isinstance(data, dict):
        raise UsageError(f"{path}: the top level must be a mapping with `systems:` (and `allow_hosts:`)")
    unknown = sorted(set(data) - CONFIG_KEYS)
    if unknown:
        raise UsageError(
            f"{path}: unknown top-level key(s) {', '.join(unknown)}",
            hint=f"known keys: {', '.join(sorted(CONFIG_KEYS))}",
        )
    return parse_config(data, str(path))


def parse_config(data: dict[str, Any], path: str) -> RunConfig:
    """The ``systems:`` and ``allow_hosts:`` of a mapping read from ``path`` (a config or a study
    file, which shares these two keys), checked; other keys are the caller's."""
    systems_data = data.get("systems") or {}
    if not isinstance(systems_data, dict):
        raise UsageError(f"{path}: `systems` must map system names to their options")
    kinds = registered()
    systems: dict[str, SystemChoice] = {}
    for name, block in systems_data.items():
        if not isinstance(block, dict | None):
            raise UsageError(f"{path}: systems.{name} must be a mapping of options with a `kind:`")
        options = dict(block or {})
        kind = options.pop("kind", None)
        if kind not in kinds:
            raise UsageError(
                f"{path}: systems.{name} has kind {kind!r}, which is not a registered system kind",
                hint=f"set `kind:` to one of: {', '.join(kinds)}",
            )
        systems[str(name)] = SystemChoice(str(name), kind, options)
    return RunConfig(systems, parse_allow_hosts(data.get("allow_hosts"), where=str(path)))
