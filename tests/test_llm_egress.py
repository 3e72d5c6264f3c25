"""The egress guard: loopback by default, other hosts only with an attested allow-list entry."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from admitdx.errors import UsageError
from admitdx.llm import LLMClient, LLMConfig
from admitdx.llm.client import _is_transient
from admitdx.llm.egress import AllowedHost, check_egress, parse_allow_hosts
from admitdx.llm.redact import redact_options, redact_text, redact_url
from admitdx.llm.urls import connect_url, hosts_file_loopback, is_loopback
from admitdx.systems import create
from admitdx.tasks.registry import get_task


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
        parse_allow_hosts([{"host": "api.example.org"}])


def test_client_and_llm_system_refuse_before_any_call(tmp_path) -> None:
    config = LLMConfig(base_url="https://api.example.org/v1", cache_path=tmp_path / "c.sqlite")
    with pytest.raises(UsageError, match=r"api\.example\.org"):
        LLMClient(config)
    with pytest.raises(UsageError, match="refusing"):
        create(
            "llm",
            base_url="https://api.example.org/v1",
            cache_path=str(tmp_path / "c.sqlite"),
            task=get_task("earlydx"),
        )
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


@pytest.mark.parametrize("attestation", [True, "", "   ", "yes", "ok ok ok", 42, "zero-retention"])
def test_an_attestation_must_be_real_text(attestation: object) -> None:
    with pytest.raises(UsageError, match="no real attestation"):
        parse_allow_hosts([{"host": "api.example.org", "attestation": attestation}])


def test_allow_hosts_entries_have_exactly_the_documented_shape() -> None:
    with pytest.raises(UsageError, match="must be a mapping") as bare:
        parse_allow_hosts(["api.example.org"], where="run.yaml")
    assert "run.yaml" in str(bare.value) and "- {host: NAME, attestation:" in str(bare.value)
    with pytest.raises(UsageError, match="unknown key"):
        parse_allow_hosts([{"host": "a.org", "attestation": "zero retention deal", "attestaton": "x"}])
    assert parse_allow_hosts([{"host": "a.org", "attestation": "zero retention"}])[0].host == "a.org"


def test_a_proxy_is_a_receiving_host_and_is_recorded_without_credentials() -> None:
    with pytest.raises(UsageError, match=r"through the proxy proxy\.example\.org"):
        check_egress("http://127.0.0.1:8080/v1", proxy="http://proxy.example.org:3128")
    hosts = [AllowedHost("proxy.example.org", "corporate proxy, TLS-inspecting, no logging of bodies")]
    record = check_egress("http://127.0.0.1:8080/v1", hosts, proxy="http://u:secret@proxy.example.org:3128")
    assert record == {
        "host": "127.0.0.1",
        "loopback": False,  # the text leaves the machine through the proxy
        "proxy": {
            "url": "http://***@proxy.example.org:3128",
            "host": "proxy.example.org",
            "attestation": "corporate proxy, TLS-inspecting, no logging of bodies",
        },
    }


def test_a_refused_proxy_tunnel_is_not_retried() -> None:
    assert not _is_transient(httpx.ProxyError("403 Forbidden"))
    assert _is_transient(httpx.ConnectError("refused"))


def test_identity_never_records_url_credentials() -> None:
    config = LLMConfig(base_url="https://user:pw-123@api.example.org:8443/v1")
    assert config.identity()["base_url"] == "https://api.example.org:8443/v1"
    assert LLMConfig(base_url="http://tok@127.0.0.1:9/v1").identity()["base_url"] == "http://127.0.0.1/v1"


def test_redaction_masks_urls_and_echoed_keys() -> None:
    assert redact_url("http://alice:pw@proxy:3128/x") == "http://***@proxy:3128/x"
    assert redact_url("http://127.0.0.1:8080/v1") == "http://127.0.0.1:8080/v1"
    assert redact_options({"base_url": "http://a:b@h/v1", "k": 5, "l": ["http://t@h"]}) == {
        "base_url": "http://***@h/v1",
        "k": 5,
        "l": ["http://***@h"],
    }
    key = "sk-proj-AbCdEfGh12345678"
    text = f"bad key sk-proj-AbCd****5678 and {key}; user pw p4ss in 'p4ss'"
    assert redact_text(text, [key, "p4ss", "none"]) == "bad key *** and ***; user pw *** in '***'"
    assert redact_text("no secrets none here", ["none"]) == "no secrets none here"


def test_localhost_is_pinned_to_its_hosts_file_loopback_address(tmp_path: Path) -> None:
    hosts = tmp_path / "hosts"
    hosts.write_text("# comment\n\n10.9.8.7 localhost\n::1 localhost ip6-localhost  # v6\n")
    assert hosts_file_loopback("localhost", hosts) == "::1"  # 10.9.8.7 is not loopback: skipped
    assert connect_url("http://localhost:8080/v1", hosts) == ("http://[::1]:8080/v1", "localhost:8080")
    assert connect_url("https://k@localhost/v1", tmp_path / "missing") == (
        "https://k@127.0.0.1/v1",
        "localhost",
    )
    assert connect_url("http://127.0.0.1:5/v1", hosts) == ("http://127.0.0.1:5/v1", None)
    assert not is_loopback("localhost.localdomain") and not is_loopback("ip6-localhost")
    assert is_loopback("[::1]") and is_loopback("LOCALHOST") and is_loopback("127.8.9.10")
