"""The sign-in page's passkey script: a constant, first-party, inlined (the page works offline).

It finds every ``form[data-webauthn-options]``, fetches ``GET webauthn-options/<id>`` with
the form's ``data-form-field`` inputs, turns the options' base64url strings into buffers,
runs ``navigator.credentials.create``/``get`` and posts the result as Auth.js's client does:
``action`` and ``data`` (the RegistrationResponseJSON / AuthenticationResponseJSON, base64url
fields) next to the form's ``csrfToken``. A form with ``data-conditional-ui`` also starts a
conditional (autofill) request when the browser offers one. Errors are shown as one of a few
fixed sentences (:data:`MESSAGES`: the error box carries them in the page's language; the
script knows them in English, for a page of one's own whose box does not), never the
browser's or the server's own text. While the browser waits for
the authenticator the form has ``data-webauthn-pending`` (``register``, ``authenticate`` or
``conditional``), for styles and tests.

Nothing is ever interpolated into the script: everything it needs is read from the page.
"""

from __future__ import annotations

import json
from html import escape

from ..i18n import N_, Translator

MESSAGES = {
    "unsupported": N_("This browser cannot use passkeys."),
    "cancelled": N_("The passkey request was cancelled or timed out. Try again."),
    "exists": N_("This device already holds a passkey for this account."),
    "address": N_("Passkeys cannot be used at this address."),
    "unavailable": N_("Passkey sign-in is unavailable right now. Try again later."),
    "failed": N_("Passkey sign-in failed. Try again."),
}
"""What the script may say, by its key; the form's error box holds each as ``data-<key>``."""


def error_box(_: Translator) -> str:
    """A passkey form's hidden error box, with the script's messages in the page's language."""
    said = "".join(f' data-{key}="{escape(_(text))}"' for key, text in MESSAGES.items())
    return f'<p class="error" role="alert" data-webauthn-error{said} hidden></p>'


