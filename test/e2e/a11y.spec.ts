/**
 * The console against WCAG 2.1 A and AA, checked by axe-core in Chromium: every page in CONSOLE_PAGES, populated
 * (a client, channels, transactions, an audit, a mediator, a task, a contact group...), and the forms with their
 * errors shown, once in the light colour scheme and once in the dark one. A new page joins the check by joining
 * CONSOLE_PAGES. Each sweep (light, dark) is one Junction and one browser context visiting the pages in turn; the two
 * sweeps run side by side, one per worker.
 */
import AxeBuilder from '@axe-core/playwright';
import type { Browser, Page } from '@playwright/test';
import type { Result } from 'axe-core';
import { ROOT_EMAIL, expect, signIn, startE2EJunction, stopE2EJunction, test } from './fixtures.js';
import type { E2EJunction } from './fixtures.js';
import { LAB_CHANNEL, setupLab } from './transactions-setup.js';
import type { LabSetup } from './transactions-setup.js';

/** The rules of WCAG 2.0 and 2.1, levels A and AA. */
const WCAG_21_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

/** What the pages show: ids made by `populate`. */
interface Populated {
  transactionId: string;
  channelId: string;
  auditId: string;
  taskId: string;
  /** A finished task whose re-run failed: its outcome shown in red. */
  failedTaskId: string;
  mediatorUrn: string;
  setPasswordToken: string;
  /** A private channel nobody may use: the channel editor's warning. */
  lockedChannelId: string;
  /** A transaction an HL7 receiver refused with AE: the summary's refusal and the ACK's fields by name (issue 36). */
  refusedId: string;
}

/** One state of a page to check, reached from the page as loaded (a tab chosen, a form opened with its errors). */
interface PageState {
  name: string;
  reach: (page: Page) => Promise<void>;
}

/** One page of the console: its address, what shows it has loaded, and the further states worth checking. */
interface ConsolePage {
  name: string;
  path: (data: Populated) => string;
  /** The page's level-1 heading once loaded. */
  heading: string | RegExp;
  states?: PageState[];
  /** Seen signed out (sign-in, set-password link). */
  signedOut?: boolean;
  /** Seen signed in as this user (the first-run password change) rather than at `path`. */
  signInAs?: { email: string; password: string };
}

const CLERK = { email: 'clerk@clinic.example', password: 'clerk-first-passphrase-1' };

/** Opens a dialog by its button, then saves it empty so that its errors show. */
function emptyFormErrors(open: string, dialog: string, save: string, error: string | RegExp): PageState {
  return {
    name: `${dialog}, errors shown`,
    async reach(page) {
      await page.getByRole('button', { name: open, exact: true }).click();
      const form = page.getByRole('dialog', { name: dialog });
      await form.getByRole('button', { name: save }).click();
      await expect(form.getByText(error).first()).toBeVisible();
    },
  };
}

function tab(name: string): PageState {
  return {
    name: `${name} tab`,
    async reach(page) {
      await page.getByRole('tab', { name: new RegExp(`^${name}`) }).click();
      await expect(page.getByRole('tab', { name: new RegExp(`^${name}`) })).toHaveAttribute('aria-selected', 'true');
    },
  };
}

const CHANNEL_TABS = ['Basics', 'Routes', 'Access', 'Request matching', 'URL rewriting', 'Retries and storage', 'Alerts'].map(tab);

