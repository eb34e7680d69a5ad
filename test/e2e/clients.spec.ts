import { X509Certificate } from 'node:crypto';
import type { Page } from '@playwright/test';
import { generateSelfSigned } from '../../service/tls/self-signed.js';
import { httpUpstream } from '../helpers/upstream.js';
import type { Upstream } from '../helpers/upstream.js';
import type { PublicClient } from '../../service/contracts/clients.js';
import { expect, expectNoHorizontalScroll, shot, test } from './fixtures.js';
import type { E2EJunction } from './fixtures.js';

async function clients(junction: E2EJunction): Promise<PublicClient[]> {
  const answer = await junction.api('GET', '/clients');
  expect(answer.status).toBe(200);
  return answer.json as PublicClient[];
}

async function openClients(page: Page, junction: E2EJunction): Promise<void> {
  await page.goto(`${junction.apiUrl}/#/clients`);
  await expect(page.getByRole('heading', { name: 'Clients', level: 1 })).toBeVisible();
}

/** Sends one request through the HTTP transaction port with the given Authorization header. */
async function transact(junction: E2EJunction, authorization: string): Promise<number> {
  const response = await fetch(`${junction.httpUrl}/lab/results`, { headers: { authorization } });
  await response.arrayBuffer();
  return response.status;
}

