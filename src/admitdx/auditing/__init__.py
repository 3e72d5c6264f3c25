"""Auditing reference labels against admission-time evidence (EarlyDx §3.3, appendix G).

- :class:`RuleAuditor` — transparent rules, no LLM (``admitdx audit --system rules``);
- :class:`LLMAuditor` — an LLM decides supported / partial / unsupported with a quote;
- :func:`audit_dataset` — write a new dataset version with ``evidence_class`` on every reference;
- :func:`agreement` — compare an audited dataset with a synthetic root's ``_truth/``;
- :func:`write_rationales` — the gold-conditioned rationale teacher (appendix G).
"""

from admitdx.auditing.agreement import agreement
from admitdx.auditing.dataset import audit_dataset
from admitdx.auditing.llm_auditor import LLMAuditor
from admitdx.auditing.rules import RuleAuditor
from admitdx.auditing.verdict import Verdict

__all__ = ["LLMAuditor", "RuleAuditor", "Verdict", "agreement", "audit_dataset"]
