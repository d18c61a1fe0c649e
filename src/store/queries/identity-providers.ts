// Identity providers and their links, read: a provider by id (its scope and
// settings), those of one scope, those an org's apps offer (the instance's
// and the org's own), the user a (provider, subject) is linked to (one read
// of the unique key), and a user's links.
import type { IdpSettings } from '../../domain/events/index.js';
import { sql, type SqlRunner } from '../sql.js';

export interface IdpRow {
  idpId: string;
  /** undefined: the instance's. */
  orgId?: string;
  settings: IdpSettings;
  createdAt: Date;
  changedAt: Date;
  sequence: number;
}

export interface IdpLinkRow {
  idpId: string;
  subject: string;
  userId: string;
  orgId: string;
  createdAt: Date;
}

type Row = { idp_id: string; org_id: string | null; settings: IdpSettings | string; created_at: Date | string; changed_at: Date | string; sequence: number };
const asIdp = (r: Row): IdpRow => ({
  idpId: r.idp_id,
  ...(r.org_id ? { orgId: r.org_id } : {}),
  settings: typeof r.settings === 'string' ? (JSON.parse(r.settings) as IdpSettings) : r.settings,
  createdAt: new Date(r.created_at),
  changedAt: new Date(r.changed_at),
  sequence: Number(r.sequence),
});
type LinkRow = { idp_id: string; subject: string; user_id: string; org_id: string; created_at: Date | string };
const asLink = (r: LinkRow): IdpLinkRow => ({ idpId: r.idp_id, subject: r.subject, userId: r.user_id, orgId: r.org_id, createdAt: new Date(r.created_at) });

export async function findIdp(db: SqlRunner, idpId: string): Promise<IdpRow | undefined> {
  const [row] = await db.query<Row>(sql`select idp_id, org_id, settings, created_at, changed_at, sequence from identity_providers where idp_id = ${idpId}`);
  return row ? asIdp(row) : undefined;
}

/** The providers of one scope (orgId undefined: the instance's), oldest first. */
export async function listIdps(db: SqlRunner, orgId: string | undefined): Promise<IdpRow[]> {
  const rows = orgId
    ? await db.query<Row>(sql`select idp_id, org_id, settings, created_at, changed_at, sequence from identity_providers where org_id = ${orgId} order by created_at, idp_id`)
    : await db.query<Row>(sql`select idp_id, org_id, settings, created_at, changed_at, sequence from identity_providers where org_id is null order by created_at, idp_id`);
  return rows.map(asIdp);
}

/** The providers an app of `orgId` offers at its login: the instance's, then the org's own. */
export async function idpsOffered(db: SqlRunner, orgId: string): Promise<IdpRow[]> {
  const rows = await db.query<Row>(
    sql`select idp_id, org_id, settings, created_at, changed_at, sequence from identity_providers where org_id is null or org_id = ${orgId} order by (org_id is not null), created_at, idp_id`,
  );
  return rows.map(asIdp);
}

export async function findIdpLink(db: SqlRunner, idpId: string, subject: string): Promise<IdpLinkRow | undefined> {
  const [row] = await db.query<LinkRow>(sql`select idp_id, subject, user_id, org_id, created_at from idp_links where idp_id = ${idpId} and subject = ${subject}`);
  return row ? asLink(row) : undefined;
}

export async function listIdpLinksOfUser(db: SqlRunner, userId: string): Promise<IdpLinkRow[]> {
  return (await db.query<LinkRow>(sql`select idp_id, subject, user_id, org_id, created_at from idp_links where user_id = ${userId} order by created_at, idp_id`)).map(asLink);
}