/** Every page of the console. A page added to the router is added here, and so is checked. */
const CONSOLE_PAGES: ConsolePage[] = [
  {
    name: 'sign-in',
    path: () => '/',
    heading: 'Junction',
    signedOut: true,
    states: [
      {
        name: 'refused',
        async reach(page) {
          await page.getByLabel('Email').fill(ROOT_EMAIL);
          await page.getByLabel(/^Password/).fill('not-the-password');
          await page.getByRole('button', { name: 'Sign in' }).click();
          await expect(page.getByRole('alert')).toBeVisible();
        },
      },
    ],
  },
  {
    name: 'set-password link',
    path: (d) => `/#/set-password/${d.setPasswordToken}`,
    heading: 'Welcome to Junction',
    signedOut: true,
    states: [
      {
        name: 'errors shown',
        async reach(page) {
          await page.getByRole('button', { name: 'Set password' }).click();
          await expect(page.getByText('Enter a password')).toBeVisible();
        },
      },
    ],
  },
  {
    name: 'first-run password change',
    path: () => '/',
    heading: 'Choose a new password',
    signedOut: true,
    signInAs: CLERK,
    states: [
      {
        name: 'errors shown',
        async reach(page) {
          await page.getByLabel(/^New password/).fill('short');
          await page.getByLabel(/^Confirm new password/).fill('other');
          await expect(page.getByText('The two passwords are different')).toBeVisible();
        },
      },
    ],
  },
  {
    name: 'dashboard',
    path: () => '/#/',
    heading: 'Dashboard',
    states: [
      {
        name: 'needs attention strip',
        async reach(page) {
          await expect(page.getByRole('region', { name: /^Needs attention/ })).toContainText('Email is not set up');
        },
      },
    ],
  },
  {
    name: 'transactions',
    path: () => '/#/transactions',
    heading: 'Transactions',
    states: [
      {
        name: 'bulk re-run dialog with its preview',
        async reach(page) {
          await page.getByRole('button', { name: 'Re-run all matching' }).click();
          const dialog = page.getByRole('dialog', { name: 'Re-run all matching transactions' });
          await expect(dialog.getByRole('checkbox', { name: /^Re-run only the latest attempt/ })).toBeChecked();
          await expect(dialog).toContainText('will be re-run');
        },
      },
    ],
  },
  {
    name: 'transaction detail',
    path: (d) => `/#/transactions/${d.transactionId}`,
    heading: 'Transaction',
    states: [
      {
        name: 're-run confirmation',
        async reach(page) {
          await page.getByRole('button', { name: 'Re-run', exact: true }).click();
          await expect(page.getByRole('dialog', { name: 'Re-run this transaction?' })).toContainText('has not been re-run before');
        },
      },
      {
        name: 're-run outcome',
        async reach(page) {
          // The state before left its dialog open on the same address: start from the page as it loads.
          await page.reload();
          await page.getByRole('button', { name: 'Re-run', exact: true }).click();
          await page.getByRole('dialog', { name: 'Re-run this transaction?' }).getByRole('button', { name: 'Re-run now' }).click();
          await expect(page.getByRole('status').filter({ hasText: 'Re-run finished' })).toBeVisible();
          await expect(page.getByText('Re-run as')).toBeVisible();
        },
      },
    ],
  },
  {
    // Issue 37: the list searched by a key (the refused transaction's ACK has control ID ACK-7), and the transaction
    // opened from it with the key highlighted in its HL7 view.
    name: 'transaction search results',
    path: () => '/#/transactions?q=ACK-7',
    heading: 'Transactions',
    states: [
      {
        name: 'the matching key in the row',
        async reach(page) {
          await expect(page.getByRole('table', { name: 'Transactions' }).locator('[data-match]')).toHaveText(['Control ID ACK-7 · MSH-10']);
          await expect(page.getByRole('search', { name: 'Search transactions' })).toContainText('Messages with patient ID, order number or control ID ACK-7.');
        },
      },
    ],
  },
  {
    name: 'transaction found by a key',
    path: (d) => `/#/transactions/${d.refusedId}?field=MSH-10&value=ACK-7`,
    heading: 'Transaction',
    states: [
      {
        name: 'the key highlighted',
        async reach(page) {
          await page.getByRole('tab', { name: 'Response' }).click();
          await expect(page.getByRole('region', { name: 'Response body' }).locator('mark[data-search-match]')).toHaveText('ACK-7');
        },
      },
    ],
  },
  {
    // Opened from a text search: its words marked in the HL7 view beside nothing else.
    name: 'transaction found by words',
    path: (d) => `/#/transactions/${d.refusedId}?words=unknown+patient`,
    heading: 'Transaction',
    states: [
      {
        name: 'the words marked',
        async reach(page) {
          await page.getByRole('tab', { name: 'Response' }).click();
          await expect(page.getByRole('region', { name: 'Response body' }).locator('mark[data-search-word]').first()).toHaveText('Unknown');
        },
      },
    ],
  },
  {
    name: 'transaction refused by the receiver',
    path: (d) => `/#/transactions/${d.refusedId}`,
    heading: 'Transaction',
    states: [
      {
        name: 'HL7 fields by name',
        async reach(page) {
          await expect(page.getByRole('alert').filter({ hasText: 'Refused by the receiving system' })).toBeVisible();
          await page.getByRole('tab', { name: 'Response' }).click();
          await page.getByRole('button', { name: 'Show field names' }).click();
          await expect(page.getByRole('table', { name: 'HL7 fields by name' })).toContainText('MSA-1');
        },
      },
    ],
  },
  { name: 'refused list', path: () => '/#/refusals', heading: 'Refused' },
  {
    name: 'channels',
    path: () => '/#/channels',
    heading: 'Channels',
    states: [
      {
        name: 'Check routes dialog with its results',
        async reach(page) {
          await page.getByRole('button', { name: `Check routes of ${LAB_CHANNEL}` }).click();
          await expect(page.getByRole('dialog', { name: `Check routes of “${LAB_CHANNEL}”` }).getByRole('table')).toBeVisible();
        },
      },
      {
        name: 'Send test message dialog, its refusal shown',
        async reach(page) {
          // The state before left its dialog open on the same address: start from the page as it loads.
          await page.reload();
          await expect(page.getByRole('heading', { level: 1, name: 'Channels' })).toBeVisible();
          await page.getByRole('button', { name: `Send test message through ${LAB_CHANNEL}` }).click();
          const dialog = page.getByRole('dialog', { name: `Send a test message through “${LAB_CHANNEL}”` });
          await dialog.getByLabel(/^Path/).fill('/not-this-channel');
          await dialog.getByRole('button', { name: 'Send test message' }).click();
          await expect(dialog.getByRole('alert')).toBeVisible();
        },
      },
    ],
  },
  {
    name: 'new channel',
    path: () => '/#/channels/new',
    heading: 'New channel',
    states: [
      {
        name: 'errors shown',
        async reach(page) {
          await page.getByRole('button', { name: 'Save channel' }).click();
          await expect(page.getByRole('alert').filter({ hasText: 'The channel was not saved' })).toBeVisible();
        },
      },
    ],
  },
  { name: 'channel editor', path: (d) => `/#/channels/${d.channelId}`, heading: /^Channel “/, states: CHANNEL_TABS },
  {
    name: 'channel editor, nobody admitted',
    path: (d) => `/#/channels/${d.lockedChannelId}`,
    heading: /^Channel “/,
    states: [
      {
        name: 'access warning and the alert editor warning',
        async reach(page) {
          await expect(page.getByTestId('channel-access-warning')).toBeVisible();
          await page.getByRole('tab', { name: /^Alerts/ }).click();
          await expect(page.getByTestId('alerts-messaging-warning')).toBeVisible();
        },
      },
    ],
  },
  { name: 'channel metrics', path: (d) => `/#/channels/${d.channelId}/metrics`, heading: /metrics/ },
  { name: 'clients', path: () => '/#/clients', heading: 'Clients', states: [emptyFormErrors('Add client', 'Add client', 'Save client', 'Enter a client ID')] },
  { name: 'roles', path: () => '/#/roles', heading: 'Roles', states: [emptyFormErrors('Add role', 'Add role', 'Add role', 'Enter a role name')] },
  { name: 'users', path: () => '/#/users', heading: 'Users', states: [emptyFormErrors('Add user', 'Add user', 'Save user', 'Enter an email address')] },
  {
    name: 'contact groups',
    path: () => '/#/contact-groups',
    heading: 'Contact groups',
    states: [
      emptyFormErrors('Add contact group', 'Add contact group', 'Save group', 'Enter a name for the group'),
      {
        name: 'Add contact group, an other recipient with its error',
        async reach(page) {
          // The state before left its dialog open on the same address: start from the page as it loads.
          await page.reload();
          await expect(page.getByRole('heading', { level: 1, name: 'Contact groups' })).toBeVisible();
          await page.getByRole('button', { name: 'Add contact group', exact: true }).click();
          const form = page.getByRole('dialog', { name: 'Add contact group' });
          await form.getByRole('button', { name: 'Add email address or phone number' }).click();
          await form.getByLabel('Other recipient 1 email address').fill('vendor');
          await form.getByRole('button', { name: 'Save group' }).click();
          await expect(form.getByText('Must be an email address, such as support@vendor.example')).toBeVisible();
        },
      },
    ],
  },
  { name: 'alerts and messages', path: () => '/#/notifications', heading: 'Alerts and messages' },
  { name: 'mediators', path: () => '/#/mediators', heading: 'Mediators' },
  { name: 'mediator detail', path: (d) => `/#/mediators/${encodeURIComponent(d.mediatorUrn)}`, heading: 'Lab adapter' },
  { name: 'tasks', path: () => '/#/tasks', heading: 'Tasks' },
  { name: 'task detail', path: (d) => `/#/tasks/${d.taskId}`, heading: 'Re-run task' },
  {
    name: 'task detail, every re-run failed',
    path: (d) => `/#/tasks/${d.failedTaskId}`,
    heading: 'Re-run task',
    states: [
      {
        name: 'outcome shown',
        async reach(page) {
          await expect(page.getByRole('alert').filter({ hasText: 'Every re-run failed' })).toBeVisible();
        },
      },
    ],
  },
  { name: 'audit log', path: () => '/#/audits', heading: 'Audit log' },
  { name: 'audit detail', path: (d) => `/#/audits/${d.auditId}`, heading: 'Audit' },
  { name: 'logs', path: () => '/#/logs', heading: 'Logs' },
  { name: 'import/export', path: () => '/#/import-export', heading: 'Import/Export' },
  { name: 'backup', path: () => '/#/backup', heading: 'Backup' },
  { name: 'certificates', path: () => '/#/certificates', heading: 'Certificates' },
  {
    name: 'settings',
    path: () => '/#/settings',
    heading: 'Settings',
    states: [
      {
        name: 'errors shown',
        async reach(page) {
          const form = page.getByRole('form', { name: 'Email (SMTP)' });
          await form.getByLabel('Port', { exact: true }).fill('99999');
          await form.getByRole('button', { name: 'Save email settings' }).click();
          await expect(form.getByText('Must be a whole number from 1 to 65535')).toBeVisible();
          await page.getByRole('button', { name: 'Send test SMS' }).click();
          await expect(page.getByText('Enter the mobile number the test goes to')).toBeVisible();
        },
      },
    ],
  },
  { name: 'about', path: () => '/#/about', heading: 'About' },
  { name: 'my account', path: () => '/#/account', heading: 'My account' },
  { name: 'page not found', path: () => '/#/no-such-page', heading: /not found/i },
];

