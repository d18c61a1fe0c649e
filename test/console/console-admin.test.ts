// The console's administration pages in headless Chromium: a project's roles,
// members, settings and lifecycle, the organizations it is granted to; a user's roles (grants), memberships, last
// login and metadata; the organization's login and lockout policies and
// members; names in the audit log; the console in German; and the account
// page a user with no roles sees. Data is made through the console and checked
// through the API (and the other way round).
import path from 'node:path';
import { statSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessTokenType, ManagementService, ProjectState } from '../../gen/keyhold/management/v1/management_pb.js';
import { UserGrantState } from '../../gen/keyhold/management/v1/user_grants_pb.js';
import { OrganizationService, OrganizationState } from '../../gen/keyhold/org/v2/org_pb.js';
import { UserService } from '../../gen/keyhold/user/v2/user_pb.js';
import { createEventStore } from '../../src/store/event-store.js';
import { announceChromiumSkip, chromiumAvailable, launchChromium } from '../support/chromium.js';
import { repoRoot, startTestKeyhold, type TestKeyhold } from '../support/keyhold.js';
import { recordScreenshots, SCREENSHOT_DIR, screenshotsDue } from '../support/screenshots.js';

const available = chromiumAvailable();
if (!available) announceChromiumSkip('console administration pages (test/console/console-admin.test.ts)');

// As test/console/console.test.ts: into docs/screenshots/ when the console changed since they were taken.
const REFRESH_SCREENSHOTS = screenshotsDue();
const SCREENSHOTS = REFRESH_SCREENSHOTS ? SCREENSHOT_DIR : path.join(repoRoot, 'test-results/screenshots');
const ADMIN_SCREENSHOTS = ['project-roles.png', 'user-roles.png', 'organization.png', 'console-de.png'];
const taken = new Set<string>();

