"""The e-mail API providers through the engine: the exact request each sends (``SendHTTP``),
the key from ``AUTH_<ID>_KEY``, refusals ending on the sign-in page with nothing left behind,
and the ``nodemailer`` id. (tests/io_bindings/email/test_http_senders.py sends them to a
real local server that checks each API's documented request shape.)"""

from __future__ import annotations

import base64
import email.parser
import email.policy
import json

import pytest

from sansio_auth.errors import Configuration
from sansio_auth.events import HTTPResponse, OutboundRequest
from sansio_auth.providers import (
    EMAIL_API_FACTORIES,
    ForwardEmail,
    Loops,
    Mailgun,
    Nodemailer,
    Postmark,
    Resend,
    SendGrid,
)
from sansio_auth.providers.email_apis import api_error, multipart_form
from tests.sansio_auth.adapter_faults import FaultyAdapter
from tests.sansio_auth.driver import ORIGIN, AuthPair

KEY = "re_123456789_abcdefghijklmnop"
SENDER = "Shop <no-reply@shop.example>"
TO = "ada@example.com"
VERIFY = f"{ORIGIN}/auth/verify-request?provider={{id}}&type=email"
REFUSED = f"{ORIGIN}/auth/signin?error=EmailSignin"


class Outbound:
    """Answers every request with ``answer`` and keeps them."""

    def __init__(self, answer: HTTPResponse | Exception) -> None:
        self.answer = answer
        self.requests: list[OutboundRequest] = []

    def __call__(self, request: OutboundRequest) -> HTTPResponse:
        self.requests.append(request)
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


def site(provider, *, answer=None, env=None):
    db = FaultyAdapter()
    pair = AuthPair.build(
        adapter=db, providers=[provider], env=env or {}, events={"sign_in": lambda **m: None}
    )
    outbound = Outbound(answer or HTTPResponse(status=200, body=b"{}"))
    pair.performer.http = outbound
    return pair, db, outbound


def ask(pair, provider_id, address=TO):
    browser = pair.browser
    pair.performer.clear()
    return browser.post(
        f"/auth/signin/{provider_id}", form={"csrfToken": browser.csrf_token(), "email": address}
    )


def sent(provider, **kwargs):
    """The one request ``provider`` sends for a sign-in of :data:`TO`, and the link."""
    pair, db, outbound = site(provider, **kwargs)
    provider_id = pair.engine.settings.providers[0].id
    response = ask(pair, provider_id)
    assert response.location == VERIFY.format(id=provider_id), response.location
    [request] = outbound.requests
    assert len(db.store.tokens) == 1
    return request


def link_in(text):
    return next(line for line in text.splitlines() if line.startswith("http"))


def test_resend():
    request = sent(Resend(api_key=KEY, from_=SENDER))
    assert (request.method, request.url) == ("POST", "https://api.resend.com/emails")
    assert dict(request.headers) == {
        "authorization": f"Bearer {KEY}",
        "content-type": "application/json",
    }
    body = json.loads(request.body)
    assert set(body) == {"from", "to", "subject", "html", "text"}
    assert (body["from"], body["to"], body["subject"]) == (SENDER, TO, "Sign in to localhost:3000")
    link = link_in(body["text"])
    assert link.startswith(f"{ORIGIN}/auth/callback/resend?")
    assert link.replace("&", "&amp;") in body["html"]


def test_sendgrid_splits_the_sender_into_email_and_name():
    request = sent(SendGrid(api_key=KEY, from_=SENDER))
    assert (request.method, request.url) == ("POST", "https://api.sendgrid.com/v3/mail/send")
    assert dict(request.headers) == {
        "authorization": f"Bearer {KEY}",
        "content-type": "application/json",
    }
    body = json.loads(request.body)
    assert body["personalizations"] == [{"to": [{"email": TO}]}]
    assert body["from"] == {"email": "no-reply@shop.example", "name": "Shop"}
    assert [part["type"] for part in body["content"]] == ["text/plain", "text/html"]


def test_postmark():
    request = sent(Postmark(api_key=KEY, from_=SENDER))
    assert (request.method, request.url) == ("POST", "https://api.postmarkapp.com/email")
    assert dict(request.headers) == {
        "accept": "application/json",
        "x-postmark-server-token": KEY,
        "content-type": "application/json",
    }
    body = json.loads(request.body)
    assert set(body) == {"From", "To", "Subject", "TextBody", "HtmlBody", "MessageStream"}
    assert (body["From"], body["To"], body["MessageStream"]) == (SENDER, TO, "outbound")


@pytest.mark.parametrize(
    ("region", "api"), [("US", "https://api.mailgun.net"), ("EU", "https://api.eu.mailgun.net")]
)
def test_mailgun_posts_a_multipart_form_to_the_senders_domain(region, api):
    request = sent(Mailgun(api_key=KEY, from_=SENDER, region=region))
    assert (request.method, request.url) == ("POST", f"{api}/v3/shop.example/messages")
    headers = dict(request.headers)
    assert headers["authorization"] == "Basic " + base64.b64encode(f"api:{KEY}".encode()).decode()
    form = parse_multipart(headers["content-type"], request.body)
    assert set(form) == {"from", "to", "subject", "html", "text"}
    assert (form["from"], form["to"]) == (SENDER, TO)


def test_forward_email_uses_the_key_as_basic_user():
    request = sent(ForwardEmail(api_key=KEY, from_=SENDER))
    assert (request.method, request.url) == ("POST", "https://api.forwardemail.net/v1/emails")
    assert dict(request.headers) == {
        "authorization": "Basic " + base64.b64encode(f"{KEY}:".encode()).decode(),
        "content-type": "application/json",
    }
    assert set(json.loads(request.body)) == {"from", "to", "subject", "html", "text"}