async function created(junction: E2EJunction, path: string, body: unknown): Promise<string> {
  const res = await junction.api('POST', path, body);
  expect(res.status, `POST ${path}: ${res.text}`).toBe(201);
  return (res.json as { _id: string })._id;
}

/** Fills Junction the way a clinic would, through the API and the transaction port. */
async function populate(junction: E2EJunction, lab: LabSetup): Promise<Populated> {
  const transactionId = await lab.send('/lab/mediated', { method: 'POST', body: '{"order":1}', contentType: 'application/json' });
  await lab.send('/lab/json');
  await lab.send('/lab/xml');
  await lab.send('/lab/hl7');
  const failed = await lab.send('/lab/fail', { method: 'POST', body: '{"order":2}', contentType: 'application/json' });
  const taskId = await created(junction, '/tasks', { tids: [failed], paused: true, batchSize: 1 });
  const failedTaskId = await created(junction, '/tasks', { tids: [failed], batchSize: 1 });
  await expect.poll(async () => ((await junction.api('GET', `/tasks/${failedTaskId}`)).json as { status: string }).status).toBe('Completed');
  // A request no channel matches, so the Refused list has a row.
  expect((await fetch(`${junction.httpUrl}/no-channel-here`)).status).toBe(404);

  const audit = await junction.api('POST', '/audits', {
    eventIdentification: {
      eventDateTime: new Date().toISOString(),
      eventActionCode: 'R',
      eventOutcomeIndicator: '0',
      eventID: { code: '110110', displayName: 'Patient Record', codeSystemName: 'DCM' },
      eventTypeCode: { code: 'ITI-9', displayName: 'PIX Query', codeSystemName: 'IHE Transactions' },
    },
    activeParticipant: [{ userID: 'dr.mensah', userIsRequestor: 'true', networkAccessPointID: '10.0.0.9', networkAccessPointTypeCode: '2' }],
    auditSourceIdentification: { auditSourceID: 'EHR-WARD-3' },
    participantObjectIdentification: [{ participantObjectID: '4567-89^^^Clinic', participantObjectTypeCode: '1', participantObjectTypeCodeRole: '1', participantObjectIDTypeCode: { code: '2', displayName: 'Patient Number' } }],
  });
  expect(audit.status, audit.text).toBe(201);
  const audits = await junction.api('GET', '/audits');
  const auditId = (audits.json as { _id: string }[])[0]?._id ?? '';
  expect(auditId, 'an audit is listed').not.toBe('');

  const mediatorUrn = 'urn:mediator:lab-adapter';
  const mediator = await junction.api('POST', '/mediators', {
    urn: mediatorUrn,
    version: '1.2.0',
    name: 'Lab adapter',
    description: 'Turns lab results into FHIR',
    defaultChannelConfig: [],
    endpoints: [{ name: 'Lab adapter', host: '127.0.0.1', port: 9, type: 'http', primary: true }],
    configDefs: [
      { param: 'labName', displayName: 'Lab name', type: 'string' },
      { param: 'sendCopies', displayName: 'Send copies', type: 'bool' },
    ],
    config: { labName: 'Central lab', sendCopies: false },
  });
  expect(mediator.status, mediator.text).toBe(201);
  const beat = await junction.api('POST', `/mediators/${encodeURIComponent(mediatorUrn)}/heartbeat`, { uptime: 30 });
  expect(beat.status, beat.text).toBe(200);

  const nurse = 'nurse@clinic.example';
  const user = await junction.api('POST', '/users', { email: nurse, firstname: 'Naledi', surname: 'Staff', groups: ['ward'], password: 'ward-staff-passphrase-9' });
  expect(user.status, user.text).toBe(201);
  await created(junction, '/groups', { group: 'Night shift', users: [{ user: nurse, method: 'email', maxAlerts: 'no max' }] });
  const clerk = await junction.api('POST', '/users', { email: CLERK.email, firstname: 'Lindiwe', surname: 'Clerk', groups: ['ward'], password: CLERK.password, passwordChangeRequired: true });
  expect(clerk.status, clerk.text).toBe(201);
  const invited = 'pharmacist@clinic.example';
  const invite = await junction.api('POST', '/users', { email: invited, firstname: 'Thabo', surname: 'Nkosi', groups: ['ward'] });
  expect(invite.status, invite.text).toBe(201);
  const token = await junction.api('POST', `/users/${encodeURIComponent(invited)}/password-token`);
  expect(token.status, token.text).toBeLessThan(300);
  const lockedChannelId = await created(junction, '/channels', { name: 'Locked feed', urlPattern: '^/locked$', authType: 'private', routes: [{ name: 'nowhere', host: '127.0.0.1', port: 9, primary: true }] });
  // A failure whose reason the list shows, and an HL7 lab's AE the summary names as its refusal (issue 36).
  await lab.send('/lab/fail');
  const now = new Date().toISOString();
  const ack = 'MSH|^~\\&|LIS|LAB|EHR|CLINIC|20240501101501||ACK^R01^ACK|ACK-7|P|2.5\rMSA|AE|MSG-7|Unknown patient 123\r';
  const refusedId = await created(junction, '/transactions', {
    channelID: lab.labChannelId,
    status: 'Completed',
    request: { method: 'POST', path: '/lab/hl7/order', timestamp: now },
    response: { status: 400, headers: { 'content-type': 'application/hl7-v2' }, body: ack, timestamp: now },
  });
  return { transactionId, channelId: lab.labChannelId, auditId, taskId, failedTaskId, mediatorUrn, setPasswordToken: (token.json as { token: string }).token, lockedChannelId, refusedId };
}

