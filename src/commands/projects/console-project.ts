// The project holding Keyhold's own console app (instance/add-console-app.ts):
// every administrator signs in to the console through it, so it stays active,
// present and open to every user of every org.
import { KeyholdError } from '../../domain/errors/keyhold-error.js';
import { CONSOLE_PROJECT_ID } from '../instance/add-console-app.js';

export function assertNotConsoleProject(projectId: string): void {
  if (projectId === CONSOLE_PROJECT_ID) throw new KeyholdError('CONSOLE_PROJECT_PROTECTED', { projectId });
}
