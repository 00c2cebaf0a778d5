"""The shipped recordings replay offline (CI); a flow-changing config makes them fail;
the record and replay command lines work end to end against the real OP and SMTP inbox."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from mail_server import mail_server

from io_bindings._recording import Exchange, read_exchanges
from io_bindings.replay import ReplayDiverged, assert_replays, replay
from sansio_auth import AuthConfig
from sansio_auth.providers import Email
from sansio_auth.providers.email import EmailProvider
from tests.oidc_op.provider import OpenIDProvider, oidc_op, oidc_op_redirect_uris
from tests.recordings import apps
from tests.recordings.make import ADDRESS, record_email, record_oidc

__all__ = ["oidc_op", "oidc_op_redirect_uris"]

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


@pytest.mark.parametrize("name", ["oidc", "email"])
def test_shipped_recording_replays(name: str) -> None:
    assert_replays(HERE / f"{name}.jsonl", getattr(apps, name)())


def test_shipped_oidc_recording_replays_live() -> None:
    """Callbacks run for real against the recorded provider traffic. (Not the e-mail one:
    live, its SMTP sender would try to send.)"""
    assert replay(HERE / "oidc.jsonl", apps.oidc(), live=True) is None


def test_the_oidc_recording_is_a_full_sign_in_with_pkce_state_and_nonce() -> None:
    _, start, callback, session = read_exchanges(str(HERE / "oidc.jsonl"))
    location = start.response["location"]
    for parameter in ("code_challenge=", "state=", "nonce="):
        assert parameter in location

    def endpoints(exchange: Exchange) -> list[str]:
        urls = [step.action.get("url", "") for step in exchange.steps]
        return [url.rsplit("/", 1)[-1] for url in urls if url]

    assert endpoints(start) == ["openid-configuration"]
    assert endpoints(callback) == ["token", "jwks"]
    assert session.response["status"] == 200


def test_shipped_recordings_hold_placeholders_not_secrets() -> None:
    text = (HERE / "oidc.jsonl").read_text()
    assert apps.SECRET not in text
    [*_, callback, _] = read_exchanges(str(HERE / "oidc.jsonl"))
    token = next(s for s in callback.steps if s.action.get("url", "").endswith("/token"))
    form = token.action["body"]["text"]
    assert "code=__redacted_" in form
    assert token.action["headers"][-1][1].startswith("Basic __redacted_") or (
        "client_secret=__redacted_" in form
    )
    body = json.loads(token.event["body"]["text"])
    assert body["access_token"].startswith("__redacted_")
    assert body["id_token"].rsplit(".", 1)[1].startswith("__redacted_")
    for exchange in read_exchanges(str(HERE / "email.jsonl")):
        for _, value in exchange.response["cookies"]:
            assert value == "" or value.startswith("__redacted_")


def test_a_config_change_that_alters_the_oidc_flow_fails_replay() -> None:
    config = apps.oidc()
    provider = dict(config.providers[0], checks=["pkce", "state"])  # no nonce any more
    changed = AuthConfig(secret=apps.SECRET, trust_host=True, providers=[provider])
    with pytest.raises(ReplayDiverged) as caught:
        assert_replays(HERE / "oidc.jsonl", changed)
    assert caught.value.divergence.exchange == 2
    assert "Location differs" in caught.value.divergence.what


def test_a_config_change_that_alters_the_email_flow_fails_replay() -> None:
    config = apps.email()
    provider = config.providers[0]
    assert isinstance(provider, EmailProvider)
    changed = AuthConfig(
        secret=apps.SECRET,
        trust_host=True,
        adapter=config.adapter,
        providers=[
            Email(send_verification_request=provider.send_verification_request, max_age=600)
        ],
    )
    divergence = replay(HERE / "email.jsonl", changed)
    assert divergence is not None
    assert divergence.recorded["method"] == "create_verification_token"


def replay_cli(
    path: Path, spec: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "io_bindings.replay", str(path), "--config", spec]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)


def test_replay_cli_exits_0_then_1_with_the_divergence(tmp_path: Path) -> None:
    assert replay_cli(HERE / "oidc.jsonl", "tests.recordings.apps:oidc").returncode == 0
    broken = tmp_path / "oidc.jsonl"
    broken.write_text(
        (HERE / "oidc.jsonl").read_text().replace("/auth/signin/op", "/auth/signin/xx")
    )
    result = replay_cli(broken, "tests.recordings.apps:oidc")
    assert result.returncode == 1
    assert result.stdout.startswith("exchange 2: ")


@pytest.mark.e2e
def test_record_cli_then_replay_oidc(
    tmp_path: Path, oidc_op: OpenIDProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "oidc.jsonl"
    settings = record_oidc(out, oidc_op)
    assert len(read_exchanges(str(out))) == 4
    monkeypatch.setenv("RECORDING_ISSUER", settings["issuer"])
    monkeypatch.setenv("RECORDING_CLIENT_ID", settings["client_id"])
    assert_replays(out, apps.oidc())


@pytest.mark.e2e
def test_record_cli_then_replay_email(tmp_path: Path) -> None:
    out = tmp_path / "email.jsonl"
    with mail_server() as mail:
        record_email(out, mail)
    assert len(read_exchanges(str(out))) == 4
    assert_replays(out, apps.email())


@pytest.mark.e2e
def test_record_cli_redacts_emails_and_still_replays(tmp_path: Path) -> None:
    out = tmp_path / "email.jsonl"
    with mail_server() as mail:
        record_email(out, mail, "--redact-emails")
    text = out.read_text()
    assert ADDRESS not in text
    assert ADDRESS.replace("@", "%40") not in text
    assert "@redacted.invalid" in text
    assert all(exchange.emails_redacted for exchange in read_exchanges(str(out)))
    assert_replays(out, apps.email())
