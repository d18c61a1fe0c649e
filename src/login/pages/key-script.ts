// The security-key and passkey steps' one script, served by Keyhold itself at
// /ui/login/assets/key-step-<content hash>.js (immutable; CSP script-src 'self'):
// @simplewebauthn/browser's published bundle, read from node_modules at
// start-up, followed by Keyhold's few lines that run the ceremony the page
// describes in data attributes and post its answer with the page's form.
// No inline script anywhere: the options travel in a data attribute.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** Runs on the page: #key-step holds the mode and options; #key-form posts the answer (or the browser's refusal). */
const GLUE = `
;(function () {
  'use strict';
  var step = document.getElementById('key-step');
  var form = document.getElementById('key-form');
  var button = document.getElementById('key-start');
  if (!step || !form || !button) return;
  var lib = window.SimpleWebAuthnBrowser;
  var options = JSON.parse(step.getAttribute('data-options'));
  var register = step.getAttribute('data-mode') === 'register';
  function send(name, value) {
    document.getElementById(name).value = value;
    form.submit();
  }
  button.disabled = false;
  button.addEventListener('click', function () {
    button.disabled = true;
    var ceremony = register ? lib.startRegistration({ optionsJSON: options }) : lib.startAuthentication({ optionsJSON: options });
    ceremony.then(
      function (answer) { send('key-response', JSON.stringify(answer)); },
      function (error) { send('key-failure', (error && error.name) || 'Error'); }
    );
  });
})();
`;

/**
 * Runs on the username page offering a passkey: #passkey-step holds the
 * discoverable options; the button runs the ceremony, and on load the browser
 * is asked for its passkeys as autofill of the username field (conditional
 * mediation). Both answer the one challenge; the button's ceremony ends the
 * autofill's (the library aborts it), whose refusal is then not posted.
 */
const PASSKEY_GLUE = `
;(function () {
  'use strict';
  var step = document.getElementById('passkey-step');
  var form = document.getElementById('passkey-form');
  var button = document.getElementById('passkey-start');
  if (!step || !form || !button) return;
  var lib = window.SimpleWebAuthnBrowser;
  if (!lib.browserSupportsWebAuthn()) return;
  var options = JSON.parse(step.getAttribute('data-options'));
  var sent = false;
  function send(name, value) {
    if (sent) return;
    sent = true;
    document.getElementById(name).value = value;
    form.submit();
  }
  function answered(answer) { send('passkey-response', JSON.stringify(answer)); }
  button.disabled = false;
  button.addEventListener('click', function () {
    button.disabled = true;
    lib.startAuthentication({ optionsJSON: options }).then(answered, function (error) {
      send('passkey-failure', (error && error.name) || 'Error');
    });
  });
  // After a refusal the page offers the button only: autofill answering again by itself would refuse again.
  if (document.querySelector('input[autocomplete$="webauthn"]') && !document.querySelector('p.error[role=alert]')) {
    lib.browserSupportsWebAuthnAutofill().then(function (supported) {
      if (!supported) return;
      lib.startAuthentication({ optionsJSON: options, useBrowserAutofill: true }).then(answered, function () {});
    });
  }
})();
`;

export interface PageScript {
  /** Its path, with the content hash: the page names it, the route serves it. */
  path: string;
  body: string;
}

let loaded: PageScript | undefined;

/** The security-key steps' script (read once). */
export function keyStepScript(): PageScript {
  if (loaded) return loaded;
  const bundle = createRequire(import.meta.url)
    .resolve('@simplewebauthn/browser')
    .replace(/script[\\/]index\.js$/, 'dist/bundle/index.umd.min.js');
  const body = `${readFileSync(bundle, 'utf8')}\n${GLUE}\n${PASSKEY_GLUE}`;
  const hash = createHash('sha256').update(body).digest('base64url').slice(0, 16);
  loaded = { path: `/ui/login/assets/key-step-${hash}.js`, body };
  return loaded;
}
