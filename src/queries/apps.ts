// GetAppByID (ListApps: ./lists.ts).
import { projectForAppCall } from '../access/app-in-project.js';
import type { Call } from '../access/caller.js';
import { KeyholdError } from '../domain/errors/keyhold-error.js';
import type { AppView, ReadModel } from './read-model.js';

export async function getApp(read: ReadModel, call: Call, input: { projectId: string; appId: string }): Promise<AppView> {
  const { project } = await projectForAppCall(read, call, input, 'project.app.read');
  const app = await read.app(input.appId);
  // An app of another project is not revealed: the same 404 as for none.
  if (!app || app.projectId !== project.id) throw new KeyholdError('APP_NOT_FOUND', { appId: input.appId });
  return app;
}
