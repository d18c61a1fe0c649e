// Pieces shown in more than one view: a secret shown once, and an
// application's compliance report.
import type { LocalizedMessage } from '../../gen/keyhold/object/v1/object_pb.js';
import { copyableValue, h, uid } from './dom.js';
import { L } from './i18n.js';

const NOT_COMPLIANT = 'Application.OIDC.V1.NotCompliant';

/** The secret with a copy button and the warning that it is never shown again. */
export function secretOnce(secret: string, heading: string = L.clientSecret, what: string = L.clientSecret, testId = 'client-secret'): HTMLElement {
  const id = uid('secret');
  return h(
    'section',
    { class: 'secret-once', 'aria-labelledby': id, 'data-testid': 'secret-once' },
    h('h3', { id }, heading),
    h('p', { class: 'warning' }, h('strong', null, L.copyNow), L.onlyHashKept),
    copyableValue(what, secret, { secret: true, testId }),
  );
}

/** noneCompliant and every problem's localized message (in the browser's language). */
export function complianceReport(noneCompliant: boolean, problems: readonly LocalizedMessage[], headingLevel: 'h2' | 'h3' | 'h4' = 'h3'): HTMLElement {
  const id = uid('compliance');
  const summary = problems.find((p) => p.key === NOT_COMPLIANT);
  const rest = problems.filter((p) => p.key !== NOT_COMPLIANT);
  return h(
    'section',
    { class: 'compliance', 'aria-labelledby': id, 'data-testid': 'compliance' },
    h(headingLevel, { id }, L.compliance),
    h(
      'p',
      { class: noneCompliant ? 'status bad' : 'status good', 'data-testid': 'compliance-status' },
      noneCompliant ? L.notCompliant : rest.length ? L.compliantWithWarning : L.compliantNoProblems,
    ),
    summary ? h('p', { 'data-key': summary.key }, summary.localizedMessage) : null,
    rest.length
      ? h(
          'ul',
          { class: 'problems' },
          rest.map((p) => h('li', { 'data-key': p.key }, h('span', { class: 'problem-message' }, p.localizedMessage), ' ', h('code', { class: 'problem-key' }, p.key))),
        )
      : null,
  );
}
