"""The e-mail API providers sending to a real local HTTP server (127.0.0.1, h11) through the
binding's HTTP client: the server plays each service, accepting only the request shape its
API documents and answering as the documentation shows, errors included.

The service's base URL is the provider's ``api_url``; everything else is as in production.
"""

from __future__ import annotations

import base64
import email.parser
import email.policy
import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from io_bindings.sync import BlockingHTTP
from sansio_auth.providers import EMAIL_API_FACTORIES
from tests.io_bindings.http.servers import Received, Reply, ScriptedServer
from tests.sansio_auth.adapter_faults import FaultyAdapter
from tests.sansio_auth.driver import ORIGIN, AuthPair

pytestmark = pytest.mark.e2e

KEY = "key-3ax6xnjp29jd6fds4gc373sgvjxteol0"
SENDER = "Shop <no-reply@shop.example>"
TO = "ada@example.com"
JSON_TYPE = ("content-type", "application/json")


class Refused(Exception):
    """The request is not what the API documents: answer ``reply``."""

    def __init__(self, reply: Reply) -> None:
        super().__init__(reply)
        self.reply = reply


def json_reply(status: int, value: Any) -> Reply:
    return Reply(status=status, headers=[JSON_TYPE], body=json.dumps(value).encode())


def require(condition: bool, reply: Reply) -> None:
    if not condition:
        raise Refused(reply)


def json_body(request: Received, reply: Reply) -> dict[str, Any]:
    require(request.headers.get("content-type", "").startswith("application/json"), reply)
    try:
        value = json.loads(request.body)
    except ValueError:
        raise Refused(reply) from None
    require(isinstance(value, dict), reply)
    return value


def basic(request: Received) -> tuple[str, str]:
    scheme, _, encoded = request.headers.get("authorization", "").partition(" ")
    if scheme != "Basic":
        return "", ""
    user, _, password = base64.b64decode(encoded).decode().partition(":")
    return user, password


def is_text(value: Any) -> bool:
    return isinstance(value, str) and bool(value)


def multipart_fields(request: Received) -> dict[str, str]:
    raw = f"Content-Type: {request.headers['content-type']}\r\n\r\n".encode() + request.body
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(raw)
    if not message.is_multipart():
        return {}
    return {
        part.get_param("name", header="content-disposition"): part.get_content()
        for part in message.iter_parts()
    }


def link_in(provider_id: str, request: Received) -> str:
    """The sign-in link the message carries (its text body; Loops: its ``url`` variable)."""
    if provider_id == "mailgun":
        text = multipart_fields(request)["text"]
    else:
        body = json.loads(request.body)
        text = {
            "loops": lambda: body["dataVariables"]["url"],
            "postmark": lambda: body["TextBody"],
            "sendgrid": lambda: body["content"][0]["value"],
        }.get(provider_id, lambda: body["text"])()
    return next(line for line in text.splitlines() if line.startswith("http"))


# Each service: the path it serves, and a check of the request against its documentation
# that answers its documented success or error.


def resend(request: Received) -> Reply:
    """resend.com/docs/api-reference/emails/send-email (errors: /api-reference/errors)."""
    invalid = json_reply(
        422,
        {"statusCode": 422, "message": "Missing `to` field.", "name": "missing_required_field"},
    )
    if request.headers.get("authorization") != f"Bearer {KEY}":
        return json_reply(
            403, {"statusCode": 403, "message": "API key is invalid", "name": "invalid_api_key"}
        )
    body = json_body(request, invalid)
    require(all(is_text(body.get(k)) for k in ("from", "to", "subject", "html", "text")), invalid)
    return json_reply(200, {"id": "49a3999c-0ce1-4ea6-ab68-afcd6dc2e794"})