/** One violation, told as a line a person can act on. */
function told(where: string, violation: Result): string[] {
  return violation.nodes.map((node) => `${where}: ${violation.id} (${violation.impact ?? 'n/a'}) at ${node.target.join(' ')}: ${node.failureSummary?.replace(/\s+/g, ' ') ?? ''}`);
}

async function axeViolations(page: Page, where: string): Promise<string[]> {
  const result = await new AxeBuilder({ page }).withTags(WCAG_21_AA).analyze();
  return result.violations.flatMap((v) => told(where, v));
}

async function loaded(page: Page, heading: string | RegExp, colorScheme: 'light' | 'dark'): Promise<void> {
  await expect(page.getByRole('heading', { level: 1, name: heading }).first()).toBeVisible();
  // The console follows the system's scheme: the dark sweep really checks the dark colours.
  await expect(page.locator('html')).toHaveAttribute('data-mantine-color-scheme', colorScheme);
  // Loaders and skeletons gone: the populated page, not its placeholder.
  await expect(page.locator('.mantine-Loader-root:visible, [data-loading="true"]:visible')).toHaveCount(0);
}

/** How a sweep sees the console: its colour scheme, and its window (a zoomed one has fewer, larger CSS pixels). */
interface Sweep {
  colorScheme: 'light' | 'dark';
  viewport: { width: number; height: number };
  deviceScaleFactor: number;
  /** Zoomed: also check that nothing needs sideways scrolling and that the navigation can be opened. */
  zoomed: boolean;
}

