"""The checks of a study file that need more than its shape: every system's options, every matcher,
every score option — all of them before the first build, so that a typo costs nothing.

Before issue 30 a system's options were checked when a task first used it (a typo in an LLM option
cost every build and prediction before it in the file's order, and one in a system no task used was
never reported), and ``score:`` values reached the scoring stage after every prediction. Here every
entry is checked through the same typed options as the command line (``admitdx predict --set``:
:func:`admitdx.systems.options.checked_options`; ``admitdx score``: :class:`ScoreParams`, whose
ranges ``--seed -1`` now meets too; a matcher's keyword parameters), and every error is a
UsageError naming the file, the key path, the value and what is expected.

System kinds are checked from a table: a kind whose factory passes its further options to the LLM
client (``**options``: ``llm``, ``llm-codes``) also gets :func:`check_llm_client` — the client's own
ranges and names (``server:``, ``thinking:``, ``base_url``), an unset ``api_key_env``, the egress
allow-list — without a connection; a kind with checks of its own adds them to ``KIND_CHECKS``.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from admitdx.errors import UsageError
from admitdx.llm.config import LLMConfig
from admitdx.llm.egress import AllowedHost, check_egress
from admitdx.llm.open import LLM_OPTIONS, LOCAL
from admitdx.matching import MATCHERS
from admitdx.scoring.params import ScoreParams
from admitdx.systems.config import RunConfig, SystemChoice
from admitdx.systems.options import checked_options, takes_llm_options
from admitdx.tasks.spec import TaskSpec
from admitdx.typed_options import check_settings, hints_of

#: A check of one system entry beyond its typed options: (the entry, the allow-list, "FILE: systems.X").
SystemCheck = Callable[[SystemChoice, list[AllowedHost], str], None]

#: Score options that only some metric suites read (by :attr:`TaskSpec.suite`): set on a task whose
#: suite ignores them, they would change nothing without a word, so they are refused.
SUITE_ONLY = {"ccsr_table": ("final_diagnosis",)}
#: Score options that name a file that must exist before any work.
SCORE_FILES = ("ccsr_table",)
#: Matcher parameters the study fills in itself, not a user.
MATCHER_FILLED = frozenset({"embedder", "executor"})


def check_llm_client(options: dict[str, Any], allow_hosts: list[AllowedHost], key: str) -> None:
    """LLM client ``options`` as :class:`LLMConfig` reads them (names, ranges, ``server:``,
    ``thinking:``, the URL), the API key's variable set, the endpoint allowed — no connection made.
    ``base_url: local`` (the embedded server) is checked as its loopback default."""
    client = {k: v for k, v in options.items() if not (k == "base_url" and v == LOCAL)}
    try:
        config = LLMConfig.from_options(client)
        config.api_key()
        check_egress(config.base_url, allow_hosts, proxy=config.proxy)
    except UsageError as e:
        raise UsageError(f"{key}: {e.message}", hint=e.hint) from e


def _client_check(choice: SystemChoice, allow_hosts: list[AllowedHost], key: str) -> None:
    """A system entry's LLM client options (its predictor's own, such as ``prompt``, are typed
    already by :func:`checked_options`)."""
    check_llm_client({k: v for k, v in choice.options.items() if k in LLM_OPTIONS}, allow_hosts, key)


#: Per system kind, its checks beyond the typed options; a kind not listed gets the LLM client's
#: check when it takes the client's options (:func:`system_checks`).
KIND_CHECKS: dict[str, tuple[SystemCheck, ...]] = {}


def system_checks(kind: str) -> tuple[SystemCheck, ...]:
    if kind in KIND_CHECKS:
        return KIND_CHECKS[kind]
    return (_client_check,) if takes_llm_options(kind) else ()


def check_systems(config: RunConfig, where: str) -> None:
    """Every entry under ``systems:``, used by a task or not."""
    for name, choice in config.systems.items():
        key = f"{where}: systems.{name}"
        checked_options(choice.kind, name, choice.options, key)
        for check in system_checks(choice.kind):
            check(choice, config.allow_hosts, key)


def calls_a_model(choice: SystemChoice) -> bool:
    """Whether a system entry's kind calls a model through the LLM client (what ``llm_audit`` needs)."""
    return takes_llm_options(choice.kind)


def check_matcher(
    name: Any, options: dict[str, Any], allow_hosts: list[AllowedHost], where: str, key: str
) -> str:
    """A matcher's name and its ``matcher_set`` parameters (typed as its constructor's; the LLM
    judge's ``llm:`` as the LLM client's options) at ``key`` (``tasks.X`` or ``tasks.X.judge``)."""
    if not isinstance(name, str) or name not in MATCHERS:
        raise UsageError(
            f"{where}: {key}.matcher: {name!r} is not a matcher", hint=f"one of: {', '.join(MATCHERS)}"
        )
    module, cls = MATCHERS[name]
    factory = getattr(importlib.import_module(module), cls)
    at = f"{where}: {key}.matcher_set"
    check_settings(options, hints_of(factory, skip=MATCHER_FILLED), f"matcher {name}", at)
    if isinstance(options.get("llm"), dict):
        check_llm_client(options["llm"], allow_hosts, f"{at}.llm")
    return name


def score_params(
    study: dict[str, Any], own: dict[str, Any], spec: TaskSpec | None, where: str, key: str
) -> ScoreParams:
    """A run's :class:`ScoreParams` from the study's ``score:`` values and its own (at ``key``; no
    ``spec``: the study's alone, at ``score``): the same types and ranges as ``admitdx score``, the
    files they name present, and no option of the run's own that its task's suite does not read (at
    the study's level such an option serves the tasks that read it)."""
    at = f"{where}: {key}score"
    named = {**_typed_score(study, f"{where}: score"), **_typed_score(own, at)}
    for option, suites in SUITE_ONLY.items():
        if spec is not None and option in own and spec.suite not in suites:
            raise UsageError(
                f"{at}.{option}: task {spec.name} does not read it (its metric suite is {spec.suite}); "
                f"only {', '.join(suites)} does",
                hint=f"set {option} in the score: of such a task run only",
            )
    for option in SCORE_FILES:
        if named.get(option) is not None and not Path(named[option]).is_file():
            raise UsageError(f"{at}.{option}: {named[option]} is not a file")
    try:
        return ScoreParams(**named)
    except UsageError as e:
        raise UsageError(f"{at}: {e.message}", hint=e.hint) from e


def _typed_score(values: dict[str, Any], at: str) -> dict[str, Any]:
    """``score:`` values by their ScoreParams names (``n-bootstrap`` is ``n_bootstrap``), typed."""
    known = {f.name for f in dataclasses.fields(ScoreParams)} - {"matcher", "palette"}  # own keys, the study
    typed = {k: v for k, v in hints_of(ScoreParams).items() if k in known}
    return check_settings({str(k).replace("-", "_"): v for k, v in values.items()}, typed, "score:", at)