def sendgrid(request: Received) -> Reply:
    """twilio.com/docs/sendgrid/api-reference/mail-send/mail-send."""
    invalid = json_reply(
        400, {"errors": [{"message": "The from object must be provided", "field": "from"}]}
    )
    if request.headers.get("authorization") != f"Bearer {KEY}":
        return json_reply(401, {"errors": [{"message": "authorization required", "field": None}]})
    body = json_body(request, invalid)
    personalizations = body.get("personalizations")
    require(isinstance(personalizations, list) and len(personalizations) == 1, invalid)
    recipients = personalizations[0].get("to")
    require(isinstance(recipients, list) and is_text(recipients[0].get("email")), invalid)
    sender = body.get("from")
    require(isinstance(sender, dict) and is_text(sender.get("email")), invalid)
    require("<" not in sender["email"], invalid)  # an address, the name goes in `name`
    content = body.get("content")
    require(isinstance(content, list) and content, invalid)
    require(content[0].get("type") == "text/plain", invalid)  # text/plain must come first
    require(all(is_text(part.get("value")) for part in content), invalid)
    return Reply(status=202)


def postmark(request: Received) -> Reply:
    """postmarkapp.com/developer/api/email-api#send-a-single-email."""
    if request.headers.get("x-postmark-server-token") != KEY:
        return json_reply(
            401, {"ErrorCode": 10, "Message": "The Server Token you provided in the "
                  "X-Postmark-Server-Token request header was invalid."}
        )  # fmt: skip
    invalid = json_reply(422, {"ErrorCode": 300, "Message": "Invalid email request"})
    require(request.headers.get("accept") == "application/json", invalid)
    body = json_body(request, invalid)
    require(all(is_text(body.get(k)) for k in ("From", "To", "Subject")), invalid)
    require(is_text(body.get("TextBody")) or is_text(body.get("HtmlBody")), invalid)
    require(body.get("MessageStream") == "outbound", invalid)
    return json_reply(
        200,
        {
            "To": body["To"],
            "SubmittedAt": "2024-03-25T12:00:00.000-04:00",
            "MessageID": "0a129aee-e1cd-480d-b08d-4f48548ff48d",
            "ErrorCode": 0,
            "Message": "OK",
        },
    )


def mailgun(request: Received) -> Reply:
    """documentation.mailgun.com, Messages: POST /v3/{domain_name}/messages."""
    if basic(request) != ("api", KEY):
        return Reply(status=401, body=b"Forbidden")
    invalid = json_reply(400, {"message": "'from' parameter is missing"})
    content_type = request.headers.get("content-type", "")
    require(content_type.startswith("multipart/form-data; boundary="), invalid)
    form = multipart_fields(request)
    require(all(is_text(form.get(k)) for k in ("from", "to", "subject", "html")), invalid)
    domain = request.path.split("/")[2]
    require(form["from"].rstrip(">").endswith(f"@{domain}"), invalid)
    return json_reply(
        200,
        {"id": "<20240325120000.1.ABCDEF@shop.example>", "message": "Queued. Thank you."},
    )


def forwardemail(request: Received) -> Reply:
    """forwardemail.net/email-api: the API token as the Basic user, an empty password."""
    if basic(request) != (KEY, ""):
        return json_reply(401, {"statusCode": 401, "error": "Unauthorized",
                                "message": "Invalid API token."})  # fmt: skip
    invalid = json_reply(400, {"statusCode": 400, "error": "Bad Request",
                               "message": "Sender must be a verified domain."})  # fmt: skip
    body = json_body(request, invalid)
    require(all(is_text(body.get(k)) for k in ("from", "to", "subject")), invalid)
    require(is_text(body.get("html")) or is_text(body.get("text")), invalid)
    return json_reply(200, {"id": "65f1b1c7e4b0a1a2b3c4d5e6", "status": "queued"})


def loops(request: Received) -> Reply:
    """loops.so/docs/api-reference/send-transactional-email."""
    if request.headers.get("authorization") != f"Bearer {KEY}":
        return json_reply(401, {"success": False, "message": "Invalid API key"})
    invalid = json_reply(400, {"success": False, "message": "Transactional email not found"})
    body = json_body(request, invalid)
    require(body.get("transactionalId") == "clfq6dinn000yl70fgwwyp82l", invalid)
    require(is_text(body.get("email")), invalid)
    variables = body.get("dataVariables")
    require(isinstance(variables, dict) and is_text(variables.get("url")), invalid)
    return json_reply(200, {"success": True})


