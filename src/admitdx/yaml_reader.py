"""YAML as researchers write it: ``1e-4`` is a number, and a key given twice is an error.

PyYAML implements YAML 1.1, where a float needs a dot (``1.0e-4``), so ``learning_rate: 1e-4`` in
a config file or ``--set learning_rate=1e-4`` would arrive as the *string* "1e-4" and fail deep
inside a library. This loader adds YAML 1.2's float pattern to the safe loader.

PyYAML also keeps the last of two equal keys in a mapping without a word: a task block pasted twice
under one name silently dropped the first from a study's leaderboard (issue 30). YAML 1.2 says keys
are unique, so a repeated key is refused here with both line numbers. Files are read as UTF-8 (a
byte-order mark accepted); any other encoding is refused naming the file and the first bad byte.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from admitdx.errors import UsageError


class _Loader(yaml.SafeLoader):
    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        """The safe loader's mapping, after refusing a key that appears twice in it."""
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            line = key_node.start_mark.line + 1
            try:
                first = seen.get(key)
                seen.setdefault(key, line)
            except TypeError:  # an unhashable key: the safe loader's own error says so below
                continue
            if first is not None:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r} (lines {first} and {line})", key_node.start_mark
                )
        return super().construct_mapping(node, deep=deep)


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


def read_yaml_file(path: Path) -> Any:
    """A YAML file read as UTF-8 (a byte-order mark accepted); another encoding (UTF-16, Latin-1)
    is a UsageError naming the file and the offset of the first byte that is not UTF-8."""
    raw = Path(path).read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        bom = " (it starts with a UTF-16 byte-order mark)" if raw[:2] in (b"\xff\xfe", b"\xfe\xff") else ""
        raise UsageError(
            f"{path} is not UTF-8{bom}: byte {e.start} is {raw[e.start : e.start + 1]!r}",
            hint="save the file as UTF-8",
        ) from e
    return load_yaml(text, str(path))
