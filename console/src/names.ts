// Names for ids (users, projects, apps, organizations), asked of the API once
// per id and page: the audit log and the grant lists show names, with the id
// kept in a title attribute. An id the caller may not read, or one removed
// since, stays an id.
import { management, orgs, users } from './api.js';

export interface Names {
  user(id: string): Promise<string | undefined>;
  project(id: string): Promise<string | undefined>;
  app(projectId: string, appId: string): Promise<string | undefined>;
  org(id: string): Promise<string | undefined>;
}

export function names(): Names {
  const cache = new Map<string, Promise<string | undefined>>();
  const once = (key: string, ask: () => Promise<string | undefined>) => {
    let p = cache.get(key);
    if (!p) cache.set(key, (p = ask().catch(() => undefined)));
    return p;
  };
  return {
    user: (id) =>
      once(`user:${id}`, async () => {
        const { user } = await users.getUserByID({ userId: id });
        return user?.username || undefined;
      }),
    project: (id) => once(`project:${id}`, async () => (await management.getProjectByID({ id })).project?.name || undefined),
    app: (projectId, appId) => once(`app:${appId}`, async () => (await management.getAppByID({ projectId, appId })).app?.name || undefined),
    org: (id) => once(`org:${id}`, async () => (await orgs.getOrganization({ organizationId: id })).organization?.name || undefined),
  };
}
