import type { Page } from '@playwright/test';
import type { E2EJunction } from './fixtures.js';
import { expect, expectNoHorizontalScroll, shot, test } from './fixtures.js';

const URN = 'urn:mediator:lab-adapter';

/** A registration with a configuration definition of every type, lists included, and defaults for each. */
const registration = {
  urn: URN,
  version: '1.2.0',
  name: 'Lab adapter',
  description: 'Turns lab orders into HL7 messages',
  endpoints: [{ name: 'Adapter', host: '127.0.0.1', port: 4001, path: '/orders', primary: true }],
  defaultChannelConfig: [
    { name: 'Lab orders', urlPattern: '^/lab/orders$', routes: [{ name: 'Adapter', host: '127.0.0.1', port: 4001, primary: true }] },
    { name: 'Lab results', urlPattern: '^/lab/results$', routes: [{ name: 'Adapter', host: '127.0.0.1', port: 4001, path: '/results', primary: true }] },
  ],
  configDefs: [
    { param: 'labName', displayName: 'Laboratory name', type: 'string', description: 'Printed on every report' },
    { param: 'footer', displayName: 'Report footer', type: 'bigstring' },
    { param: 'sendCopies', displayName: 'Send copies', type: 'bool' },
    { param: 'timeoutSeconds', displayName: 'Timeout in seconds', type: 'number' },
    { param: 'format', displayName: 'Message format', type: 'option', values: ['HL7v2', 'FHIR', 'CSV'] },
    { param: 'headers', displayName: 'Extra headers', type: 'map' },
    {
      param: 'upstream',
      displayName: 'Upstream server',
      type: 'struct',
      template: [
        { param: 'host', displayName: 'Host', type: 'string' },
        { param: 'port', displayName: 'Port', type: 'number' },
        { param: 'tls', displayName: 'Use TLS', type: 'bool' },
        { param: 'password', displayName: 'Upstream password', type: 'password' },
      ],
    },
    { param: 'apiKey', displayName: 'API key', type: 'password' },
    { param: 'allowedHosts', displayName: 'Allowed hosts', type: 'string', array: true },
    {
      param: 'mirrors',
      displayName: 'Mirrors',
      type: 'struct',
      array: true,
      template: [
        { param: 'url', displayName: 'Mirror URL', type: 'string' },
        { param: 'weight', displayName: 'Weight', type: 'number' },
      ],
    },
    { param: 'backupKeys', displayName: 'Backup keys', type: 'password', array: true },
  ],
  config: {
    labName: 'Central Lab',
    footer: 'Checked by the lab',
    sendCopies: false,
    timeoutSeconds: 30,
    format: 'HL7v2',
    headers: { 'X-Lab': 'central' },
    upstream: { host: 'lab.local', port: 8443, tls: true, password: 'upstream-secret' },
    apiKey: 'api-key-secret',
    allowedHosts: ['10.0.0.1'],
    mirrors: [{ url: 'https://mirror-1.example', weight: 1 }],
    backupKeys: ['first-backup', 'second-backup'],
  },
};

async function register(junction: E2EJunction, doc: Record<string, unknown> = registration): Promise<void> {
  const res = await junction.api('POST', '/mediators', doc);
  expect(res.status, res.text).toBe(201);
}

async function heartbeat(junction: E2EJunction, uptime: number, urn = URN): Promise<void> {
  const res = await junction.api('POST', `/mediators/${encodeURIComponent(urn)}/heartbeat`, { uptime });
  expect(res.status, res.text).toBe(200);
}

/** The configuration as the mediator receives it: passwords in clear. */
async function mediatorConfig(junction: E2EJunction): Promise<Record<string, unknown>> {
  const res = await junction.api('POST', `/mediators/${encodeURIComponent(URN)}/heartbeat`, { uptime: 10, config: true });
  expect(res.status).toBe(200);
  return res.json as Record<string, unknown>;
}

async function openMediator(page: Page, name: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Mediators' }).click();
  await page.getByRole('table', { name: 'Mediators' }).getByRole('link', { name }).click();
  await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible();
}

