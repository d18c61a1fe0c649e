// The security-key steps' one script, served by Keyhold itself at
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
  const body = `${readFileSync(bundle, 'utf8')}\n${GLUE}`;
  const hash = createHash('sha256').update(body).digest('base64url').slice(0, 16);
  loaded = { path: `/ui/login/assets/key-step-${hash}.js`, body };
  return loaded;
}