/**
 * Light at the suite's 1280×800; dark at 200% zoom of a 1280×720 window, which is a 640×360 CSS viewport: the
 * zoom check costs no extra sweep and the dark colours are checked on the narrow layout (navigation behind a burger).
 */
const SWEEPS: Sweep[] = [
  { colorScheme: 'light', viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1, zoomed: false },
  { colorScheme: 'dark', viewport: { width: 640, height: 360 }, deviceScaleFactor: 2, zoomed: true },
];

/** The page's sideways overflow in CSS pixels: WCAG 1.4.10 asks for none at 320 CSS pixels wide, we ask at 640. */
async function sidewaysOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

/** Visits every page in one browser context and returns all violations found. */
async function sweep(browser: Browser, junction: E2EJunction, data: Populated, { colorScheme, viewport, deviceScaleFactor, zoomed }: Sweep): Promise<string[]> {
  const context = await browser.newContext({ colorScheme, reducedMotion: 'reduce', ignoreHTTPSErrors: true, viewport, deviceScaleFactor });
  const page = await context.newPage();
  const found: string[] = [];
  let signedIn = false;
  try {
    for (const entry of CONSOLE_PAGES) {
      if (!entry.signedOut && !signedIn) {
        // Whoever the signed-out pages left signed in (the first-run user), the rest is seen as the super user.
        await context.clearCookies();
        await page.goto('about:blank');
        await signIn(page, junction, junction.adminPassword, ROOT_EMAIL);
        await expect(page.getByRole('heading', { level: 1, name: 'Dashboard' })).toBeVisible();
        if (zoomed) {
          // Narrow, the navigation folds behind a button, which opens it.
          const nav = page.getByRole('navigation', { name: 'Main' });
          await expect(nav.getByRole('link', { name: 'About' })).not.toBeInViewport();
          await page.getByRole('button', { name: 'Toggle navigation' }).click();
          await expect(nav.getByRole('link', { name: 'Dashboard' })).toBeInViewport();
          await nav.getByRole('link', { name: 'About' }).scrollIntoViewIfNeeded();
          await expect(nav.getByRole('link', { name: 'About' })).toBeInViewport();
        } else {
          await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
        }
        signedIn = true;
      }
      const states: PageState[] = [{ name: '', reach: async () => undefined }, ...(entry.states ?? [])];
      for (const state of states) {
        const where = `${colorScheme} ${entry.name}${state.name === '' ? '' : `, ${state.name}`}`;
        await test.step(where, async () => {
          try {
            if (entry.signedOut) {
              // Signed out for real, and the set-password link is read when the console loads, not on a change of hash.
              await context.clearCookies();
              await page.goto('about:blank');
            }
            if (entry.signInAs !== undefined) await signIn(page, junction, entry.signInAs.password, entry.signInAs.email);
            else await page.goto(`${junction.apiUrl}${entry.path(data)}`);
            await loaded(page, entry.heading, colorScheme);
            await state.reach(page);
          } catch (err) {
            // A page that cannot be reached is a failure too, but the sweep goes on to report the others.
            found.push(`${where}: not reached: ${String(err).split('\n')[0] ?? ''}`);
            return;
          }
          found.push(...(await axeViolations(page, where)));
          if (zoomed) {
            const overflow = await sidewaysOverflow(page);
            if (overflow > 0) found.push(`${where}: the page scrolls sideways by ${overflow}px at 640×360`);
          }
        });
      }
    }
  } finally {
    await context.close();
  }
  return found;
}

