"""The language of the built-in pages: ``Accept-Language`` (q-values, ``de-CH`` → ``de`` →
the default), the framework's active language first, the ``languages`` option fixing it or
narrowing the choice, catalogues of one's own, and each shipped language through the
engine (pages and account e-mails)."""

from __future__ import annotations

import gettext
from html.parser import HTMLParser
from io import BytesIO

import pytest
from babel.messages.catalog import Catalog
from hypothesis import given
from hypothesis import strategies as st

from sansio_auth import AuthConfig, Request
from sansio_auth.errors import Configuration
from sansio_auth.i18n import SHIPPED, accepted, choose, lookup
from sansio_auth.providers import Credentials
from sansio_auth.settings import resolve
from sansio_auth.testing import SECRET
from tests.sansio_auth.accounts_peer import build, sign_up
from tests.sansio_auth.driver import ANN, AuthPair, users
from tools.translations import compiled

# -- the choice ----------------------------------------------------------------------------------


def test_accept_language_is_read_by_preference() -> None:
    assert accepted("de-CH, fr;q=0.8, en;q=0.9, *;q=0.5") == ["de-CH", "en", "fr"]
    assert accepted("ja;q=0, es") == ["es"]  # q=0: not acceptable
    assert accepted("fr;q=0.5, de;q=0.5") == ["fr", "de"]  # a tie keeps the order
    assert accepted("en;q=x, <b>, de;q=2, fr;level=1, es ; q=0.3") == ["es"]
    assert accepted(None) == accepted("") == []


def test_a_tag_is_shortened_until_one_is_offered() -> None:
    offered = ("en", "de", "pt-BR")
    assert lookup(["de-CH"], offered) == "de"
    assert lookup(["DE-ch"], offered) == "de"
    assert lookup(["zh-Hant-TW", "de"], offered) == "de"
    assert lookup(["pt_br"], offered) == "pt-BR"
    assert lookup(["pt"], offered) is None  # a shorter tag never matches a longer one
    assert lookup(["de-x-private"], offered) == "de"


def test_the_first_offered_language_is_the_default() -> None:
    assert choose(SHIPPED, framework=None, accept_language="de-CH,de;q=0.9") == "de"
    assert choose(SHIPPED, framework=None, accept_language="it, nl;q=0.5") == "en"
    assert choose(("fr", "en"), framework=None, accept_language=None) == "fr"


def test_the_framework_s_language_comes_first() -> None:
    assert choose(SHIPPED, framework="ja", accept_language="de") == "ja"
    assert choose(SHIPPED, framework="fr-ca", accept_language="de") == "fr"
    # a site's language it has no catalogue for gives the default, not the browser's choice
    assert choose(SHIPPED, framework="it", accept_language="de") == "en"


tags = st.sampled_from(["de", "de-CH", "fr", "fr-FR", "es", "es-419", "ja", "en", "it", "*"])
qualities = st.sampled_from(["", ";q=1", ";q=0.9", ";q=0.5", ";q=0.1", ";q=0", ";q=bad"])
headers = st.lists(st.tuples(tags, qualities), max_size=6).map(
    lambda entries: ", ".join(tag + q for tag, q in entries)
)


@given(header=st.one_of(headers, st.text(max_size=80)), framework=st.none() | tags)
def test_a_choice_is_always_an_offered_language(header: str, framework: str | None) -> None:
    assert choose(SHIPPED, framework=framework, accept_language=header) in SHIPPED
    assert choose(("es",), framework=framework, accept_language=header) == "es"


@given(entries=st.lists(st.tuples(tags, st.integers(1, 9)), max_size=6, unique_by=lambda e: e[1]))
def test_the_most_wanted_offered_language_wins(entries: list[tuple[str, int]]) -> None:
    """With distinct q-values the order of the entries does not matter, and the winner is
    the offered language of the highest-q entry that names one."""
    header = ", ".join(f"{tag};q=0.{q}" for tag, q in entries)
    backwards = ", ".join(f"{tag};q=0.{q}" for tag, q in reversed(entries))
    chosen = choose(SHIPPED, framework=None, accept_language=header)
    assert chosen == choose(SHIPPED, framework=None, accept_language=backwards)
    ranked = [tag.split("-")[0] for tag, _ in sorted(entries, key=lambda e: -e[1])]
    assert chosen == next((tag for tag in ranked if tag in SHIPPED), "en")


# -- the configuration ---------------------------------------------------------------------------


def settings(**options: object):  # type: ignore[no-untyped-def]
    return resolve(AuthConfig(secret=SECRET, trust_host=True, **options), {})  # type: ignore[arg-type]


