// The organization's identity providers on #/organization: listed (name, kind,
// the redirect URI to register at the provider), added (an OpenID Connect
// provider by its issuer, or a plain OAuth 2.0 one by its endpoints) and
// removed, through the management API (the org the console acts in). The
// client secret is typed once and never shown: the server never answers it.
import type { Provider } from '../../../gen/keyhold/idp/v1/idp_pb.js';
import { describeError, management } from '../api.js';
import { announce, h, textField } from '../dom.js';
import { busy, clearProblems, showProblems } from '../forms.js';
import { L } from '../i18n.js';
import { checkField } from './project-admin.js';

const kindOf = (p: Provider) => (p.config?.config.case === 'oauth' ? L.idpKindOauth : L.idpKindOidc);

export async function identityProvidersSection(mayWrite: boolean): Promise<HTMLElement> {
  const heading = h('h2', { id: 'idps-title', tabindex: '-1' }, L.idpTitle);
  const body = h('div');
  const status = h('div', { class: 'alert-box', role: 'alert' });
  const section = h('section', { class: 'card', 'aria-labelledby': 'idps-title', 'data-testid': 'identity-providers' }, heading, h('p', { class: 'hint' }, L.idpIntro), status, body);

  const show = async () => {
    let providers: readonly Provider[];
    try {
      providers = (await management.listProviders({ query: { limit: 1000, asc: true } })).result;
    } catch (e) {
      body.replaceChildren(h('p', { class: 'error', role: 'alert' }, describeError(e).message));
      return;
    }
    if (!providers.length) {
      body.replaceChildren(h('p', { class: 'empty' }, L.idpNone));
      return;
    }
    body.replaceChildren(
      h(
        'table',
        { class: 'list' },
        h('caption', { class: 'visually-hidden' }, L.idpTitle),
        h('thead', null, h('tr', null, h('th', { scope: 'col' }, L.idpName), h('th', { scope: 'col' }, L.idpKind), h('th', { scope: 'col' }, L.idpRedirectUri), h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, L.actions)))),
        h(
          'tbody',
          null,
          providers.map((p) => {
            const remove: HTMLButtonElement | null = mayWrite
              ? h('button', {
                  type: 'button',
                  class: 'danger small',
                  'aria-label': L.removeIdp(p.name),
                  onclick: async () => {
                    if (!window.confirm(L.confirmRemoveIdp(p.name))) return;
                    await busy(remove!, L.removing, async () => {
                      status.replaceChildren();
                      try {
                        await management.deleteProvider({ id: p.id });
                        announce(L.idpRemoved(p.name));
                        await show();
                        heading.focus();
                      } catch (e) {
                        status.replaceChildren(h('p', { class: 'error' }, describeError(e).message));
                      }
                    });
                  },
                }, L.remove)
              : null;
            return h('tr', { 'data-idp': p.name }, h('th', { scope: 'row' }, p.name), h('td', null, kindOf(p)), h('td', null, h('code', { 'data-testid': 'idp-callback' }, p.callbackUrl)), h('td', null, remove));
          }),
        ),
      ),
    );
  };
  await show();
  if (mayWrite) section.append(addForm(show));
  return section;
}

function addForm(refresh: () => Promise<void>): HTMLElement {
  const kind = h('select', { id: 'idp-kind', name: 'kind' }, h('option', { value: 'oidc' }, L.idpKindOidc), h('option', { value: 'oauth' }, L.idpKindOauth));
  const name = textField({ label: L.idpName, name: 'name', required: true, hint: L.idpNameHint });
  const issuer = textField({ label: L.idpIssuer, name: 'issuer', type: 'url', hint: L.idpIssuerHint });
  const authorization = textField({ label: L.idpAuthorizationEndpoint, name: 'authorizationEndpoint', type: 'url' });
  const token = textField({ label: L.idpTokenEndpoint, name: 'tokenEndpoint', type: 'url' });
  const user = textField({ label: L.idpUserEndpoint, name: 'userEndpoint', type: 'url' });
  const idAttribute = textField({ label: L.idpIdAttribute, name: 'idAttribute', hint: L.idpIdAttributeHint });
  const clientId = textField({ label: L.idpClientId, name: 'clientId', required: true });
  const secret = textField({ label: L.idpClientSecret, name: 'clientSecret', type: 'password', required: true, autocomplete: 'new-password', hint: L.idpClientSecretHint });
  const scopes = textField({ label: L.idpScopes, name: 'scopes', value: 'openid profile email', hint: L.idpScopesHint });
  const creation = checkField(L.idpAllowCreation, 'providerOptions.isCreationAllowed', false, L.idpAllowCreationHint);
  const auto = checkField(L.idpAutoCreation, 'providerOptions.isAutoCreation', false, L.idpAutoCreationHint);
  const linking = checkField(L.idpAllowLinking, 'providerOptions.isLinkingAllowed', false, L.idpAllowLinkingHint);
  const trustEmail = checkField(L.idpTrustEmail, 'trust.emailVerified', false, L.idpTrustEmailHint);
  const trustAmr = checkField(L.idpTrustAmr, 'trust.upstreamAmr', false, L.idpTrustAmrHint);
  const oauthOnly = [authorization.wrapper, token.wrapper, user.wrapper, idAttribute.wrapper];
  const showKind = () => {
    const oauth = kind.value === 'oauth';
    issuer.wrapper.hidden = oauth;
    for (const w of oauthOnly) w.hidden = !oauth;
  };
  kind.addEventListener('change', showKind);
  const submit = h('button', { type: 'submit' }, L.addIdp);
  const form = h(
    'form',
    { method: 'post', novalidate: true, 'aria-labelledby': 'idp-add-title', 'data-testid': 'idp-add' },
    h('h3', { id: 'idp-add-title' }, L.addIdpTitle),
    h('div', { class: 'field' }, h('label', { for: 'idp-kind' }, L.idpKind), kind),
    name.wrapper,
    issuer.wrapper,
    ...oauthOnly,
    clientId.wrapper,
    secret.wrapper,
    scopes.wrapper,
    creation.wrapper,
    auto.wrapper,
    linking.wrapper,
    trustEmail.wrapper,
    trustAmr.wrapper,
    h('div', { class: 'actions' }, submit),
  );
  showKind();
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    await busy(submit, L.saving, async () => {
      const common = {
        name: name.input.value,
        clientId: clientId.input.value,
        clientSecret: secret.input.value,
        scopes: scopes.input.value.split(/[\s,]+/).filter(Boolean),
        providerOptions: { isCreationAllowed: creation.input.checked, isAutoCreation: auto.input.checked, isLinkingAllowed: linking.input.checked, isAutoUpdate: false },
        trust: { emailVerified: trustEmail.input.checked, upstreamAmr: trustAmr.input.checked },
      };
      try {
        if (kind.value === 'oauth') {
          await management.addGenericOAuthProvider({ ...common, authorizationEndpoint: authorization.input.value, tokenEndpoint: token.input.value, userEndpoint: user.input.value, idAttribute: idAttribute.input.value });
        } else {
          await management.addGenericOIDCProvider({ ...common, issuer: issuer.input.value });
        }
        const added = name.input.value;
        form.reset();
        secret.input.value = '';
        showKind();
        clearProblems(form);
        announce(L.idpAdded(added));
        await refresh();
      } catch (e) {
        showProblems(form, describeError(e));
      }
    });
  });
  return form;
}