_SCRIPT = r"""(() => {
"use strict";
const MESSAGES = __MESSAGES__;
class Failure extends Error {}

const toBuffer = (text) => {
  const base64 = text.replace(/-/g, "+").replace(/_/g, "/");
  const binary = atob(base64 + "=".repeat((4 - (base64.length % 4)) % 4));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0)).buffer;
};
const fromBuffer = (buffer) => {
  let binary = "";
  for (const byte of new Uint8Array(buffer)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
};
const descriptors = (list) => (list || []).map((c) => ({ ...c, id: toBuffer(c.id) }));
const creationOptions = (o) => ({
  ...o,
  challenge: toBuffer(o.challenge),
  user: { ...o.user, id: toBuffer(o.user.id) },
  excludeCredentials: descriptors(o.excludeCredentials),
});
const requestOptions = (o) => ({
  ...o,
  challenge: toBuffer(o.challenge),
  allowCredentials: descriptors(o.allowCredentials),
});

const optional = (response, method) =>
  typeof response[method] === "function" ? response[method]() : undefined;
const common = (credential) => ({
  id: credential.id,
  rawId: fromBuffer(credential.rawId),
  type: credential.type,
  clientExtensionResults: credential.getClientExtensionResults(),
  authenticatorAttachment: credential.authenticatorAttachment || undefined,
});
const registrationJSON = (credential) => {
  const r = credential.response;
  const key = optional(r, "getPublicKey");
  const data = optional(r, "getAuthenticatorData");
  return { ...common(credential), response: {
    clientDataJSON: fromBuffer(r.clientDataJSON),
    attestationObject: fromBuffer(r.attestationObject),
    transports: optional(r, "getTransports"),
    publicKeyAlgorithm: optional(r, "getPublicKeyAlgorithm"),
    publicKey: key ? fromBuffer(key) : undefined,
    authenticatorData: data ? fromBuffer(data) : undefined,
  } };
};
const authenticationJSON = (credential) => {
  const r = credential.response;
  return { ...common(credential), response: {
    clientDataJSON: fromBuffer(r.clientDataJSON),
    authenticatorData: fromBuffer(r.authenticatorData),
    signature: fromBuffer(r.signature),
    userHandle: r.userHandle && r.userHandle.byteLength ? fromBuffer(r.userHandle) : undefined,
  } };
};

// One ceremony at a time: a new one aborts the one under way (e.g. the conditional request).
let pending = null;
const nextSignal = () => {
  if (pending) pending.abort();
  pending = new AbortController();
  return pending.signal;
};

const fields = (form) => Array.from(form.querySelectorAll("input[data-form-field]"));

async function fetchOptions(form, action) {
  const url = new URL(form.dataset.webauthnOptions, location.href);
  if (action) url.searchParams.set("action", action);
  for (const field of fields(form)) url.searchParams.append(field.name, field.value);
  let reply;
  try {
    const headers = { Accept: "application/json" };
    reply = await fetch(url, { credentials: "same-origin", headers });
  } catch {
    throw new Failure("unavailable");
  }
  if (!reply.ok) throw new Failure("failed");
  return reply.json();
}

function post(form, action, data) {
  for (const [name, value] of [["action", action], ["data", JSON.stringify(data)]]) {
    let input = form.querySelector(`input[type="hidden"][name="${name}"]`);
    if (!input) {
      input = document.createElement("input");
      input.type = "hidden";
      input.name = name;
      form.append(input);
    }
    input.value = value;
  }
  form.submit();
}

// While the browser waits for the authenticator the form says which request it made.
async function waiting(form, request, kind) {
  form.dataset.webauthnPending = kind;
  try {
    return await request;
  } finally {
    if (form.dataset.webauthnPending === kind) delete form.dataset.webauthnPending;
  }
}

async function ceremony(form, action, conditional) {
  const signal = nextSignal();
  const reply = await fetchOptions(form, action);
  if (reply.action === "register") {
    const publicKey = creationOptions(reply.options);
    const request = navigator.credentials.create({ publicKey, signal });
    post(form, "register", registrationJSON(await waiting(form, request, "register")));
  } else if (reply.action === "authenticate") {
    const publicKey = requestOptions(reply.options);
    const options = { publicKey, signal };
    if (conditional) {
      publicKey.allowCredentials = [];
      options.mediation = "conditional";
    }
    const request = navigator.credentials.get(options);
    const kind = conditional ? "conditional" : "authenticate";
    post(form, "authenticate", authenticationJSON(await waiting(form, request, kind)));
  } else {
    throw new Failure("failed");
  }
}

const errorBox = (form) => form.querySelector("[data-webauthn-error]");
function show(form, error) {
  const key = error instanceof Failure ? error.message
    : error && error.name === "NotAllowedError" ? "cancelled"
    : error && error.name === "InvalidStateError" ? "exists"
    : error && error.name === "SecurityError" ? "address"
    : error;
  const box = errorBox(form);
  const said = Object.prototype.hasOwnProperty.call(MESSAGES, key) ? key : "failed";
  box.textContent = box.dataset[said] || MESSAGES[said];
  box.hidden = false;
}
const aborted = (error) => error && error.name === "AbortError";

async function conditionalUI(form) {
  const available = PublicKeyCredential.isConditionalMediationAvailable;
  if (typeof available !== "function" || !(await available.call(PublicKeyCredential))) return;
  try {
    await ceremony(form, "authenticate", true);
  } catch (error) {
    // a background request: only a reply to the user's own choice is worth a message
    if (!aborted(error) && error && error.name !== "NotAllowedError") show(form, error);
  }
}

for (const form of document.querySelectorAll("form[data-webauthn-options]")) {
  if (!window.PublicKeyCredential || !navigator.credentials) {
    show(form, "unsupported");
    for (const button of form.querySelectorAll("button")) button.disabled = true;
    continue;
  }
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const button = event.submitter;
    const action = button && button.name === "action" ? button.value : undefined;
    errorBox(form).hidden = true;
    ceremony(form, action, false).catch((error) => {
      if (!aborted(error)) show(form, error);
    });
  });
  if (form.hasAttribute("data-conditional-ui")) conditionalUI(form);
}
})();"""

WEBAUTHN_SCRIPT = _SCRIPT.replace("__MESSAGES__", json.dumps(MESSAGES))
"""The script, with the English :data:`MESSAGES` in it (a constant: nothing of a request)."""