describe.skipIf(!available)('Keyhold console: administration pages', () => {
  let kh: TestKeyhold;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    const build = await import('../../console/build.mjs');
    if (build.isStale()) await build.buildConsole();
    [kh, browser] = await Promise.all([startTestKeyhold(), launchChromium()]);
  }, 60_000);
  afterAll(async () => {
    if (REFRESH_SCREENSHOTS && ADMIN_SCREENSHOTS.every((n) => taken.has(n))) recordScreenshots();
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    await kh?.close();
    expect(pageErrors).toEqual([]);
  });

  const consoleUrl = () => `http://localhost:${kh.port}/console/`;
  const mgmt = () => kh.client(ManagementService);
  const userApi = () => kh.client(UserService);

  async function signedInPage(opts: { hash?: string; locale?: string; token?: string; heading?: string } = {}): Promise<Page> {
    const context = await browser.newContext({ locale: opts.locale ?? 'en-US', viewport: { width: 1100, height: 900 } });
    contexts.push(context);
    context.setDefaultTimeout(8_000);
    const page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('dialog', (d) => void d.accept());
    await page.goto(consoleUrl());
    await page.locator('#token').fill(opts.token ?? kh.adminToken);
    await page.locator('form button[type=submit]').click();
    await page.getByRole('heading', { level: 1, name: opts.heading ?? 'Projects' }).waitFor();
    if (opts.hash) await page.goto(`${consoleUrl()}${opts.hash}`);
    return page;
  }

  const shoot = async (page: Page, name: string) => {
    await page.screenshot({ path: path.join(SCREENSHOTS, name), fullPage: true });
    expect(statSync(path.join(SCREENSHOTS, name)).size).toBeGreaterThan(10_000);
    taken.add(name);
  };

  async function human(username: string): Promise<string> {
    const { userId } = await userApi().addHumanUser({ username, profile: { givenName: 'Ada', familyName: 'Lovelace' }, email: { email: `${username}@example.com` } });
    return userId;
  }

  it('a project: add, edit and remove roles; grant one to a user and see it on the user page; remove it there', async () => {
    const { id: projectId } = await mgmt().addProject({ name: 'Library' });
    const adaId = await human('ada');

    const page = await signedInPage({ hash: `#/projects/${projectId}` });
    const roles = page.locator('[data-testid=project-roles]');
    await roles.getByRole('heading', { name: 'Roles (0)' }).waitFor();
    // The server's refusal, next to its field: a role without a key.
    await roles.getByRole('button', { name: 'Add role' }).click();
    await roles.locator('.error-summary').waitFor();
    expect(await roles.locator('[data-error-for=roleKey]').count()).toBe(1);
    for (const [key, display, group] of [
      ['reader', 'Reader', 'books'],
      ['writer', 'Writer', 'books'],
    ]) {
      await roles.getByLabel('Key').fill(key!);
      await roles.getByLabel('Display name', { exact: true }).fill(display!);
      await roles.getByLabel('Group', { exact: true }).fill(group!);
      await roles.getByRole('button', { name: 'Add role' }).click();
      await roles.locator(`tr[data-role="${key}"]`).waitFor();
    }
    await roles.getByRole('heading', { name: 'Roles (2)' }).waitFor();
    await roles.getByLabel('Display name of writer').fill('Author');
    await roles.getByRole('button', { name: 'Save role writer' }).click();
    await expect.poll(async () => (await mgmt().listProjectRoles({ projectId })).result.find((r) => r.key === 'writer')?.displayName).toBe('Author');

    // Grant "reader" on the user's page.
    await page.goto(`${consoleUrl()}#/users/${adaId}`);
    const userRoles = page.locator('[data-testid=user-roles]');
    await userRoles.getByText('This user holds no roles yet.').waitFor();
    await userRoles.getByLabel('Project').selectOption({ label: 'Library' });
    await userRoles.getByLabel('reader').check();
    await userRoles.getByRole('button', { name: 'Grant roles' }).click();
    await userRoles.locator('tr[data-project="Library"]').waitFor();
    let grants = (await mgmt().listUserGrants({ queries: [{ query: { case: 'userIdQuery', value: { userId: adaId } } }] })).result;
    expect(grants.map((g) => [g.projectId, g.roleKeys])).toEqual([[projectId, ['reader']]]);
    expect(await userRoles.getByRole('checkbox', { name: 'reader' }).first().isChecked()).toBe(true);

    // Change the roles, deactivate, reactivate.
    await userRoles.locator('tr[data-project="Library"]').getByLabel('writer').check();
    await userRoles.getByRole('button', { name: 'Save roles on Library' }).click();
    await expect.poll(async () => (await mgmt().listUserGrants({ queries: [{ query: { case: 'userIdQuery', value: { userId: adaId } } }] })).result[0]?.roleKeys).toEqual(['reader', 'writer']);
    await userRoles.getByRole('button', { name: 'Deactivate grant on Library' }).click();
    await userRoles.locator('[data-testid=grant-state]', { hasText: 'deactivated' }).waitFor();
    expect((await mgmt().listUserGrants({ queries: [{ query: { case: 'userIdQuery', value: { userId: adaId } } }] })).result[0]?.state).toBe(UserGrantState.INACTIVE);
    await userRoles.getByRole('button', { name: 'Reactivate grant on Library' }).click();
    await userRoles.locator('[data-testid=grant-state]', { hasText: 'active' }).waitFor();
    await shoot(page, 'user-roles.png');

    // The project lists the grant by the user's name; removing a role says grants lose it.
    await page.goto(`${consoleUrl()}#/projects/${projectId}`);
    await page.locator('[data-testid=project-grants] a', { hasText: 'ada' }).waitFor();
    let confirmText = '';
    page.once('dialog', (d) => {
      confirmText = d.message();
    });
    await page.getByRole('button', { name: 'Remove role writer' }).click();
    await page.locator('[data-testid=project-roles] tr[data-role="writer"]').waitFor({ state: 'detached' });
    expect(confirmText).toContain('lose it (1 on this project now)');
    grants = (await mgmt().listUserGrants({ queries: [{ query: { case: 'userIdQuery', value: { userId: adaId } } }] })).result;
    expect(grants[0]?.roleKeys).toEqual(['reader']);
    await page.locator('[data-testid=project-grants] td', { hasText: /^reader$/ }).waitFor();
    await shoot(page, 'project-roles.png');

    // Remove the grant on the user page.
    await page.goto(`${consoleUrl()}#/users/${adaId}`);
    await page.getByRole('button', { name: 'Remove grant on Library' }).click();
    await page.locator('[data-testid=user-roles]').getByText('This user holds no roles yet.').waitFor();
    expect((await mgmt().listUserGrants({ queries: [{ query: { case: 'userIdQuery', value: { userId: adaId } } }] })).result).toEqual([]);
  });

  it('a project: members added, their roles shown on the user page, removed; settings saved; deactivated, reactivated, removed with a confirmation naming what goes', async () => {
    const { id: projectId } = await mgmt().addProject({ name: 'Warehouse' });
    await mgmt().addOIDCApp({ projectId, name: 'Stock app', redirectUris: ['https://stock.example.com/cb'] });
    const graceId = await human('grace');
    // A user of another organization is not offered as a member here (the instance's admin sees every org's users).
    const { organizationId: otherOrg } = await kh.client(OrganizationService).addOrganization({ name: 'Elsewhere' });
    await userApi().addHumanUser({ username: 'elsewhere-user', organization: { orgId: otherOrg }, profile: { givenName: 'Else', familyName: 'Where' }, email: { email: 'elsewhere@example.com' } });

    const page = await signedInPage({ hash: `#/projects/${projectId}` });
    const members = page.locator('[data-testid=project-members]');
    await members.getByRole('heading', { name: 'Members (0)' }).waitFor();
    // Unknown username, or another organization's: said next to the field, nothing sent.
    for (const name of ['nobody-here', 'elsewhere-user']) {
      await members.getByLabel('Username').fill(name);
      await members.getByRole('button', { name: 'Add member' }).click();
      await members.locator('.field-error', { hasText: `No user of this organization is named \u201c${name}\u201d.` }).waitFor();
    }
    await members.getByLabel('Username').fill('grace');
    await members.getByRole('button', { name: 'Add member' }).click();
    await members.getByRole('heading', { name: 'Members (1)' }).waitFor();
    expect((await mgmt().listProjectMembers({ projectId })).result.map((m) => [m.userId, m.roles])).toEqual([[graceId, ['PROJECT_OWNER']]]);
    // The server's refusal in words: no roles at all.
    await members.getByRole('checkbox', { name: /Project owner/ }).first().uncheck();
    await members.getByRole('button', { name: 'Save roles of grace' }).click();
    await members.locator('.alert-box .error').waitFor();
    expect(await members.locator('.alert-box .error').textContent()).not.toMatch(/INVALID_ARGUMENT|^\d+$/);

    // The user page lists the membership.
    await page.goto(`${consoleUrl()}#/users/${graceId}`);
    await page.locator('[data-testid=memberships] tr', { hasText: 'Warehouse' }).waitFor();
    expect(await page.locator('[data-testid=memberships] tr', { hasText: 'Warehouse' }).textContent()).toContain('Project owner');

    await page.goto(`${consoleUrl()}#/projects/${projectId}`);
    await page.getByRole('button', { name: 'Remove grace' }).click();
    await page.locator('[data-testid=project-members]').getByRole('heading', { name: 'Members (0)' }).waitFor();
    expect((await mgmt().listProjectMembers({ projectId })).result).toEqual([]);

    // Settings.
    const settings = page.locator('[data-testid=project-settings]');
    await settings.getByLabel('Project name').fill('Warehouse 2');
    await settings.getByLabel('Check roles at login').check();
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('heading', { level: 1, name: 'Warehouse 2' }).waitFor();
    const { project } = await mgmt().getProjectByID({ id: projectId });
    expect([project?.name, project?.projectRoleCheck, project?.hasProjectCheck]).toEqual(['Warehouse 2', true, false]);

    // Lifecycle.
    const dialogs: string[] = [];
    page.on('dialog', (d) => dialogs.push(d.message()));
    await page.getByRole('button', { name: 'Deactivate project' }).click();
    await page.locator('[data-testid=project-state-value]', { hasText: 'deactivated' }).waitFor();
    expect((await mgmt().getProjectByID({ id: projectId })).project?.state).toBe(ProjectState.INACTIVE);
    await page.getByRole('button', { name: 'Reactivate project' }).click();
    await page.locator('[data-testid=project-state-value]', { hasText: 'active' }).waitFor();
    await page.getByRole('button', { name: 'Remove project' }).click();
    await page.getByRole('heading', { level: 1, name: 'Projects' }).waitFor();
    expect(dialogs.find((m) => m.startsWith('Remove the project'))).toMatch(/Its 1 application\(s\) and their client ids and secrets, its 0 role\(s\), its members and the 0 user grant\(s\)/);
    await expect(mgmt().getProjectByID({ id: projectId })).rejects.toThrow();
  });

  it('a project granted to another organization: granted with roles, a role key it lacks refused in words, roles changed, deactivated, reactivated, removed', async () => {
    const { id: projectId } = await mgmt().addProject({ name: 'Shared catalogue' });
    for (const roleKey of ['reader', 'writer']) await mgmt().addProjectRole({ projectId, roleKey, displayName: roleKey });
    const { organizationId: partner } = await kh.client(OrganizationService).addOrganization({ name: 'Partner shop' });

    const page = await signedInPage({ hash: `#/projects/${projectId}` });
    const granted = page.locator('[data-testid=granted-orgs]');
    await granted.getByRole('heading', { name: 'Granted organizations (0)' }).waitFor();
    // A role the project lacks: the server's 400 next to the field, nothing granted.
    await granted.getByLabel('Organization ID').fill(partner);
    await granted.getByLabel('Granted roles').fill('reader, ghost');
    await granted.getByRole('button', { name: 'Grant to organization' }).click();
    await granted.locator('.error-summary, .field-error').first().waitFor();
    expect(await granted.locator('.error-summary, .field-error').first().textContent()).toMatch(/not a role of the project/);
    expect((await mgmt().listProjectGrants({ projectId })).result).toEqual([]);

    await granted.getByLabel('Granted roles').fill('reader, writer');
    await granted.getByRole('button', { name: 'Grant to organization' }).click();
    await granted.getByRole('heading', { name: 'Granted organizations (1)' }).waitFor();
    await granted.locator('tr', { hasText: 'Partner shop' }).waitFor();
    const listed = async () => (await mgmt().listProjectGrants({ projectId })).result.map((g) => [g.grantedOrgId, g.grantedRoleKeys, g.state]);
    expect(await listed()).toEqual([[partner, ['reader', 'writer'], 1]]);

    // Change the roles.
    await granted.getByLabel('Granted roles of Partner shop').fill('reader');
    await granted.getByRole('button', { name: 'Save the roles granted to Partner shop' }).click();
    await expect.poll(listed).toEqual([[partner, ['reader'], 1]]);

    // Deactivate, reactivate.
    await granted.getByRole('button', { name: 'Deactivate the grant to Partner shop' }).click();
    await granted.locator('[data-testid=granted-org-state]', { hasText: 'deactivated' }).waitFor();
    expect(await listed()).toEqual([[partner, ['reader'], 2]]);
    await granted.getByRole('button', { name: 'Reactivate the grant to Partner shop' }).click();
    await granted.locator('[data-testid=granted-org-state]', { hasText: /^active$/ }).waitFor();

    // Remove, after a confirmation naming what goes.
    const dialogs: string[] = [];
    page.on('dialog', (d) => dialogs.push(d.message()));
    await granted.getByRole('button', { name: 'Remove the grant to Partner shop' }).click();
    await granted.getByRole('heading', { name: 'Granted organizations (0)' }).waitFor();
    expect(dialogs.find((m) => m.startsWith('Remove the grant to Partner shop'))).toMatch(/lose every role of this project/);
    expect(await listed()).toEqual([]);
  });

  it('the organization: login policy (forceMfa, self-registration), lockout policy, members; a user page with memberships, last login and metadata', async () => {
    const linusId = await human('linus');
    const page = await signedInPage({ hash: '#/organization' });
    await page.getByRole('heading', { level: 1, name: /^Organization / }).waitFor();
    const login = page.locator('[data-testid=login-policy]');
    await login.getByLabel('Require a second factor at login').check();
    await login.getByRole('button', { name: 'Save login policy' }).click();
    await expect.poll(async () => (await mgmt().getLoginPolicy({})).policy?.forceMfa).toBe(true);
    await login.getByLabel('Require a second factor at login').uncheck();
    await login.getByRole('button', { name: 'Save login policy' }).click();
    await expect.poll(async () => (await mgmt().getLoginPolicy({})).policy?.forceMfa).toBe(false);
    // Self-registration: on for two domains, kept as set when forceMfa is saved again.
    await login.getByLabel('Allow people to register themselves').check();
    await login.getByLabel('Address domains that may register').fill('Example.com corp.example');
    await login.getByLabel('Verify the address before the first sign-in').uncheck();
    await login.getByRole('button', { name: 'Save login policy' }).click();
    await expect.poll(async () => (await mgmt().getLoginPolicy({})).policy?.allowedDomains).toEqual(['example.com', 'corp.example']);
    const saved = (await mgmt().getLoginPolicy({})).policy!;
    expect([saved.allowRegister, saved.registerVerificationRequired]).toEqual([true, false]);
    await page.reload();
    await login.getByLabel('Require a second factor at login').check();
    await login.getByRole('button', { name: 'Save login policy' }).click();
    await expect.poll(async () => (await mgmt().getLoginPolicy({})).policy?.forceMfa).toBe(true);
    expect((await mgmt().getLoginPolicy({})).policy).toMatchObject({ allowRegister: true, allowedDomains: ['example.com', 'corp.example'], registerVerificationRequired: false });
    await login.getByLabel('Require a second factor at login').uncheck();
    await login.getByLabel('Allow people to register themselves').uncheck();
    await login.getByRole('button', { name: 'Save login policy' }).click();
    await expect.poll(async () => (await mgmt().getLoginPolicy({})).policy?.allowRegister).toBe(false);

    const lockout = page.locator('[data-testid=lockout-policy]');
    await lockout.getByLabel('Maximum password attempts').fill('5');
    await lockout.getByRole('button', { name: 'Save lockout policy' }).click();
    await expect.poll(async () => (await mgmt().getLockoutPolicy({})).policy?.maxPasswordAttempts).toBe(5);
    await lockout.getByLabel('Maximum password attempts').fill('-1');
    await lockout.getByRole('button', { name: 'Save lockout policy' }).click();
    await lockout.locator('[data-error-for=maxPasswordAttempts]').waitFor();

    const members = page.locator('[data-testid=org-members]');
    await members.getByRole('heading', { name: /^Members \(\d+\)$/ }).waitFor();
    const before = (await mgmt().listOrgMembers({})).result.length;
    await members.getByLabel('Username').fill('linus');
    await members.getByRole('button', { name: 'Add member' }).click();
    await members.locator('tr[data-member="linus"]').waitFor();
    expect((await mgmt().listOrgMembers({})).result.find((m) => m.userId === linusId)?.roles).toEqual(['ORG_OWNER']);
    // The organization's only owner (the instance's admin holds IAM_OWNER, no org role): demoting it is
    // refused by the last-owner rule, and the console shows the server's words for it.
    expect((await mgmt().listOrgMembers({})).result.filter((m) => m.roles.includes('ORG_OWNER')).map((m) => m.userId)).toEqual([linusId]);
    const linus = members.locator('tr[data-member="linus"]');
    await linus.getByRole('checkbox', { name: /Organization owner/ }).uncheck();
    await linus.getByRole('checkbox', { name: /User manager/ }).check();
    await members.getByRole('button', { name: 'Save roles of linus' }).click();
    await members.locator('.alert-box .error').waitFor();
    const refusal = (await members.locator('.alert-box .error').textContent()) ?? '';
    expect(refusal).toMatch(/owner/i);
    expect(refusal).not.toMatch(/LAST_ORG_OWNER|FAILED_PRECONDITION/);
    await linus.getByRole('checkbox', { name: /Organization owner/ }).check();
    await members.getByRole('button', { name: 'Save roles of linus' }).click();
    await expect.poll(async () => (await mgmt().listOrgMembers({})).result.find((m) => m.userId === linusId)?.roles.slice().sort()).toEqual(['ORG_OWNER', 'ORG_USER_MANAGER']);
    await shoot(page, 'organization.png');

    // The user page: the org membership, last login (none yet), metadata set and removed.
    await page.goto(`${consoleUrl()}#/users/${linusId}`);
    await page.locator('[data-testid=memberships] tr[data-membership=org]', { hasText: 'User manager' }).waitFor();
    expect(await page.locator('[data-testid=last-login]').textContent()).toBe('No login recorded.');
    const metadata = page.locator('[data-testid=metadata]');
    await metadata.getByLabel('Key').fill('department');
    await metadata.getByLabel('Value').fill('R&D');
    await metadata.getByRole('button', { name: 'Set metadata' }).click();
    await metadata.locator('tr[data-key=department] td', { hasText: 'R&D' }).waitFor();
    expect(new TextDecoder().decode((await mgmt().listUserMetadata({ id: linusId })).result[0]?.value)).toBe('R&D');
    await metadata.getByRole('button', { name: 'Remove metadata department' }).click();
    await metadata.getByText('No metadata yet.').waitFor();

    // A second owner, then linus can go.
    const maryId = await human('mary');
    await mgmt().addOrgMember({ userId: maryId, roles: ['ORG_OWNER'] });
    await page.goto(`${consoleUrl()}#/organization`);
    await page.getByRole('button', { name: 'Remove linus' }).click();
    await page.locator('[data-testid=org-members] tr[data-member="linus"]').waitFor({ state: 'detached' });
    expect((await mgmt().listOrgMembers({})).result.map((m) => m.userId)).toEqual([maryId]);
    expect(before).toBe(0);
  });

  it('an organization renamed (the header names it anew) and deactivated after a confirmation naming who is shut out, then reactivated; the first organization\u2019s deactivation refused in words', async () => {
    const orgsApi = kh.client(OrganizationService);
    const { organizationId } = await orgsApi.addOrganization({ name: 'Branch office' });
    const dialogs: string[] = [];
    const page = await signedInPage();
    page.on('dialog', (d) => dialogs.push(d.message()));

    // The instance's first organization holds the console: its deactivation is refused, said in words.
    await page.goto(`${consoleUrl()}#/organization`);
    await page.getByRole('heading', { level: 1, name: /^Organization / }).waitFor();
    await page.getByRole('button', { name: 'Deactivate organization' }).click();
    const refusal = page.locator('[data-testid=org-state] .error');
    await refusal.waitFor();
    expect(await refusal.textContent()).not.toMatch(/CONSOLE_ORG_PROTECTED|FAILED_PRECONDITION|^\d+$/);
    expect(await page.locator('[data-testid=org-state-value]').textContent()).toBe('active');

    // Switch to the branch, rename it.
    await page.getByRole('link', { name: 'Organizations' }).click();
    await page.getByLabel('Search organizations by name').fill('branch');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('button', { name: 'Switch to Branch office' }).click();
    await page.locator('[data-testid=header-org]', { hasText: 'in Branch office' }).waitFor();
    await page.goto(`${consoleUrl()}#/organization`);
    await page.getByRole('heading', { level: 1, name: 'Organization Branch office' }).waitFor();
    const settings = page.locator('[data-testid=org-settings]');
    // An empty name: refused next to the field, nothing renamed.
    await settings.getByLabel('Organization name').fill('   ');
    await settings.getByRole('button', { name: 'Save name' }).click();
    await settings.locator('[data-error-for=name]').waitFor();
    expect((await orgsApi.getOrganization({ organizationId })).organization?.name).toBe('Branch office');
    await settings.getByLabel('Organization name').fill('Branch office North');
    await settings.getByRole('button', { name: 'Save name' }).click();
    await page.getByRole('heading', { level: 1, name: 'Organization Branch office North' }).waitFor();
    await page.locator('[data-testid=header-org]', { hasText: 'in Branch office North' }).waitFor();
    expect((await orgsApi.getOrganization({ organizationId })).organization?.name).toBe('Branch office North');

    // Deactivated after a confirmation that says who is shut out (what that does to logins and tokens: test/api/orgs/org-lifecycle.test.ts).
    await page.getByRole('button', { name: 'Deactivate organization' }).click();
    await page.locator('[data-testid=org-state-value]', { hasText: 'deactivated' }).waitFor();
    expect(dialogs.find((m) => m.startsWith('Deactivate the organization'))).toMatch(/Its users cannot sign in/);
    expect((await orgsApi.getOrganization({ organizationId })).organization?.state).toBe(OrganizationState.INACTIVE);
    await page.getByRole('button', { name: 'Reactivate organization' }).click();
    await page.locator('[data-testid=org-state-value]', { hasText: /^active$/ }).waitFor();
    expect((await orgsApi.getOrganization({ organizationId })).organization?.state).toBe(OrganizationState.ACTIVE);
  });

  it('a user\u2019s password: a short one refused next to the field, a new one set to be changed at the next sign-in; without a mail server the reset link shown once, which the reset page takes', async () => {
    const userId = await human('hedy');
    const page = await signedInPage({ hash: `#/users/${userId}` });
    const section = page.locator('[data-testid=password]');
    await section.getByRole('heading', { level: 2, name: 'Password' }).waitFor();
    const form = section.locator('[data-testid=set-password]');
    await form.getByLabel('New password', { exact: true }).fill('short');
    await form.getByRole('button', { name: 'Set password' }).click();
    await form.locator('[data-error-for="newPassword.password"]').waitFor();
    const changes = async () => (await createEventStore(kh.database).load('user', userId)).filter((e) => e.type === 'user.password.changed').length;
    expect(await changes()).toBe(0);
    await form.getByLabel('New password', { exact: true }).fill('a long enough first password');
    expect(await form.getByLabel('The user chooses a new password at the next sign-in').isChecked()).toBe(true);
    await form.getByRole('button', { name: 'Set password' }).click();
    await expect.poll(changes).toBe(1);
    expect(await form.getByLabel('New password', { exact: true }).inputValue()).toBe('');

    // No mail server here: the console asks for the code and shows the link, made from the issuer.
    await section.getByRole('button', { name: 'Send a reset link' }).click();
    const link = await section.locator('[data-testid=reset-link]').inputValue();
    expect(link.startsWith(`${kh.issuer}/ui/login/reset?code=`)).toBe(true);
    const code = new URL(link).searchParams.get('code')!;
    const set = await fetch(`${kh.url}/ui/login/reset`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ code, new_password: 'the person chose this one', confirm_password: 'the person chose this one' }) });
    expect(set.status).toBe(200);
    await expect.poll(changes).toBe(2);
  });

  it('the audit log names users, projects and apps, the id in the title', async () => {
    const { id: projectId } = await mgmt().addProject({ name: 'Named project' });
    const app = await mgmt().addOIDCApp({ projectId, name: 'Named app', redirectUris: ['https://named.example.com/cb'] });
    await mgmt().deactivateApp({ projectId, appId: app.appId });
    const page = await signedInPage({ hash: '#/events' });
    const row = (type: string) => page.locator(`[data-testid=events] tr[data-type="${type}"]`).first();
    await row('app.deactivated').waitFor();
    const object = row('app.deactivated').locator('[data-testid=event-object] .named');
    expect(await object.textContent()).toBe('Named app');
    expect(await object.getAttribute('title')).toBe(app.appId);
    expect(await row('project.added').locator('[data-testid=event-object] .named').first().textContent()).toBe('Named project');
    const me = await kh.client((await import('../../gen/keyhold/auth/v1/auth_pb.js')).AuthService).getMyUser({});
    const editor = row('app.deactivated').locator('[data-testid=event-editor] .named');
    expect(await editor.textContent()).toBe(me.user?.username);
    expect(await editor.getAttribute('title')).toBe(me.user?.userId);
  });

  it('speaks German: from the browser language, with a switch; the server\u2019s refusals in German too', async () => {
    const { id: projectId } = await mgmt().addProject({ name: 'Bibliothek' });
    const page = await signedInPage({ locale: 'de-DE', heading: 'Projekte' });
    expect(await page.locator('html').getAttribute('lang')).toBe('de');
    expect(await page.locator('[data-testid=projects] tbody td').nth(1).textContent()).toMatch(/^\d{2}\.\d{2}\.\d{4}/);
    expect(await page.locator('nav a[data-section=users]').textContent()).toBe('Benutzer');
    expect(await page.locator('nav a[data-section=events]').textContent()).toBe('Protokoll');
    await page.goto(`${consoleUrl()}#/projects/${projectId}`);
    const roles = page.locator('[data-testid=project-roles]');
    await roles.getByRole('heading', { name: 'Rollen (0)' }).waitFor();
    await roles.getByRole('button', { name: 'Rolle hinzuf\u00fcgen' }).click();
    await roles.locator('.error-summary h2', { hasText: /^Der Server hat \d+ Felde?r? nicht akzeptiert$/ }).waitFor();
    // The field's reason as the server words it in German.
    expect(await roles.locator('[data-error-for=roleKey]').textContent()).toMatch(/^Fehler: /);
    await page.getByRole('heading', { name: 'Einstellungen' }).waitFor();
    await page.getByRole('heading', { name: 'Mitglieder (0)' }).waitFor();
    await shoot(page, 'console-de.png');

    // The switch: English, remembered across a reload, and back.
    await page.getByTestId('language-switch').click();
    await page.locator('[data-testid=project-roles]').getByRole('heading', { name: 'Roles (0)' }).waitFor();
    expect(await page.locator('html').getAttribute('lang')).toBe('en');
    // Dates follow the page's language too (“Nov 28, 2026”, not “28.11.2026”).
    expect(await page.locator('dl.facts dd').nth(1).textContent()).toMatch(/^[A-Z][a-z]{2} \d{1,2}, \d{4}/);
    await page.reload();
    await page.locator('[data-testid=project-roles]').getByRole('heading', { name: 'Roles (0)' }).waitFor();
    await page.getByTestId('language-switch').click();
    await page.locator('[data-testid=project-roles]').getByRole('heading', { name: 'Rollen (0)' }).waitFor();
  });

  it('a user with no roles sees its own account, not admin screens with errors', async () => {
    const { userId } = await mgmt().addMachineUser({ userName: 'no-rights-bot', name: 'No rights', accessTokenType: AccessTokenType.BEARER });
    const { token } = await mgmt().addPersonalAccessToken({ userId });
    const page = await signedInPage({ token, heading: 'My account' });
    expect(await page.getByTestId('my-login-name').textContent()).toBe('no-rights-bot');
    expect(await page.getByTestId('my-name').textContent()).toBe('No rights');
    expect(await page.locator('.error, [role=alert] .error').count()).toBe(0);
    expect(await page.locator('.topbar nav').isVisible()).toBe(false);
    await page.goto(`${consoleUrl()}#/users`);
    await page.getByRole('heading', { level: 1, name: 'My account' }).waitFor();
    expect(await page.locator('table').count()).toBe(0);
  });
});
