"""The egress guard through the real command line, against loopback servers that record every request.

Each test starts a loopback OpenAI-compatible endpoint and a loopback "proxy", runs ``admitdx
predict`` (or ``admitdx match --matcher llm_judge``) and checks where the requests went, what the
manifest says and what the user is told. Nothing is ever sent to a non-loopback address: the proxy
variables point at the loopback proxy, which would record any request that reached it.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from tests.egress_servers import Endpoint, Proxy
from tests.systems_data import instance, write_dataset

from admitdx.cli import main
from admitdx.llm.cache import ResponseCache
from admitdx.llm.egress import PROXY_ENV_VARS

N_TEST = 4
ATTESTED = "loopback test proxy, run by this test and discarding everything"


def _dataset(tmp_path: Path) -> Path:
    train = [instance("tr0", "train", "cough and fever", ["Pneumonia"])]
    test = [instance(f"te{i}", "test", f"complaint {i}", [f"Sepsis type {i}"]) for i in range(N_TEST)]
    return write_dataset(tmp_path / "ds", train + test)


def _predict_args(dataset: Path, out: Path, base_url: str, cache: Path, *extra: str) -> list[str]:
    sets = [f"base_url={base_url}", f"cache_path={cache}", "concurrency=1", "retries=1"]
    args = ["predict", "--dataset", str(dataset), "--system", "llm", "--out", str(out)]
    return args + [a for s in [*sets, *extra] for a in ("--set", s)]


def _flat(text: str) -> str:
    """Output with rich's line wrapping undone, so a message can be matched as one string."""
    return " ".join(text.split())


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch):
    """``admitdx ARGS`` through the real entry point (main's error handling); (exit code, output)."""
    monkeypatch.setattr(sys, "argv", ["admitdx", *args])
    monkeypatch.setenv("COLUMNS", "250")
    with pytest.raises(SystemExit) as exit_info:
        main()
    out, err = capsys.readouterr()
    return exit_info.value.code, _flat(out + err)


def _subprocess_cli(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-c", "from admitdx.cli import main; main()", *args]
    return subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "COLUMNS": "250", **env})


def _manifest(out: Path) -> dict:
    return json.loads((out / "manifest.json").read_text())


def test_proxy_variables_are_ignored_by_predict_and_by_the_judge(tmp_path: Path) -> None:
    """The reported repro: with every proxy variable set, all traffic still goes straight to loopback."""
    dataset, out, cache = _dataset(tmp_path), tmp_path / "pred", tmp_path / "llm.sqlite"
    with Endpoint() as endpoint, Proxy(refuse=True) as proxy:
        env = {name: proxy.url for name in PROXY_ENV_VARS} | {
            "NO_PROXY": "",
            "no_proxy": "",
            "LLM_KEY": "k-123",
        }
        run = _subprocess_cli(
            _predict_args(dataset, out, endpoint.base_url, cache, "api_key_env=LLM_KEY"), env
        )
        assert run.returncode == 0, run.stderr
        judge_llm = f"llm={{base_url: '{endpoint.base_url}', cache_path: '{tmp_path / 'judge.sqlite'}'}}"
        match_args = ["match", "--dataset", str(dataset), "--predictions", str(out), "--matcher", "llm_judge"]
        judged = _subprocess_cli([*match_args, "--param", judge_llm], env)
        assert judged.returncode == 0, judged.stderr
    assert proxy.seen == []  # not one request, not one prompt, not one key
    prompts = [s for s in endpoint.seen if "diagnoses" in json.dumps(s.body.get("response_format"))]
    judge_calls = [s for s in endpoint.seen if "pairs" in json.dumps(s.body.get("response_format"))]
    assert (len(prompts), len(judge_calls)) == (N_TEST, N_TEST)
    assert {s.headers["authorization"] for s in prompts} == {"Bearer k-123"}
    egress = _manifest(out)["inputs"]["system_inputs"]["egress"]
    assert egress == {"host": "127.0.0.1", "loopback": True}


