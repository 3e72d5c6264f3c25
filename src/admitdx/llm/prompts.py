"""Prompt templates: versioned files whose content hash enters the cache key and the manifest.

A template is a Jinja2 file split into chat messages by marker lines ``[system]``, ``[user]`` and
``[assistant]`` (few-shot exemplars are rendered as user/assistant turns). The shipped templates
belong to the stage or task that uses them (``tasks/<task>/prompts/NAME.vN.j2``,
``auditing/prompts/``): this module only renders; a user may pass a path to their own file. Any
edit changes the SHA-256, hence the cache key (no stale answers) and the manifest (a run made with
another prompt refuses to resume).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2

from admitdx.errors import UsageError
from admitdx.runs import sha256_text

_MARKER = re.compile(r"^\[(system|user|assistant)\]\s*$", re.MULTILINE)
_ENV = jinja2.Environment(undefined=jinja2.StrictUndefined, keep_trailing_newline=False, autoescape=False)


@dataclass(frozen=True)
class PromptTemplate:
    name: str
    text: str
    sha256: str

    def identity(self) -> dict[str, str]:
        """What enters cache keys and manifests."""
        return {"name": self.name, "sha256": self.sha256}

    def render(self, **values: Any) -> list[dict[str, str]]:
        """Render and split into ``[{"role": ..., "content": ...}]`` at the marker lines."""
        try:
            rendered = _ENV.from_string(self.text).render(**values)
        except jinja2.UndefinedError as e:
            raise UsageError(
                f"prompt {self.name}: {e}", hint="the template uses a variable this stage does not set"
            ) from e
        parts = _MARKER.split(rendered)
        messages = [
            {"role": role, "content": content.strip()}
            for role, content in zip(parts[1::2], parts[2::2], strict=True)
        ]
        if not messages or messages[-1]["role"] != "user":
            raise UsageError(f"prompt {self.name} must end with a [user] message")
        return messages


def load_prompt(name_or_path: str | Path, prompt_dir: Path) -> PromptTemplate:
    """A template shipped in ``prompt_dir`` by name (``predict.v1``), or a template file by path."""
    shipped_path = prompt_dir / f"{name_or_path}.j2"
    path = shipped_path if shipped_path.is_file() else Path(name_or_path)
    if not path.is_file():
        shipped = ", ".join(sorted(p.stem for p in prompt_dir.glob("*.j2")))
        raise UsageError(f"prompt template {name_or_path} not found", hint=f"shipped templates: {shipped}")
    text = path.read_text(encoding="utf-8")
    return PromptTemplate(path.stem, text, sha256_text(text))