def test_the_languages_offered_default_to_the_shipped_ones() -> None:
    assert settings().languages == ("en", "de", "fr", "es", "ja")
    assert settings(languages=["de", "en"]).languages == ("de", "en")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            {"languages": ["de", "pt"]},
            r"without a catalogue: \['pt'\] .*add one with `translations`",
        ),
        ({"languages": []}, "`languages` is empty"),
        ({"languages": "de"}, "a list of language tags, not one string"),
        ({"translations": {"pt": object()}}, r"`translations\['pt'\]` must have `gettext`"),
        ({"translations": {"not a tag": gettext.NullTranslations()}}, "no language tag"),
    ],
)
def test_a_bad_language_option_is_named(options: dict[str, object], message: str) -> None:
    with pytest.raises(Configuration, match=message):
        settings(**options)


# -- through the engine --------------------------------------------------------------------------


class Html(HTMLParser):
    def __init__(self, html: str) -> None:
        super().__init__()
        self.lang: str | None = None
        self.buttons: list[str] = []
        self.title = ""
        self._in: str | None = None
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "html":
            self.lang = dict(attrs).get("lang")
        self._in = tag

    def handle_data(self, data: str) -> None:
        if self._in == "button":
            self.buttons.append(data)
        elif self._in == "title":
            self.title = data


def pair(**options: object) -> AuthPair:
    credentials = Credentials(authorize=users(ANN), credentials={"username": {}})
    return AuthPair.build(providers=[credentials], **options)


SIGN_IN = {
    "de": ("Anmelden", "Mit Credentials anmelden"),
    "fr": ("Connexion", "Se connecter avec Credentials"),
    "es": ("Iniciar sesión", "Iniciar sesión con Credentials"),
    "ja": ("ログイン", "Credentials でログイン"),
    "en": ("Sign In", "Sign in with Credentials"),
}


@pytest.mark.parametrize("language", sorted(SIGN_IN))
def test_the_sign_in_page_in_each_language(language: str) -> None:
    browser = pair().browser
    wanted = f"{language}-XX, en;q=0.1" if language != "en" else "it, en;q=0.5"
    response = browser.get("/auth/signin", headers={"accept-language": wanted})
    page = Html(response.body.decode())
    assert page.lang == language
    assert (page.title, page.buttons) == (SIGN_IN[language][0], [SIGN_IN[language][1]])
    assert response.header("content-language") == language
    assert response.header("vary") == "Accept-Language"
    assert response.page is not None
    assert response.page.name == "signin"


def test_an_error_page_in_german_keeps_its_status() -> None:
    response = pair().browser.get(
        "/auth/error?error=AccessDenied", headers={"accept-language": "de"}
    )
    assert response.status == 403
    assert "<h1>Zugriff verweigert</h1>" in response.body.decode()


def test_the_framework_s_language_beats_the_browser_s() -> None:
    auth = pair()
    request = Request(
        method="GET",
        url="http://localhost:3000/auth/signin",
        headers={"accept-language": "de"},
        language="fr",
    )
    response = auth.browser.send(request)
    assert Html(response.body.decode()).lang == "fr"
    assert response.header("vary") is None  # the framework decided, not the header


def test_one_language_fixes_it() -> None:
    response = pair(languages=["ja"]).browser.get("/auth/signin", headers={"accept-language": "de"})
    assert Html(response.body.decode()).lang == "ja"
    assert response.header("vary") is None


def test_a_catalogue_of_one_s_own_adds_a_language() -> None:
    catalog = Catalog(locale="pt_BR")
    catalog.add("Sign in with {provider}", "Entrar com {provider}")
    catalog.add("Sign In", "Entrar")
    portuguese = gettext.GNUTranslations(BytesIO(compiled(catalog)))
    auth = pair(translations={"pt-BR": portuguese})
    response = auth.browser.get("/auth/signin", headers={"accept-language": "pt-br"})
    page = Html(response.body.decode())
    assert (page.lang, page.title, page.buttons) == ("pt-BR", "Entrar", ["Entrar com Credentials"])
    untranslated = auth.browser.get("/auth/error", headers={"accept-language": "pt-BR"})
    assert "<h1>Error</h1>" in untranslated.body.decode()  # its missing messages: English


def test_the_account_e_mails_are_in_the_browser_s_language() -> None:
    accounts = build()
    browser = accounts.browser
    form = {"csrfToken": browser.csrf_token(), "email": "ann@example.com", "password": "pw" * 8}
    browser.post("/auth/signup", form=form, headers={"accept-language": "es"})
    message = accounts.outbox.last("verify-email").message
    assert message.subject == "Verifica tu dirección de correo para localhost:3000"
    assert "Verificar dirección de correo</a>" in message.html
    assert "Verifica tu dirección de correo para <strong>localhost:3000</strong>" in message.html
    assert message.text.startswith("Verifica tu dirección de correo para localhost:3000\n")
    sign_up(accounts, "bob@example.com", "pw" * 8)  # no Accept-Language: English
    english = accounts.outbox.last("verify-email", "bob@example.com").message
    assert english.subject == "Verify your email address for localhost:3000"
