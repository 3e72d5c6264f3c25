"""YAML as researchers write it: ``1e-4`` is a number.

PyYAML implements YAML 1.1, where a float needs a dot (``1.0e-4``), so ``learning_rate: 1e-4`` in
a config file or ``--set learning_rate=1e-4`` would arrive as the *string* "1e-4" and fail deep
inside a library. This loader adds YAML 1.2's float pattern to the safe loader.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from admitdx.errors import UsageError


class _Loader(yaml.SafeLoader):
    pass


_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?[eE][-+]?[0-9]+$"),
    list("-+0123456789"),
)


def load_yaml(text: str, source: str) -> Any:
    """``yaml.safe_load`` that also reads ``1e-4`` and ``5E3`` as floats (``_Loader`` is a
    SafeLoader); bad YAML is a UsageError naming ``source`` (a file, or the option it came from)."""
    try:
        return yaml.load(text, Loader=_Loader)
    except yaml.YAMLError as e:
        raise UsageError(f"{source} is not valid YAML: {e}") from e