def test_loops_sends_the_link_to_its_template():
    request = sent(Loops(api_key=KEY, transactional_id="clfq6dinn000yl70fgwwyp82l"))
    assert (request.method, request.url) == ("POST", "https://app.loops.so/api/v1/transactional")
    body = json.loads(request.body)
    assert body["transactionalId"] == "clfq6dinn000yl70fgwwyp82l"
    assert body["email"] == TO
    assert body["dataVariables"]["url"].startswith(f"{ORIGIN}/auth/callback/loops?")


@pytest.mark.parametrize("provider_id", sorted(EMAIL_API_FACTORIES))
def test_the_key_comes_from_the_environment(provider_id):
    prefix = "AUTH_" + provider_id.upper()
    extra = {"transactional_id": "t"} if provider_id == "loops" else {}
    factory = EMAIL_API_FACTORIES[provider_id]
    request = sent(factory(**extra), env={f"{prefix}_KEY": "from-env"})
    assert "from-env" in str(dict(request.headers)) or "from-env" in base64.b64decode(
        dict(request.headers)["authorization"].split()[1]
    ).decode("latin-1")
    with pytest.raises(Configuration, match=f"{prefix}_KEY"):
        AuthPair.build(adapter=FaultyAdapter(), providers=[factory(**extra)])


def test_the_sender_defaults_to_no_reply_at_the_sites_host():
    body = json.loads(sent(Resend(api_key=KEY)).body)
    assert body["from"] == "no-reply@localhost"


def test_the_api_url_can_be_another_region():
    request = sent(SendGrid(api_key=KEY, api_url="https://api.eu.sendgrid.com/"))
    assert request.url == "https://api.eu.sendgrid.com/v3/mail/send"


@pytest.mark.parametrize(
    "answer",
    [
        HTTPResponse(
            status=403,
            headers={"content-type": "application/json"},
            body=b'{"statusCode":403,"message":"The shop.example domain is not verified.",'
            b'"name":"validation_error"}',
        ),
        HTTPResponse(status=500, body=b"<html>Internal Server Error</html>"),
        ConnectionRefusedError("api.resend.com:443 refused"),
    ],
)
def test_a_refusal_goes_back_to_the_sign_in_page_and_leaves_no_token(answer):
    pair, db, _ = site(Resend(api_key=KEY, from_=SENDER), answer=answer)
    assert ask(pair, "resend").location == REFUSED
    assert db.store.tokens == {}
    [error] = [entry for entry in pair.performer.logs if entry.level == "error"]
    assert error.code == "EmailSignInError"
    assert "Resend" in error.message
    assert KEY not in error.message
    if isinstance(answer, HTTPResponse) and answer.status == 403:
        assert "HTTP 403: The shop.example domain is not verified." in error.message


def test_a_send_verification_request_replaces_the_api():
    calls = []
    pair, _, outbound = site(
        Resend(send_verification_request=lambda identifier: calls.append(identifier))
    )
    assert ask(pair, "resend").location == VERIFY.format(id="resend")
    assert calls == [TO]
    assert outbound.requests == []


@pytest.mark.parametrize(
    ("provider", "message"),
    [
        (Loops(api_key=KEY), "transactional_id"),
        (Mailgun(api_key=KEY, region="APAC"), "region"),
    ],
)
def test_service_options_are_checked_at_start_up(provider, message):
    with pytest.raises(Configuration, match=message):
        AuthPair.build(adapter=FaultyAdapter(), providers=[provider])


def test_nodemailer_is_an_email_provider_under_auth_js_id():
    calls = []
    provider = Nodemailer(send_verification_request=lambda url: calls.append(url))
    pair, _, _ = site(provider)
    assert ask(pair, "nodemailer").location == VERIFY.format(id="nodemailer")
    assert calls[0].startswith(f"{ORIGIN}/auth/callback/nodemailer?")
    with pytest.raises(Configuration, match="SMTPSender"):
        Nodemailer(server="smtp://user:pass@smtp.example.com:587")


def test_from_is_accepted_under_auth_js_key():
    provider = Resend(**{"from": SENDER, "api_key": KEY})
    assert provider.from_ == SENDER
    assert json.loads(sent(provider).body)["from"] == SENDER


@pytest.mark.parametrize(
    ("body", "said"),
    [
        (b'{"message":"Unauthorized"}', "Unauthorized"),
        (b'{"ErrorCode":300,"Message":"Invalid \'From\' address"}', "Invalid 'From' address"),
        (
            b'{"errors":[{"message":"authorization required","field":null}]}',
            "authorization required",
        ),
        (
            b'{"success":false,"error":"Transactional email not found"}',
            "Transactional email not found",
        ),
        (b"Forbidden", "Forbidden"),
        (b"x" * 500, "x" * 200),
    ],
)
def test_what_an_api_error_says(body, said):
    assert api_error(body) == said


def test_the_multipart_form_round_trips():
    fields = {"from": SENDER, "to": TO, "text": "héllo\r\n--not-a-boundary", "html": "<p>x</p>"}
    content_type, body = multipart_form(fields)
    assert parse_multipart(content_type, body) == fields


def parse_multipart(content_type, body):
    """The fields of a ``multipart/form-data`` body, read by the standard library's parser."""
    raw = f"Content-Type: {content_type}\r\n\r\n".encode() + body
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(raw)
    assert message.is_multipart()
    return {
        part.get_param("name", header="content-disposition"): part.get_content()
        for part in message.iter_parts()
    }
