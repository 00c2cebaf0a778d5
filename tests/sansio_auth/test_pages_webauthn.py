"""The sign-in page's passkey forms and their script: Auth.js's form shape, the options URL,
conditional UI, one constant script, and no way for a configured value to break out."""

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from sansio_auth import pages
from sansio_auth.pages import WEBAUTHN_SCRIPT
from sansio_auth.pages._webauthn_script import MESSAGES as WEBAUTHN_MESSAGES
from sansio_auth.providers import Credentials, Passkey, Provider, WebAuthnProvider
from tests.sansio_auth.driver import ANN, ORIGIN, users
from tests.sansio_auth.test_pages import Page, any_text, assert_well_formed, html_of, sign_in_html


def passkey(**options: Any) -> WebAuthnProvider:
    return Passkey(**options)


def render(*providers: Provider, **options: Any) -> str:
    return sign_in_html(
        providers=providers,
        signin_urls={p.id: f"{ORIGIN}/auth/signin/{p.id}" for p in providers},
        callback_urls={p.id: f"{ORIGIN}/auth/callback/{p.id}" for p in providers},
        csrf_token="t",
        callback_url=None,
        webauthn_options_urls={
            p.id: f"{ORIGIN}/auth/webauthn-options/{p.id}"
            for p in providers
            if p.type == "webauthn"
        },
        **options,
    )


def test_the_passkey_form_is_auth_js_s_with_the_options_url():
    html = render(passkey())
    page = assert_well_formed(html)
    [form] = page.all("form")
    assert form == {
        "id": "passkey-form",
        "action": f"{ORIGIN}/auth/callback/passkey",
        "method": "POST",
        "data-webauthn-options": f"{ORIGIN}/auth/webauthn-options/passkey",
        "data-conditional-ui": None,
    }
    [csrf, email] = page.all("input")
    assert csrf == {"type": "hidden", "name": "csrfToken", "value": "t"}
    assert email == {
        "type": "text",
        "required": None,
        "autocomplete": "username webauthn",
        "name": "email",
        "id": "input-email-for-passkey-provider",
        "data-form-field": None,
    }
    assert page.text_of("label") == ["Email"]
    assert page.text_of("button") == ["Sign in with Passkey", "Sign up with Passkey"]
    [_, sign_up] = page.all("button")
    assert sign_up == {
        "id": "registerButton-passkey",
        "type": "submit",
        "name": "action",
        "value": "register",
    }
    [box] = [p for p in page.all("p") if "data-webauthn-error" in p]
    assert box == {
        "class": "error",
        "role": "alert",
        "data-webauthn-error": None,
        **{f"data-{key}": text for key, text in WEBAUTHN_MESSAGES.items()},
        "hidden": None,
    }
    assert html.count("<script>") == 1
    assert html.endswith(f"<script>{WEBAUTHN_SCRIPT}</script></body></html>")
    assert " src=" not in html  # nothing fetched from elsewhere: the page works offline


def test_conditional_ui_only_when_the_provider_enables_it():
    [form] = Page(render(passkey(enable_conditional_ui=False))).all("form")
    assert "data-conditional-ui" not in form


def test_no_script_without_a_passkey_provider():
    credentials = Credentials(authorize=users(ANN), credentials={"username": {}})
    assert "<script" not in render(credentials)


def test_one_script_for_two_passkey_providers_after_the_other_forms():
    credentials = Credentials(authorize=users(ANN), credentials={"username": {}})
    html = render(credentials, passkey(), passkey(id="webauthn", enable_conditional_ui=False))
    page = assert_well_formed(html)
    assert [f.get("id") for f in page.all("form")] == [None, "passkey-form", "webauthn-form"]
    assert html.count("<script>") == 1


def test_without_options_urls_no_passkey_form():
    provider = passkey()
    html = sign_in_html(
        providers=[provider],
        signin_urls={},
        callback_urls={provider.id: f"{ORIGIN}/auth/callback/passkey"},
        csrf_token="t",
        callback_url=None,
    )
    assert Page(html).all("form") == []
    assert "<script" not in html


def test_the_script_reads_everything_from_the_page():
    # the contract with the markup above and with the engine's routes (Auth.js's wire format)
    for needle in (
        "form[data-webauthn-options]",
        "input[data-form-field]",
        "[data-webauthn-error]",
        "data-conditional-ui",
        'url.searchParams.set("action", action)',
        '["action", action], ["data", JSON.stringify(data)]',
        'options.mediation = "conditional"',
        "form.dataset.webauthnPending = kind",
        "isConditionalMediationAvailable",
    ):
        assert needle in WEBAUTHN_SCRIPT, needle
    assert "</" not in WEBAUTHN_SCRIPT  # nothing in it can close the <script> element
    assert "innerHTML" not in WEBAUTHN_SCRIPT  # messages go in as text


def test_webauthn_verification_error_page_links_back_to_sign_in():
    html = html_of(
        "error",
        error="WebAuthnVerificationError",
        site_url=ORIGIN,
        signin_url=f"{ORIGIN}/auth/signin",
        hint=None,
    )
    page = assert_well_formed(html)
    assert pages.error_status("WebAuthnVerificationError") == 200
    assert page.text_of("h1") == ["Unable to sign in"]
    assert page.all("a") == [{"class": "button", "href": f"{ORIGIN}/auth/signin"}]


@given(
    provider_id=any_text.filter(bool),
    name=any_text.filter(bool),
    fields=st.dictionaries(
        any_text.filter(bool),
        st.dictionaries(any_text, st.one_of(any_text, st.booleans(), st.none()), max_size=3),
        min_size=1,
        max_size=3,
    ),
    conditional=st.booleans(),
)
def test_passkey_values_never_break_out(provider_id, name, fields, conditional):
    provider = passkey(
        id=provider_id, name=name, form_fields=fields, enable_conditional_ui=conditional
    )
    html = render(provider)
    page = assert_well_formed(html)
    [form] = page.all("form")
    assert form["id"] == f"{provider_id}-form"
    assert form["data-webauthn-options"] == f"{ORIGIN}/auth/webauthn-options/{provider_id}"
    assert ("data-conditional-ui" in form) is conditional
    inputs = page.all("input")[1:]
    assert [i["name"] for i in inputs] == list(fields)
    assert all("data-form-field" in i for i in inputs)
    assert page.text_of("button") == [f"Sign in with {name}", f"Sign up with {name}"]
    assert html.count("<script") == 1