test.describe('mediators', () => {
  test('the list shows who is online with a live uptime; the settings form covers every type and saves', async ({ console: page, junction }, testInfo) => {
    await register(junction);
    await heartbeat(junction, 3600);
    await register(junction, { urn: 'urn:mediator:silent', version: '0.1.0', name: 'Silent mediator', endpoints: [{ name: 'E', host: '127.0.0.1', port: 4002 }] });

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Mediators' }).click();
    const table = page.getByRole('table', { name: 'Mediators' });
    const lab = table.getByRole('row', { name: /Lab adapter/ });
    await expect(lab).toContainText(URN);
    await expect(lab).toContainText('1.2.0');
    await expect(lab).toContainText('Online');
    await expect(lab).toContainText('1 h 0 min');
    await expect(table.getByRole('row', { name: /Silent mediator/ })).toContainText('Offline');
    await expect(table.getByRole('row', { name: /Silent mediator/ })).toContainText('never');

    // A heartbeat arriving while the page is open shows without reloading (the live feed).
    await heartbeat(junction, 7200 + 125);
    await expect(lab).toContainText('2 h 2 min');
    await heartbeat(junction, 5, 'urn:mediator:silent');
    await expect(table.getByRole('row', { name: /Silent mediator/ })).toContainText('Online');
    await expectNoHorizontalScroll(page);
    await shot(page, testInfo, 'mediators-list');

    await table.getByRole('link', { name: 'Lab adapter' }).click();
    await expect(page.getByRole('heading', { name: 'Lab adapter', level: 1 })).toBeVisible();
    await expect(page.getByRole('table', { name: 'Mediator summary' })).toContainText('Online');
    await expect(page.getByRole('table', { name: 'Endpoints' })).toContainText('http://127.0.0.1:4001/orders');

    // Every type is shown with its current value.
    const form = page.getByRole('form', { name: 'Mediator settings' });
    await expect(form.getByLabel(/^Laboratory name/)).toHaveValue('Central Lab');
    await expect(form.getByLabel(/^Laboratory name/)).toHaveAccessibleDescription('Printed on every report');
    await expect(form.getByRole('textbox', { name: 'Report footer' })).toHaveValue('Checked by the lab');
    await expect(form.getByRole('switch', { name: 'Send copies' })).not.toBeChecked();
    await expect(form.getByRole('textbox', { name: 'Timeout in seconds' })).toHaveValue('30');
    await expect(form.getByRole('combobox', { name: 'Message format' })).toHaveValue('HL7v2');
    const headers = form.getByRole('group', { name: 'Extra headers' });
    await expect(headers.getByRole('textbox', { name: 'Extra headers: key 1' })).toHaveValue('X-Lab');
    await expect(headers.getByRole('textbox', { name: 'Extra headers: value 1' })).toHaveValue('central');
    const upstream = form.getByRole('group', { name: 'Upstream server' });
    await expect(upstream.getByRole('textbox', { name: 'Host' })).toHaveValue('lab.local');
    await expect(upstream.getByRole('textbox', { name: 'Port' })).toHaveValue('8443');
    await expect(upstream.getByRole('switch', { name: 'Use TLS' })).toBeChecked();
    await expect(upstream.getByLabel('Upstream password')).toHaveValue('********');
    const apiKey = form.getByLabel('API key', { exact: true });
    await expect(apiKey).toHaveValue('********');
    await expect(apiKey).toHaveAttribute('type', 'password');
    await expect(apiKey).toHaveAccessibleDescription(/A password is stored/);
    await expect(form.getByRole('textbox', { name: 'Allowed hosts 1', exact: true })).toHaveValue('10.0.0.1');
    await expect(form.getByRole('group', { name: 'Mirrors 1' }).getByRole('textbox', { name: 'Mirror URL' })).toHaveValue('https://mirror-1.example');
    await expect(form.getByLabel('Backup keys 2', { exact: true })).toHaveValue('********');
    await expectNoHorizontalScroll(page);
    await shot(page, testInfo, 'mediator-detail');

    // Change one of each, keeping the masked passwords.
    await form.getByLabel(/^Laboratory name/).fill('Central Laboratory');
    await form.getByRole('textbox', { name: 'Report footer' }).fill('Checked by the lab\nCall 555-0100 with questions');
    await form.getByRole('switch', { name: 'Send copies' }).focus();
    await page.keyboard.press('Space');
    await expect(form.getByRole('switch', { name: 'Send copies' })).toBeChecked();
    await form.getByRole('textbox', { name: 'Timeout in seconds' }).fill('45');
    await form.getByRole('combobox', { name: 'Message format' }).click();
    await page.getByRole('option', { name: 'FHIR' }).click();
    await headers.getByRole('button', { name: 'Add entry to Extra headers' }).click();
    await expect(headers.getByRole('textbox', { name: 'Extra headers: key 2' })).toBeFocused();
    await page.keyboard.type('X-Site');
    await headers.getByRole('textbox', { name: 'Extra headers: value 2' }).fill('north wing');
    await upstream.getByRole('textbox', { name: 'Host' }).fill('lab2.local');
    await form.getByRole('button', { name: 'Add item to Allowed hosts' }).click();
    await form.getByRole('textbox', { name: 'Allowed hosts 2', exact: true }).fill('10.0.0.2');
    await form.getByRole('button', { name: 'Add item to Mirrors' }).click();
    await form.getByRole('group', { name: 'Mirrors 2' }).getByRole('textbox', { name: 'Mirror URL' }).fill('https://mirror-2.example');
    await form.getByRole('group', { name: 'Mirrors 2' }).getByRole('textbox', { name: 'Weight' }).fill('2');

    // Removing the first backup key moves the second up: its mask can no longer be matched to a stored key by
    // position, so the form asks for it again instead of silently keeping the wrong one.
    await form.getByRole('button', { name: 'Remove Backup keys 1' }).click();
    await expect(form.getByLabel('Backup keys 2', { exact: true })).toHaveCount(0);
    await form.getByRole('button', { name: 'Save settings' }).click();
    await expect(form.getByLabel('Backup keys 1', { exact: true })).toHaveAccessibleDescription(/Type this password again/);
    await expect(form.getByRole('alert')).toContainText('Some settings need fixing');
    await expect(form.getByLabel('Backup keys 1', { exact: true })).toBeFocused();
    expect((await mediatorConfig(junction)).labName).toBe('Central Lab');
    await form.getByLabel('Backup keys 1', { exact: true }).fill('third-backup');
    await form.getByRole('button', { name: 'Save settings' }).click();
    await expect(form.getByRole('status')).toContainText('The settings were saved');

    const config = await mediatorConfig(junction);
    expect(config).toEqual({
      labName: 'Central Laboratory',
      footer: 'Checked by the lab\nCall 555-0100 with questions',
      sendCopies: true,
      timeoutSeconds: 45,
      format: 'FHIR',
      headers: { 'X-Lab': 'central', 'X-Site': 'north wing' },
      upstream: { host: 'lab2.local', port: 8443, tls: true, password: 'upstream-secret' },
      apiKey: 'api-key-secret',
      allowedHosts: ['10.0.0.1', '10.0.0.2'],
      mirrors: [
        { url: 'https://mirror-1.example', weight: 1 },
        { url: 'https://mirror-2.example', weight: 2 },
      ],
      backupKeys: ['third-backup'],
    });
    // The answer masks the passwords again, and the form shows what was saved.
    await expect(form.getByLabel('API key', { exact: true })).toHaveValue('********');
    await expect(form.getByLabel('Backup keys 1', { exact: true })).toHaveValue('********');
    await expect(form.getByRole('textbox', { name: 'Allowed hosts 2', exact: true })).toHaveValue('10.0.0.2');
    await page.reload();
    await expect(form.getByLabel(/^Laboratory name/)).toHaveValue('Central Laboratory');
    await shot(page, testInfo, 'mediator-saved');
  });

  test('a value the server refuses is explained next to its field; default channels install; the mediator is deleted', async ({ console: page, junction }, testInfo) => {
    await register(junction);
    await heartbeat(junction, 42);
    await openMediator(page, 'Lab adapter');

    // Map keys become stored field names, so the server refuses a dot in one and names the key.
    const form = page.getByRole('form', { name: 'Mediator settings' });
    const headers = form.getByRole('group', { name: 'Extra headers' });
    await headers.getByRole('button', { name: 'Add entry to Extra headers' }).click();
    await headers.getByRole('textbox', { name: 'Extra headers: key 2' }).fill('X.Forwarded');
    await headers.getByRole('textbox', { name: 'Extra headers: value 2' }).fill('yes');
    await form.getByRole('button', { name: 'Save settings' }).click();
    const badKey = headers.getByRole('textbox', { name: 'Extra headers: key 2' });
    await expect(badKey).toHaveAccessibleDescription(/is not a usable map key/);
    await expect(badKey).toHaveAttribute('aria-invalid', 'true');
    await expect(form.getByRole('alert')).toContainText('Could not save the settings');
    await expect(headers.getByRole('textbox', { name: 'Extra headers: key 1' })).not.toHaveAttribute('aria-invalid', 'true');
    expect((await mediatorConfig(junction)).headers).toEqual({ 'X-Lab': 'central' });
    await expectNoHorizontalScroll(page);
    await shot(page, testInfo, 'mediator-server-error');
    await badKey.fill('X-Forwarded');
    await form.getByRole('button', { name: 'Save settings' }).click();
    await expect(form.getByRole('status')).toContainText('saved');
    expect((await mediatorConfig(junction)).headers).toEqual({ 'X-Lab': 'central', 'X-Forwarded': 'yes' });

    // Install one chosen default channel, then see the clash when installing all, then the other one.
    const defaults = page.getByRole('region', { name: 'Default channels' });
    await expect(defaults.getByRole('button', { name: /Install chosen channels/ })).toBeDisabled();
    await defaults.getByRole('checkbox', { name: 'Choose Lab orders' }).check();
    await defaults.getByRole('button', { name: 'Install chosen channels (1)' }).click();
    await expect(defaults.getByRole('status')).toContainText('Installed: Lab orders.');
    await expect(defaults.getByRole('row', { name: /Lab orders/ }).getByRole('link', { name: 'Yes, open channel' })).toBeVisible();
    const names = async () => ((await junction.api('GET', '/channels')).json as { name: string }[]).map((c) => c.name).sort();
    expect(await names()).toEqual(['Lab orders']);

    await defaults.getByRole('button', { name: 'Install all' }).click();
    await expect(defaults.getByRole('alert')).toContainText('A channel named "Lab orders" already exists');
    expect(await names()).toEqual(['Lab orders']);
    await defaults.getByRole('checkbox', { name: 'Choose Lab results' }).check();
    await defaults.getByRole('button', { name: 'Install chosen channels (1)' }).click();
    await expect(defaults.getByRole('status')).toContainText('Installed: Lab results.');
    expect(await names()).toEqual(['Lab orders', 'Lab results']);
    const installed = (await junction.api('GET', '/channels')).json as { name: string; urlPattern: string }[];
    expect(installed.find((c) => c.name === 'Lab results')?.urlPattern).toBe('^/lab/results$');
    await shot(page, testInfo, 'mediator-channels');

    // Delete asks first; keeping it changes nothing.
    await page.getByRole('button', { name: 'Delete mediator' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete this mediator?' });
    await expect(dialog).toContainText('Channels installed from it stay');
    await dialog.getByRole('button', { name: 'Keep it' }).click();
    await expect(dialog).toBeHidden();
    expect((await junction.api('GET', `/mediators/${encodeURIComponent(URN)}`)).status).toBe(200);
    await page.getByRole('button', { name: 'Delete mediator' }).click();
    await page.getByRole('dialog', { name: 'Delete this mediator?' }).getByRole('button', { name: 'Delete' }).click();
    await expect(page.getByRole('heading', { name: 'Mediators', level: 1 })).toBeVisible();
    await expect(page.getByText('No mediator has registered yet')).toBeVisible();
    expect((await junction.api('GET', `/mediators/${encodeURIComponent(URN)}`)).status).toBe(404);
    expect(await names()).toEqual(['Lab orders', 'Lab results']);
  });
});