test.describe('WCAG 2.1 AA', () => {
  // Each worker runs beforeAll for itself, so the light and dark sweeps each get their own Junction, in parallel.
  test.describe.configure({ mode: 'parallel', timeout: 300_000 });
  let junction: E2EJunction;
  let lab: LabSetup;
  let data: Populated;

  test.beforeAll(async () => {
    junction = await startE2EJunction({ firstRun: false, env: {} });
    lab = await setupLab(junction);
    data = await populate(junction, lab);
  });

  test.afterAll(async () => {
    await lab?.close();
    if (junction !== undefined) await stopE2EJunction(junction);
  });

  for (const how of SWEEPS) {
    const title = `every console page passes axe in the ${how.colorScheme} colour scheme${how.zoomed ? ', at 200% zoom (640×360)' : ''}`;
    test(title, async ({ browser }) => {
      const found = await sweep(browser, junction, data, how);
      expect(found, found.join('\n')).toEqual([]);
    });
  }
});

/**
 * Issue 36: the empty dashboard's first-run checklist (with nothing made yet, and with the example command shown)
 * and the header at 390 px with its menu open, which the populated sweep above never sees. One new Junction, each
 * colour scheme in its own browser context.
 */
test('the first-run checklist and the phone-width header pass axe in both colour schemes', async ({ browser, junction }) => {
  test.setTimeout(180_000);
  const found: string[] = [];
  const states = async (page: Page, colorScheme: 'light' | 'dark', made: boolean) => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${junction.apiUrl}/#/`);
    // Loaded afresh, so the checklist reads what exists now.
    await page.reload();
    await loaded(page, 'Dashboard', colorScheme);
    const checklist = page.getByRole('region', { name: 'Get started' });
    await expect(checklist.getByTestId('first-run-progress')).toContainText(made ? '2 of 3 steps done' : '0 of 3 steps done');
    if (made) await expect(checklist.getByLabel('Example command', { exact: true })).toBeVisible();
    found.push(...(await axeViolations(page, `${colorScheme} first-run checklist, ${made ? 'command shown' : 'nothing made'}`)));
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('button', { name: 'Toggle navigation' }).click();
    await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: /^My account/ })).toBeAttached();
    found.push(...(await axeViolations(page, `${colorScheme} 390 px header, menu open${made ? '' : ', checklist'}`)));
    if ((await sidewaysOverflow(page)) > 0) found.push(`${colorScheme} 390 px: the page scrolls sideways`);
  };
  const contexts = await Promise.all(
    (['light', 'dark'] as const).map(async (colorScheme) => ({ colorScheme, context: await browser.newContext({ colorScheme, reducedMotion: 'reduce', ignoreHTTPSErrors: true }) })),
  );
  try {
    const pages = await Promise.all(
      contexts.map(async ({ colorScheme, context }) => {
        const page = await context.newPage();
        await signIn(page, junction, junction.adminPassword, ROOT_EMAIL);
        // Signed in before going anywhere: a navigation while the sign-in is answered would drop its cookie.
        await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
        return { colorScheme, page };
      }),
    );
    for (const { colorScheme, page } of pages) await states(page, colorScheme, false);
    const channel = await junction.api('POST', '/channels', { name: 'Lab results', urlPattern: '^/lab$', allow: ['lab'], routes: [{ name: 'Lab', host: '127.0.0.1', port: 9, primary: true }] });
    expect(channel.status, channel.text).toBe(201);
    const client = await junction.api('POST', '/clients', { clientID: 'lab-system', name: 'Lab system', roles: ['lab'], password: 'lab-secret-passphrase' });
    expect(client.status, client.text).toBe(201);
    for (const { colorScheme, page } of pages) await states(page, colorScheme, true);
  } finally {
    await Promise.all(contexts.map(({ context }) => context.close()));
  }
  expect(found, found.join('\n')).toEqual([]);
});
