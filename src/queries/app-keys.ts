// ListAppKeys: a private_key_jwt app's keys — ids, type, expiry,
// never a key. As GetAppByID: the project in the org (404), project.app.read
// (403), the app in that project (404).
import type { Call } from '../access/caller.js';
import { pageOf, type Listed } from '../domain/lists.js';
import { getApp } from './apps.js';
import type { SentPage } from './lists.js';
import type { AppKeyListed, ReadModel } from './read-model.js';

export async function listAppKeys(read: ReadModel, call: Call, input: { projectId: string; appId: string; page?: SentPage }): Promise<Listed<AppKeyListed>> {
  const app = await getApp(read, call, input);
  return read.appKeysOf(app.id, pageOf(input.page));
}
