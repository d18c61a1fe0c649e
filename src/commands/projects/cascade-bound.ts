// How many grants and apps one RemoveProjectRole or RemoveProject may change:
// they are changed in one append (one transaction, one multi-row insert of
// their events), whose size must stay bounded — PostgreSQL takes at most 65,535
// parameters in one statement, 7 per event.
import { KeyholdError } from '../../domain/errors/keyhold-error.js';

export const MAX_CASCADE = 5000;

export function assertCascadeBounded(count: number): void {
  if (count > MAX_CASCADE) throw new KeyholdError('CASCADE_TOO_LARGE', { count: String(count), max: String(MAX_CASCADE) });
}
