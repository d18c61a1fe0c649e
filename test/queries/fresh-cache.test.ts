// The read-through cache's rules (src/queries/fresh-cache.ts), given a loader
// that counts its reads: what is kept, for how long, and what clear() undoes.
import { describe, expect, it } from 'vitest';
import { freshCache } from '../../src/queries/fresh-cache.js';
import { cachedClientLookups } from '../../src/queries/client-cache.js';
import { cachedAccountReads } from '../../src/queries/account-cache.js';
import { cachedLoginSettings } from '../../src/queries/login-settings-cache.js';
import { tokenResolver } from '../../src/queries/callers.js';
import { hashToken } from '../../src/domain/identity/tokens.js';
import { AGGREGATE_OF, type EventTypeName, type StoredEvent } from '../../src/domain/events/index.js';
import { usersProjection } from '../../src/store/projections/users.js';

function counted<V>(answer: (key: string) => V | undefined) {
  const reads: string[] = [];
  let release: (() => void) | undefined;
  const gate = { hold: false };
  const load = async (key: string) => {
    reads.push(key);
    // What the database had when the read began, however late it arrives.
    const value = answer(key);
    if (gate.hold) await new Promise<void>((r) => (release = r));
    return value;
  };
  return { reads, load, gate, release: () => release?.() };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('freshCache', () => {
  it('keeps a found value for its TTL, then reads it again', async () => {
    const { reads, load } = counted((k) => `v-${k}`);
    const cache = freshCache(load, { ttlMs: 200, maxEntries: 10 });
    expect(await cache.get('a')).toBe('v-a');
    expect(await cache.get('a')).toBe('v-a');
    expect(reads).toEqual(['a']);
    await sleep(250);
    expect(await cache.get('a')).toBe('v-a');
    expect(reads).toEqual(['a', 'a']);
  });

  it('never keeps an unknown key: it is read each time, so a key made elsewhere works at once', async () => {
    let exists = false;
    const { reads, load } = counted((k) => (exists ? k : undefined));
    const cache = freshCache(load, { ttlMs: 10_000, maxEntries: 10 });
    expect(await cache.get('new')).toBeUndefined();
    exists = true;
    expect(await cache.get('new')).toBe('new');
    expect(reads).toEqual(['new', 'new']);
  });

  it('clear() drops what it holds, and a read that began before it is not kept', async () => {
    let version = 1;
    const c = counted(() => `v${version}`);
    const cache = freshCache(c.load, { ttlMs: 10_000, maxEntries: 10 });
    expect(await cache.get('a')).toBe('v1');
    version = 2;
    cache.clear();
    expect(await cache.get('a')).toBe('v2');
    // A read in flight when the change lands answers what it read (v2), but is not kept.
    c.gate.hold = true;
    cache.clear();
    const inFlight = cache.get('a');
    await sleep(5);
    version = 3;
    cache.clear();
    // After clear() a new lookup does not join the read in flight: it reads again.
    c.gate.hold = false;
    expect(await cache.get('a')).toBe('v3');
    c.release();
    expect(await inFlight).toBe('v2');
    version = 4;
    // The later read (v3) is kept; the stale one that finished after it did not replace it.
    expect(await cache.get('a')).toBe('v3');
    expect(c.reads).toEqual(['a', 'a', 'a', 'a']);
    cache.clear();
    expect(await cache.get('a')).toBe('v4');
  });

  it('concurrent first reads of one key share one read; a failed read is not kept', async () => {
    let fail = true;
    const reads: string[] = [];
    const cache = freshCache(
      async (k: string) => {
        reads.push(k);
        await sleep(5);
        if (fail) throw new Error('database unavailable');
        return k;
      },
      { ttlMs: 10_000, maxEntries: 10 },
    );
    const results = await Promise.allSettled([cache.get('a'), cache.get('a'), cache.get('a')]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(reads).toEqual(['a']);
    fail = false;
    expect(await Promise.all([cache.get('a'), cache.get('a')])).toEqual(['a', 'a']);
    expect(reads).toEqual(['a', 'a']);
  });

  it('holds at most maxEntries (the oldest goes first)', async () => {
    const { reads, load } = counted((k) => k);
    const cache = freshCache(load, { ttlMs: 10_000, maxEntries: 2 });
    for (const k of ['a', 'b', 'c', 'b', 'c', 'a']) await cache.get(k);
    expect(reads).toEqual(['a', 'b', 'c', 'a']);
  });
});

describe('cachedClientLookups', () => {
  const event = (type: string) => ({ type }) as unknown as StoredEvent;

  it("this process's changes to an app or a machine user's credentials clear it; other events do not", async () => {
    const reads: string[] = [];
    let listener: ((events: readonly StoredEvent[]) => void) | undefined;
    const lookups = cachedClientLookups(
      {
        appByClientId: async (id) => (reads.push(`app ${id}`), { id } as never),
        machineByClientId: async (id) => (reads.push(`machine ${id}`), { clientId: id } as never),
      },
      { ttlMs: 60_000, onAppended: (l) => (listener = l) },
    );
    const both = async () => {
      await lookups.appByClientId('app1');
      await lookups.machineByClientId('machine-1');
    };
    await both();
    await both();
    expect(reads).toHaveLength(2);
    for (const unrelated of ['user.login.succeeded', 'u2f.used', 'project.added', 'user.human.changed']) {
      listener!([event(unrelated)]);
      await both();
    }
    expect(reads).toHaveLength(2);
    const changes = ['app.deactivated', 'app.oidc.secret.changed', 'app.removed', 'user.machine.secret.set', 'user.machine.secret.removed', 'user.deactivated', 'user.reactivated', 'user.locked', 'user.unlocked', 'user.removed'];
    for (const change of changes) {
      const before = reads.length;
      listener!([event('u2f.used'), event(change)]);
      await both();
      expect(reads.length - before, change).toBe(2);
    }
  });
});

describe('cachedAccountReads', () => {
  const event = (type: string) => ({ type }) as unknown as StoredEvent;

  function reads() {
    const log: string[] = [];
    let policy: { forceMfa: boolean } | undefined;
    let listener: ((events: readonly StoredEvent[]) => void) | undefined;
    const accounts = cachedAccountReads(
      {
        user: async (id) => (log.push(`user ${id}`), { id } as never),
        loginPolicyOf: async (orgId) => (log.push(`policy ${orgId}`), policy as never),
        userMetadataOf: async (id) => (log.push(`metadata ${id}`), [{ key: 'k', value: 'dg==' } as never]),
      },
      { ttlMs: 60_000, onAppended: (l) => (listener = l) },
    );
    return { log, accounts, setPolicy: (p: typeof policy) => (policy = p), emit: (...types: string[]) => listener!(types.map(event)) };
  }

  it("a login's own events leave the user cached; every other change of a user clears it", async () => {
    const { log, accounts, emit } = reads();
    await accounts.user('u1');
    await accounts.user('u1');
    expect(log).toEqual(['user u1']);
    // What a login appends (its success, its grant, a throttle…) only moves the user's version on.
    emit('user.login.succeeded', 'user.oidc.grant.saved', 'user.password.check.failed', 'user.login.throttled', 'user.recovery.code.used', 'app.added');
    await accounts.user('u1');
    expect(log).toHaveLength(1);
    for (const change of ['user.deactivated', 'user.locked', 'user.removed', 'user.human.changed', 'user.password.changed', 'user.pat.added']) {
      const before = log.length;
      emit('user.login.succeeded', change);
      await accounts.user('u1');
      expect(log.length - before, change).toBe(1);
    }
  });

  it("a change of a user's metadata clears its cached entries; a login's own events do not", async () => {
    const { log, accounts, emit } = reads();
    expect(await accounts.userMetadataOf('u1')).toEqual([{ key: 'k', value: 'dg==' }]);
    await accounts.userMetadataOf('u1');
    emit('user.login.succeeded', 'user.oidc.grant.saved');
    await accounts.userMetadataOf('u1');
    expect(log).toEqual(['metadata u1']);
    for (const change of ['user.metadata.set', 'user.metadata.removed', 'user.removed']) {
      emit(change);
      await accounts.userMetadataOf('u1');
    }
    expect(log).toEqual(['metadata u1', 'metadata u1', 'metadata u1', 'metadata u1']);
  });

  it('every user event clears it but those the users projection answers with nothing but a new version', async () => {
    const { log, accounts, emit } = reads();
    const userTypes = (Object.keys(AGGREGATE_OF) as EventTypeName[]).filter((t) => AGGREGATE_OF[t] === 'user');
    expect(userTypes.length).toBeGreaterThan(20);
    const versionOnly = (type: EventTypeName) => {
      const project = usersProjection[type];
      if (!project) return false;
      // Any field a statement reads is some text (the statements are only built, never run).
      const payload = new Proxy({}, { get: () => 'x' });
      const statement = project({ aggregateId: 'u1', sequence: 7, payload, createdAt: null } as never);
      return (Array.isArray(statement) ? statement : [statement]).every((s) => /^update users set sequence = \$1 where id = \$2$/.test(s.text.trim()));
    };
    await accounts.user('u1');
    for (const type of userTypes) {
      const before = log.length;
      emit(type);
      await accounts.user('u1');
      expect(log.length - before, type).toBe(versionOnly(type) ? 0 : 1);
    }
  });

  it('an org without a policy of its own (no force MFA) is an answer kept too; a policy change clears it', async () => {
    const { log, accounts, setPolicy, emit } = reads();
    expect(await accounts.forceMfaOf('o1')).toBe(false);
    expect(await accounts.forceMfaOf('o1')).toBe(false);
    expect(log).toEqual(['policy o1']);
    setPolicy({ forceMfa: true });
    emit('user.human.changed', 'org.lockout.policy.added');
    expect(await accounts.forceMfaOf('o1')).toBe(false);
    emit('org.login.policy.added');
    expect(await accounts.forceMfaOf('o1')).toBe(true);
    expect(log).toEqual(['policy o1', 'policy o1']);
  });
});

describe('tokenResolver', () => {
  it('keys its cache by the token’s SHA-256: the token itself is neither read with nor kept', async () => {
    const asked: string[] = [];
    const found = { pat: { id: 'p1', expiresAt: null }, user: { id: 'u1', orgId: 'o1', state: 'active' } };
    const resolve = tokenResolver({ patByHash: async (hash) => (asked.push(hash), found as never), membershipsOf: async () => [] }, { ttlMs: 60_000 });
    const token = `kh_${'t'.repeat(40)}`;
    expect((await resolve(token))?.userId).toBe('u1');
    expect((await resolve(token))?.userId).toBe('u1');
    // One read, under the hash; the second answer came from the cache, found by the same key.
    expect(asked).toEqual([hashToken(token)]);
    expect(asked[0]).not.toContain(token.slice(3));
  });
});

describe('cachedLoginSettings', () => {
  const event = (type: string) => ({ type }) as unknown as StoredEvent;

  function settings() {
    const log: string[] = [];
    let policy: { forceMfa: boolean } | undefined;
    let listener: ((events: readonly StoredEvent[]) => void) | undefined;
    const cached = cachedLoginSettings(
      {
        defaultOrgId: async () => (log.push('instance'), 'org-1'),
        loginPolicyOf: async (orgId) => (log.push(`policy ${orgId}`), policy as never),
        maxPasswordAttemptsOf: async (orgId) => (log.push(`lockout ${orgId}`), 0),
        ownerOfProject: async (projectId) => (log.push(`project ${projectId}`), projectId === 'gone' ? undefined : 'org-1'),
        identityProvidersOffered: async (orgId) => (log.push(`idps ${orgId}`), []),
      },
      { ttlMs: 60_000, onAppended: (l) => (listener = l) },
    );
    return { log, cached, setPolicy: (p: typeof policy) => (policy = p), emit: (...types: string[]) => listener!(types.map(event)) };
  }

  it('reads each setting once, "none" answers included (no policy of its own, no attempts limit, no providers)', async () => {
    const { log, cached } = settings();
    for (let i = 0; i < 3; i++) {
      expect(await cached.defaultOrgId()).toBe('org-1');
      expect(await cached.loginPolicyOf('org-1')).toBeUndefined();
      expect(await cached.maxPasswordAttemptsOf('org-1')).toBe(0);
      expect(await cached.ownerOfProject('p')).toBe('org-1');
      expect(await cached.identityProvidersOffered('org-1')).toEqual([]);
    }
    expect(log).toEqual(['instance', 'policy org-1', 'lockout org-1', 'project p', 'idps org-1']);
  });

  it('an unknown project is asked again each time: one created a moment ago is found at once', async () => {
    const { log, cached } = settings();
    expect(await cached.ownerOfProject('gone')).toBeUndefined();
    expect(await cached.ownerOfProject('gone')).toBeUndefined();
    expect(log).toEqual(['project gone', 'project gone']);
  });

  it("this process's change of a policy, an org, a project or a provider shows at once; a user's or an app's events keep the entries", async () => {
    const { log, cached, setPolicy, emit } = settings();
    await cached.loginPolicyOf('org-1');
    emit('user.login.succeeded', 'app.changed', 'org.member.added', 'instance.login.throttled');
    await cached.loginPolicyOf('org-1');
    expect(log).toEqual(['policy org-1']);
    setPolicy({ forceMfa: true });
    emit('org.login.policy.changed');
    expect(await cached.loginPolicyOf('org-1')).toEqual({ forceMfa: true });
    for (const type of ['org.lockout.policy.added', 'org.deactivated', 'org.removed', 'project.removed', 'idp.changed', 'instance.added']) {
      emit(type);
      await cached.loginPolicyOf('org-1');
    }
    expect(log.filter((l) => l === 'policy org-1')).toHaveLength(8);
  });
});
