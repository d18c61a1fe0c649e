// Machine users' client credentials: the token endpoint's lookup by
// client id, and the API's check of a client-credentials token's machine.
import { sql, type SqlRunner } from '../sql.js';

export interface MachineClientRow {
  userId: string;
  orgId: string;
  accessTokenType: 'bearer' | 'jwt';
  clientId: string;
  clientSecretHash: string;
  state: 'active' | 'inactive' | 'locked';
}

/** The machine user holding this client id (with a secret), and its user's state ('inactive' while its org is: DeactivateOrg); undefined when none. */
export async function findMachineByClientId(db: SqlRunner, clientId: string): Promise<MachineClientRow | undefined> {
  const [row] = await db.query<MachineClientRow>(sql`
    select m.user_id as "userId", m.org_id as "orgId", m.access_token_type as "accessTokenType", m.client_id as "clientId",
      m.client_secret_hash as "clientSecretHash", case when o.state = 'active' then u.state else 'inactive' end as state
    from machine_users m join users u on u.id = m.user_id left join orgs o on o.id = m.org_id
    where m.client_id = ${clientId} and m.client_secret_hash is not null`);
  return row;
}