test.describe('clients', () => {
  test.use({ env: { JUNCTION_AUTHENTICATION_ENABLE_CUSTOM_TOKEN_AUTHENTICATION: 'true' } });
  let upstream: Upstream;
  test.beforeAll(async () => {
    upstream = await httpUpstream((_req, res) => res.end('lab ok'));
  });
  test.afterAll(async () => {
    await upstream.close();
  });

  test('an admin adds a client with a password, and that password then works on the transaction port', async ({ console: page, junction }, testInfo) => {
    const channel = await junction.api('POST', '/channels', {
      name: 'Lab results',
      urlPattern: '^/lab/.*$',
      allow: ['lab'],
      routes: [{ name: 'lab', host: '127.0.0.1', port: upstream.port, primary: true }],
    });
    expect(channel.status).toBe(201);
    await openClients(page, junction);
    await expect(page.getByText('No clients yet')).toBeVisible();

    await page.getByRole('button', { name: 'Add client' }).click();
    const form = page.getByRole('dialog', { name: 'Add client' });
    await form.getByLabel(/^Client ID/).fill('lab-system');
    await form.getByLabel(/^Name/).fill('Laboratory system');
    await form.getByLabel(/^Domain/).fill('lab.clinic.example');
    await form.getByLabel(/^Roles/).fill('lab');
    await form.getByLabel(/^Roles/).press('Enter');
    await form.getByLabel(/^Password/).fill('lab-secret-passphrase');
    await form.getByLabel(/^Confirm password/).fill('lab-secret-typo');
    await form.getByRole('button', { name: 'Save client' }).click();
    // Checked in the browser: nothing is sent while the two passwords differ.
    await expect(form.getByText('The two passwords are different')).toBeVisible();
    expect(await clients(junction)).toEqual([]);
    await form.getByLabel(/^Confirm password/).fill('lab-secret-passphrase');
    await shot(page, testInfo, 'clients-form');
    await form.getByRole('button', { name: 'Save client' }).click();
    await expect(form).toBeHidden();

    const table = page.getByRole('table', { name: 'Clients' });
    const row = table.getByRole('row').filter({ hasText: 'lab-system' });
    await expect(row).toContainText('Laboratory system');
    await expect(row).toContainText('lab.clinic.example');
    await expect(row.getByText('Password', { exact: true })).toBeVisible();
    await expect(row.getByText('Certificate', { exact: true })).toHaveCount(0);

    const [saved] = await clients(junction);
    expect(saved).toMatchObject({ clientID: 'lab-system', name: 'Laboratory system', clientDomain: 'lab.clinic.example', roles: ['lab'], hasPassword: true, customTokenSet: false });
    expect(JSON.stringify(saved)).not.toContain('lab-secret-passphrase');
    const basic = (password: string) => `Basic ${Buffer.from(`lab-system:${password}`).toString('base64')}`;
    expect(await transact(junction, basic('lab-secret-passphrase'))).toBe(200);
    expect(await transact(junction, basic('wrong-password'))).toBe(401);

    await expectNoHorizontalScroll(page);
    await shot(page, testInfo, 'clients');
  });

  test('a certificate file is uploaded, a custom token generated, the client edited and then deleted', async ({ console: page, junction }, testInfo) => {
    const created = await junction.api('POST', '/clients', { clientID: 'pharmacy', name: 'Pharmacy', clientDomain: 'pharmacy.clinic.example', roles: ['dispensing'] });
    expect(created.status).toBe(201);
    const channel = await junction.api('POST', '/channels', {
      name: 'Lab results',
      urlPattern: '^/lab/.*$',
      allow: ['dispensing'],
      routes: [{ name: 'lab', host: '127.0.0.1', port: upstream.port, primary: true }],
    });
    expect(channel.status).toBe(201);
    await openClients(page, junction);
    const row = page.getByRole('table', { name: 'Clients' }).getByRole('row').filter({ hasText: 'pharmacy' });
    await expect(row.getByText('None', { exact: true })).toBeVisible();

    // Certificate from a file, as an administrator would load one.
    const pair = generateSelfSigned('pharmacy.clinic.example');
    await row.getByRole('button', { name: 'Edit client pharmacy' }).click();
    let form = page.getByRole('dialog', { name: 'Edit client pharmacy' });
    await expect(form.getByText('No certificate is registered.')).toBeVisible();
    const chooser = page.waitForEvent('filechooser');
    await form.getByRole('button', { name: 'Load certificate file…' }).click();
    await (await chooser).setFiles({ name: 'pharmacy.pem', mimeType: 'application/x-pem-file', buffer: Buffer.from(pair.cert) });
    await expect(form.getByLabel(/^Certificate \(PEM\)/)).toHaveValue(/-----BEGIN CERTIFICATE-----/);
    await form.getByRole('button', { name: 'Save client' }).click();
    await expect(form).toBeHidden();
    const fingerprint = new X509Certificate(pair.cert).fingerprint256;
    let [client] = await clients(junction);
    expect(client).toMatchObject({ certFingerprint: fingerprint, certificateSubjectCN: 'pharmacy.clinic.example' });
    await expect(row.getByText('Certificate', { exact: true })).toBeVisible();

    // The form shows what the server read from the certificate.
    await row.getByRole('button', { name: 'Edit client pharmacy' }).click();
    form = page.getByRole('dialog', { name: 'Edit client pharmacy' });
    await expect(form.getByText(fingerprint)).toBeVisible();
    await expect(form.getByText('pharmacy.clinic.example', { exact: true })).toBeVisible();

    // A custom token generated in the browser, shown once after saving, and accepted on the transaction port.
    await form.getByRole('button', { name: 'Generate token' }).click();
    const token = await form.getByLabel(/^Custom token/).inputValue();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await form.getByLabel(/^Name/).fill('Pharmacy (main building)');
    await form.getByRole('button', { name: 'Save client' }).click();
    await expect(form).toBeHidden();
    await expect(page.getByLabel('New custom token')).toHaveText(token);
    await shot(page, testInfo, 'clients-token');
    [client] = await clients(junction);
    expect(client).toMatchObject({ name: 'Pharmacy (main building)', customTokenSet: true, certFingerprint: fingerprint });
    expect(JSON.stringify(client)).not.toContain(token);
    expect(await transact(junction, `Custom ${token}`)).toBe(200);
    expect(await transact(junction, `Custom ${token}x`)).toBe(401);
    await page.getByRole('button', { name: 'Dismiss' }).click();
    await expect(page.getByLabel('New custom token')).toHaveCount(0);

    // Removing the token is one tick; the certificate stays.
    await row.getByRole('button', { name: 'Edit client pharmacy' }).click();
    form = page.getByRole('dialog', { name: 'Edit client pharmacy' });
    await form.getByLabel('Remove the custom token').check();
    await form.getByRole('button', { name: 'Save client' }).click();
    await expect(form).toBeHidden();
    [client] = await clients(junction);
    expect(client).toMatchObject({ customTokenSet: false, certFingerprint: fingerprint });
    expect(await transact(junction, `Custom ${token}`)).toBe(401);

    await row.getByRole('button', { name: 'Delete client pharmacy' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete client pharmacy?' });
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    expect(await clients(junction)).toHaveLength(1);
    await row.getByRole('button', { name: 'Delete client pharmacy' }).click();
    await confirm.getByRole('button', { name: 'Delete client' }).click();
    await expect(confirm).toBeHidden();
    await expect(page.getByText('No clients yet')).toBeVisible();
    expect(await clients(junction)).toEqual([]);
  });

  test('problems the server finds are shown next to the field they concern', async ({ console: page, junction }, testInfo) => {
    expect((await junction.api('POST', '/clients', { clientID: 'ward-a', name: 'Ward A', password: 'ward-a-passphrase' })).status).toBe(201);
    await openClients(page, junction);
    await page.getByRole('button', { name: 'Add client' }).click();
    const form = page.getByRole('dialog', { name: 'Add client' });
    await form.getByLabel(/^Client ID/).fill('ward-b');
    await form.getByLabel(/^Name/).fill('Ward B');
    await form.getByLabel(/^Certificate \(PEM\)/).fill('this is not a certificate');
    await form.getByRole('button', { name: 'Save client' }).click();
    const certificate = form.getByLabel(/^Certificate \(PEM\)/);
    await expect(certificate).toHaveAttribute('aria-invalid', 'true');
    await expect(form.getByText(/Must be a PEM X\.509 certificate/)).toBeVisible();
    await expect(form.getByRole('alert')).toContainText('Some fields need changing');
    await shot(page, testInfo, 'clients-validation');

    // A clientID already taken is named under the Client ID field.
    await form.getByLabel(/^Certificate \(PEM\)/).fill('');
    await form.getByLabel(/^Client ID/).fill('ward-a');
    await form.getByRole('button', { name: 'Save client' }).click();
    await expect(form.getByLabel(/^Client ID/)).toHaveAttribute('aria-invalid', 'true');
    await expect(form.getByText('Already in use by another client')).toBeVisible();
    expect((await clients(junction)).map((c) => c.clientID)).toEqual(['ward-a']);
    await expectNoHorizontalScroll(page);
  });
});