SERVICES: dict[str, tuple[str, Callable[[Received], Reply]]] = {
    "resend": ("/emails", resend),
    "sendgrid": ("/v3/mail/send", sendgrid),
    "postmark": ("/email", postmark),
    "mailgun": ("/v3/shop.example/messages", mailgun),
    "forwardemail": ("/v1/emails", forwardemail),
    "loops": ("/api/v1/transactional", loops),
}
OPTIONS: dict[str, dict[str, str]] = {"loops": {"transactional_id": "clfq6dinn000yl70fgwwyp82l"}}


def checked(handler: Callable[[Received], Reply]) -> Callable[[Received], Reply]:
    """``handler`` answering a documented error when a check fails; POST only."""

    def handle(request: Received) -> Reply:
        if request.method != "POST":
            return Reply(status=405, body=b"Method Not Allowed")
        try:
            return handler(request)
        except Refused as refused:
            return refused.reply

    return handle


@pytest.fixture
def http() -> Iterator[BlockingHTTP]:
    client = BlockingHTTP({})
    yield client
    client.close()


def sign_in(server: ScriptedServer, http: BlockingHTTP, provider_id: str, *, key: str = KEY):
    db = FaultyAdapter()
    options = {"api_url": server.url, "from_": SENDER, **OPTIONS.get(provider_id, {})}
    provider = EMAIL_API_FACTORIES[provider_id](**options)
    env = {"AUTH_" + provider_id.upper() + "_KEY": key}
    pair = AuthPair.build(adapter=db, providers=[provider], env=env)
    pair.performer.http = http.send
    browser = pair.browser
    response = browser.post(
        f"/auth/signin/{provider_id}", form={"csrfToken": browser.csrf_token(), "email": TO}
    )
    return pair, db, response


@pytest.mark.parametrize("provider_id", sorted(SERVICES))
def test_the_documented_request_is_accepted_and_the_link_works(provider_id, http):
    path, handler = SERVICES[provider_id]
    with ScriptedServer({path: checked(handler)}) as server:
        pair, db, response = sign_in(server, http, provider_id)
        [received] = server.received
    assert response.location == f"{ORIGIN}/auth/verify-request?provider={provider_id}&type=email"
    assert len(db.store.tokens) == 1
    link = link_in(provider_id, received)
    assert link.startswith(f"{ORIGIN}/auth/callback/{provider_id}?")
    signed_in = pair.browser.get(link)
    assert signed_in.location == ORIGIN
    assert pair.browser.session()["user"]["email"] == TO


@pytest.mark.parametrize("provider_id", sorted(SERVICES))
def test_a_refused_request_is_the_documented_error_and_nothing_is_left(provider_id, http):
    path, handler = SERVICES[provider_id]
    with ScriptedServer({path: checked(handler)}) as server:
        pair, db, response = sign_in(server, http, provider_id, key="revoked-key")
        assert len(server.received) == 1
    assert response.location == f"{ORIGIN}/auth/signin?error=EmailSignin"
    assert db.store.tokens == {}
    [error] = [entry for entry in pair.performer.logs if entry.level == "error"]
    assert error.code == "EmailSignInError"
    assert "revoked-key" not in error.message
    status = {"resend": 403}.get(provider_id, 401)
    assert f"refused the sign-in e-mail: HTTP {status}" in error.message


def test_an_unreachable_service_is_an_email_sign_in_error(http):
    with ScriptedServer({}) as server:
        url = server.url  # closed on exit: nothing listens there any more
    db = FaultyAdapter()
    provider = EMAIL_API_FACTORIES["resend"](api_url=url, from_=SENDER, api_key=KEY)
    pair = AuthPair.build(adapter=db, providers=[provider])
    pair.performer.http = http.send
    browser = pair.browser
    response = browser.post(
        "/auth/signin/resend", form={"csrfToken": browser.csrf_token(), "email": TO}
    )
    assert response.location == f"{ORIGIN}/auth/signin?error=EmailSignin"
    assert db.store.tokens == {}
    assert pair.performer.log_codes("error") == ["EmailSignInError"]
