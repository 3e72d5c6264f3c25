"""The egress guard: loopback by default, other hosts only with an attested allow-list entry."""

from __future__ import annotations

import pytest

from admitdx.errors import UsageError
from admitdx.llm import LLMClient, LLMConfig
from admitdx.llm.egress import AllowedHost, check_egress, parse_allow_hosts
from admitdx.systems import create


@pytest.mark.parametrize(
    "url",
    ["http://127.0.0.1:8080/v1", "http://localhost:1234/v1", "http://[::1]:8000/v1", "http://127.5.0.9/v1"],
)
def test_loopback_is_allowed(url: str) -> None:
    assert check_egress(url)["loopback"] is True


@pytest.mark.parametrize(
    "url",
    [
        "https://api.openai.com/v1",
        "http://10.0.0.5:8000/v1",
        "http://127.0.0.1.evil.example/v1",  # looks loopback, is not
        "http://localhost.example.org/v1",
    ],
)
def test_other_hosts_are_refused_without_allow_list(url: str) -> None:
    with pytest.raises(UsageError, match="refusing to send patient data"):
        check_egress(url)


def test_allow_list_entry_with_attestation_is_recorded() -> None:
    hosts = parse_allow_hosts([{"host": "API.Example.org", "attestation": "zero-retention agreement #42"}])
    record = check_egress("https://api.example.org/v1", hosts)
    assert record == {
        "host": "api.example.org",
        "loopback": False,
        "attestation": "zero-retention agreement #42",
    }
    with pytest.raises(UsageError):  # the entry covers that host only
        check_egress("https://other.example.org/v1", hosts)


def test_allow_list_entry_needs_an_attestation() -> None:
    with pytest.raises(UsageError, match="no attestation"):
        parse_allow_hosts([{"host": "api.example.org", "attestation": "  "}])


def test_client_and_llm_system_refuse_before_any_call(tmp_path) -> None:
    config = LLMConfig(base_url="https://api.example.org/v1", cache_path=tmp_path / "c.sqlite")
    with pytest.raises(UsageError, match=r"api\.example\.org"):
        LLMClient(config)
    with pytest.raises(UsageError, match="refusing"):
        create("llm", base_url="https://api.example.org/v1", cache_path=str(tmp_path / "c.sqlite"))
    allowed = [AllowedHost("api.example.org", "Azure deployment, human review disabled")]
    client = LLMClient(config, allow_hosts=allowed)
    assert client.egress["attestation"] == "Azure deployment, human review disabled"


@pytest.mark.parametrize(
    ("base_url", "recorded"),
    [
        ("http://127.0.0.1:41234/v1", "http://127.0.0.1/v1"),
        ("http://localhost:8080/v1", "http://localhost/v1"),
        ("http://[::1]:9000/v1", "http://[::1]/v1"),
        ("https://api.example.org:8443/v1", "https://api.example.org:8443/v1"),
    ],
)
def test_identity_drops_only_a_loopback_port(base_url: str, recorded: str) -> None:
    """The embedded server takes a new free port each start; a resumed run must not look stale."""
    assert LLMConfig(base_url=base_url).identity()["base_url"] == recorded