def test_a_proxy_needs_an_attested_allow_list_entry(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    dataset = _dataset(tmp_path)
    with Endpoint() as endpoint, Proxy() as proxy:
        args = _predict_args(
            dataset, tmp_path / "p", endpoint.base_url, tmp_path / "c.sqlite", f"proxy={proxy.url}"
        )
        code, output = run_cli(args, capsys, monkeypatch)
    assert code == 2
    assert "refusing to route patient data through the proxy 127.0.0.1" in output
    assert "allow_hosts" in output and "Traceback" not in output
    assert (endpoint.seen, proxy.seen) == ([], [])


def test_an_attested_proxy_carries_the_run_and_its_password_is_never_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    dataset, out = _dataset(tmp_path), tmp_path / "pred"
    config = tmp_path / "run.yaml"
    config.write_text(f"allow_hosts:\n  - host: 127.0.0.1\n    attestation: {ATTESTED}\n")
    with Endpoint() as endpoint, Proxy() as proxy:
        proxy_url = f"http://alice:pr0xy-s3cret-pw@127.0.0.1:{proxy.port}"
        args = _predict_args(dataset, out, endpoint.base_url, tmp_path / "c.sqlite", f"proxy={proxy_url}")
        code, output = run_cli([*args, "--config", str(config)], capsys, monkeypatch)
    assert code == 0, output
    assert len(proxy.seen) == len(endpoint.seen) == N_TEST  # every request went through the proxy
    assert all(s.target.startswith(f"http://127.0.0.1:{endpoint.port}/v1/") for s in proxy.seen)
    assert {s.headers["proxy-authorization"] for s in proxy.seen} == {"Basic YWxpY2U6cHIweHktczNjcmV0LXB3"}
    egress = _manifest(out)["inputs"]["system_inputs"]["egress"]
    assert egress["proxy"] == {
        "url": f"http://***@127.0.0.1:{proxy.port}",
        "host": "127.0.0.1",
        "attestation": ATTESTED,
    }
    assert "pr0xy-s3cret-pw" not in (out / "manifest.json").read_text() + output


def test_a_proxy_403_is_reported_as_the_proxy_s_refusal_without_retries(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    dataset = _dataset(tmp_path)
    config = tmp_path / "run.yaml"
    config.write_text(f"allow_hosts:\n  - {{host: 127.0.0.1, attestation: '{ATTESTED}'}}\n")
    with Endpoint() as endpoint, Proxy(refuse=True) as proxy:
        args = _predict_args(
            dataset, tmp_path / "p", endpoint.base_url, tmp_path / "c.sqlite", f"proxy={proxy.url}"
        )
        code, output = run_cli([*args, "--config", str(config)], capsys, monkeypatch)
    assert code == 2 and "Traceback" not in output
    assert (
        f"HTTP 403 Forbidden for {endpoint.base_url}/chat/completions, sent through the proxy {proxy.url}"
        in output
    )
    assert "x-squid-error, so the proxy itself most likely refused" in output
    assert "check the proxy's access rules" in output
    assert "the server at" not in output
    assert (len(endpoint.seen), len(proxy.seen)) == (0, 1)


def test_a_refused_tunnel_to_an_https_endpoint_is_the_proxy_s_refusal_without_retries(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "run.yaml"
    config.write_text(f"allow_hosts:\n  - {{host: 127.0.0.1, attestation: '{ATTESTED}'}}\n")
    with Proxy(refuse=True) as proxy:
        url = "https://127.0.0.1:9/v1"  # never reached: the proxy refuses the tunnel
        args = _predict_args(
            _dataset(tmp_path), tmp_path / "p", url, tmp_path / "c.sqlite", f"proxy={proxy.url}"
        )
        code, output = run_cli([*args, "--config", str(config)], capsys, monkeypatch)
    assert code == 2 and "Traceback" not in output
    assert f"the proxy {proxy.url} refused to open a tunnel to {url}/chat/completions" in output
    assert "the server was not reached" in output
    assert [(s.method, s.target) for s in proxy.seen] == [("CONNECT", "127.0.0.1:9")]


def test_a_server_refusal_names_the_server_and_never_prints_the_key_or_url_password(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    key = "sk-live-9f8e7d6c5b4a39281706"
    echo = f'{{"error": "Incorrect API key provided: sk-live-9f8e7d6c****1706 (full: {key})"}}'
    monkeypatch.setenv("LLM_KEY", key)
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:9")  # set, ignored, and said so
    dataset, out = _dataset(tmp_path), tmp_path / "pred"
    with Endpoint(refuse=(401, echo)) as endpoint:
        url = f"http://bob:url-pa55word@127.0.0.1:{endpoint.port}/v1"
        args = _predict_args(dataset, out, url, tmp_path / "c.sqlite", "api_key_env=LLM_KEY")
        code, output = run_cli(args, capsys, monkeypatch)
    assert code == 2 and "Traceback" not in output
    assert (
        f"the server at http://***@127.0.0.1:{endpoint.port}/v1/chat/completions answered HTTP 401" in output
    )
    assert "Incorrect API key provided: *** (full: ***)" in output
    assert "HTTPS_PROXY is set but ignored" in output
    manifest = (out / "manifest.json").read_text()
    for secret in ("9f8e7d6c", "5b4a3928", "url-pa55word"):
        assert secret not in output and secret not in manifest
    assert endpoint.seen[0].headers["authorization"].startswith("Basic ")  # URL userinfo is basic auth


def test_a_redirect_is_not_followed_even_to_another_loopback_port(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with Endpoint() as target:
        elsewhere = f"http://carol:redirect-pw@127.0.0.1:{target.port}/v1/chat/completions"
        with Endpoint(redirect=elsewhere) as endpoint:
            args = _predict_args(_dataset(tmp_path), tmp_path / "p", endpoint.base_url, tmp_path / "c.sqlite")
            code, output = run_cli(args, capsys, monkeypatch)
    assert code == 2 and "Traceback" not in output
    assert (
        f"answered HTTP 307, a redirect to http://***@127.0.0.1:{target.port}/v1/chat/completions" in output
    )
    assert "which is not followed" in output and "redirect-pw" not in output
    assert (len(endpoint.seen), len(target.seen)) == (1, 0)  # one request, not retried, never followed


def test_localhost_is_connected_by_address_and_never_resolved(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With every name lookup failing, ``localhost`` still works: it is never handed to a resolver."""
    real = socket.getaddrinfo

    def literal_addresses_only(host: object, *args: object, **kw: object) -> object:
        if isinstance(host, bytes):
            host = host.decode()
        socket.inet_pton(
            socket.AF_INET6 if ":" in str(host) else socket.AF_INET, str(host)
        )  # raises on a name
        return real(host, *args, **kw)

    monkeypatch.setattr(socket, "getaddrinfo", literal_addresses_only)
    dataset, out = _dataset(tmp_path), tmp_path / "pred"
    with Endpoint() as endpoint:
        url = f"http://localhost:{endpoint.port}/v1"
        code, output = run_cli(_predict_args(dataset, out, url, tmp_path / "c.sqlite"), capsys, monkeypatch)
    assert code == 0, output
    assert len(endpoint.seen) == N_TEST
    assert {s.headers["host"] for s in endpoint.seen} == {f"localhost:{endpoint.port}"}
    assert _manifest(out)["inputs"]["system_inputs"]["egress"] == {"host": "localhost", "loopback": True}


@pytest.mark.parametrize("name", ["localhost.localdomain", "ip6-localhost", "localhost.", "127.1"])
def test_names_that_only_usually_mean_loopback_are_refused(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with Endpoint() as endpoint:
        args = _predict_args(
            _dataset(tmp_path), tmp_path / "p", f"http://{name}:{endpoint.port}/v1", tmp_path / "c"
        )
        code, output = run_cli(args, capsys, monkeypatch)
    assert code == 2
    assert f"refusing to send patient data to {name}" in output
    assert endpoint.seen == []


@pytest.mark.parametrize(
    ("config", "sets", "message"),
    [
        (
            "allow_hosts:\n  - api.example.org\n",
            [],
            "an allow_hosts entry must be a mapping with host and attestation, not str 'api.example.org'",
        ),
        (
            "allow_hosts:\n  - {host: api.example.org, attestation: true}\n",
            [],
            "no real attestation (got True)",
        ),
        (
            "allow_hosts:\n  - {host: api.example.org, attestation: ok}\n",
            [],
            "no real attestation (got 'ok')",
        ),
        ("allow_hosts: api.example.org\n", [], "`allow_hosts` must be a list of entries"),
        ("", ["base_url=http://127.0.0.1:8080/ v1"], "contains a space at position 23"),
        # YAML reads "a: b" as a mapping; the typed --set check (issue 23) refuses it by type
        ("", ["base_url=http://127.0.0.1: 8080/v1"], "expects a text for 'base_url'"),
        ("", ["base_url=http://127.0.0.1:80800/v1"], "has an invalid port"),
        ("", ["base_url=127.0.0.1:8080/v1"], "must start with http:// or https://"),
        ("", ["proxy=http://proxy example:3128"], "proxy 'http://proxy example:3128' contains a space"),
    ],
)
def test_bad_endpoint_settings_are_usage_errors(
    config: str,
    sets: list[str],
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = tmp_path / "run.yaml"
    path.write_text(config + "systems: {}\n")
    args = ["predict", "--dataset", str(_dataset(tmp_path)), "--system", "llm", "--out", str(tmp_path / "p")]
    args += ["--config", str(path), *[a for s in sets for a in ("--set", s)]]
    code, output = run_cli(args, capsys, monkeypatch)
    assert code == 2 and "Traceback" not in output
    assert message in output


def _fill_then_damage(path: Path) -> None:
    """A real cache with enough rows to span many pages, then every page after the first overwritten."""
    cache = ResponseCache(path)
    for i in range(60):
        cache.put(f"k{i:03d}", {"model": "m"}, "x" * 3000, usage=None, latency_s=None, finish_reason=None)
    cache.close()
    data = bytearray(path.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    data[page:] = bytes(range(256)) * ((len(data) - page) // 256) + bytes((len(data) - page) % 256)
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("damage", ["not sqlite", "pages overwritten"])
def test_a_damaged_cache_is_exit_2_with_what_to_do(
    damage: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "llm.sqlite"
    if damage == "not sqlite":
        cache.write_bytes(b"this was a cache before a disk hiccup\n" * 200)
    else:
        _fill_then_damage(cache)
    with Endpoint() as endpoint:
        args = _predict_args(_dataset(tmp_path), tmp_path / "p", endpoint.base_url, cache)
        code, output = run_cli(args, capsys, monkeypatch)
    assert code == 2 and "Traceback" not in output
    assert f"the LLM response cache {cache} is damaged" in output
    assert f"mv {cache} {cache}.damaged" in output
    assert endpoint.seen == []  # the cache is read before any request: nothing was asked twice


def test_a_cache_path_that_is_a_folder_is_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "cachedir"
    folder.mkdir()
    with Endpoint() as endpoint:
        code, output = run_cli(
            _predict_args(_dataset(tmp_path), tmp_path / "p", endpoint.base_url, folder), capsys, monkeypatch
        )
    assert code == 2 and "Traceback" not in output
    assert f"cannot use the LLM response cache {folder}" in output
