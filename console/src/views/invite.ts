// Invitations from the console: Keyhold mails the link (CreateInviteCode
// sendCode), or — while no mail server is configured
// (INVITE_MAIL_NOT_CONFIGURED) — the console asks for the code
// (returnCode) and shows the link to hand over. The link is the server's,
// built from its issuer; the person opens it in their own browser, where they
// set a password, register a passkey, or add a security key.
import { describeError, users } from '../api.js';
import { copyableValue, h } from '../dom.js';
import { L } from '../i18n.js';

export type Invited = { mailed: true } | { mailed: false; link: string };

export async function invite(userId: string): Promise<Invited> {
  try {
    await users.createInviteCode({ userId, verification: { case: 'sendCode', value: {} } });
    return { mailed: true };
  } catch (e) {
    if (describeError(e).reason !== 'INVITE_MAIL_NOT_CONFIGURED') throw e;
  }
  const answer = await users.createInviteCode({ userId, verification: { case: 'returnCode', value: {} } });
  return { mailed: false, link: answer.inviteUrl ?? '' };
}

/** What happened, in words: mailed to the address, or the link to hand over (shown once: only its hash is kept). */
export function invitedCard(invited: Invited, who: string, key: boolean): HTMLElement {
  if (invited.mailed) return h('p', { class: 'status-line', role: 'status', 'data-testid': 'invite-result' }, key ? L.keyInviteMailed(who) : L.inviteMailed(who));
  return h(
    'div',
    { class: 'card narrow', 'data-testid': 'invite-result' },
    h('p', null, key ? L.keyInviteLinkIntro(who) : L.inviteLinkIntro(who)),
    copyableValue(L.inviteLink, invited.link, { testId: 'invite-link' }),
    h('p', { class: 'hint' }, L.inviteLinkHint),
  );
}
