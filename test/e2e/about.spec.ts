import type { AboutAnswer } from '../../service/contracts/api.js';
import { ROOT_EMAIL, expect, expectNoHorizontalScroll, shot, signIn, test } from './fixtures.js';

const portOf = (url: string) => new URL(url).port;

test.describe('about', () => {
  test('shows the versions, the ports, the data store and the signed-in user', async ({ console: page, junction }, testInfo) => {
    const answer = await junction.api('GET', '/about');
    expect(answer.status).toBe(200);
    const about = answer.json as AboutAnswer;

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'About' }).click();
    await expect(page.getByRole('heading', { name: 'About', level: 1 })).toBeVisible();

    const versions = page.getByRole('region', { name: 'Versions' });
    await expect(versions.getByRole('row', { name: /^Product/ })).toContainText(about.product);
    await expect(versions.getByRole('row', { name: /^Version/ })).toContainText(about.version);
    await expect(versions.getByRole('row', { name: /^Core version/ })).toContainText(about.currentCoreVersion);
    await expect(versions.getByRole('row', { name: /^Node\.js version/ })).toContainText(about.nodeVersion);
    await expect(versions.getByRole('row', { name: /^Server time zone/ })).toContainText(about.serverTimezone);
    await expect(versions.getByRole('row', { name: /^Server certificate SHA-256/ })).toContainText(about.certificate?.fingerprint256 ?? 'missing');

    // The management port comes from the page's own address; the transaction ports from the service.
    const ports = page.getByRole('region', { name: 'Ports' });
    await expect(ports.getByRole('row', { name: /^Management API and console/ })).toContainText(portOf(junction.apiUrl));
    await expect(ports.getByRole('row', { name: /^Transactions over HTTPS/ })).toContainText(portOf(junction.httpsUrl));
    await expect(ports.getByRole('row', { name: /^Transactions over HTTP\b/ })).toContainText(portOf(junction.httpUrl));
    expect(about.ports).toContainEqual({ purpose: 'transactions', protocol: 'http', port: Number(portOf(junction.httpUrl)) });

    const store = page.getByRole('region', { name: 'Data store' });
    await expect(store.getByRole('row', { name: /^Storage engine/ })).toContainText('Embedded');
    await expect(store.getByRole('row', { name: /^Storage engine/ })).toContainText('nedb');
    await expect(store.getByRole('row', { name: /^State/ })).toContainText('Healthy');

    // The embedded engine is one instance: this one, listed with the API address it registered.
    expect(about.storage.engine).toBe('embedded');
    expect(about.storage.instances).toHaveLength(1);
    const self = about.storage.instances![0]!;
    const instances = page.getByRole('region', { name: 'Instances' });
    const rows = instances.getByRole('table', { name: 'Instances' }).getByRole('row');
    await expect(rows).toHaveCount(2);
    const row = rows.nth(1);
    await expect(row).toContainText(self.name);
    await expect(row).toContainText('this one');
    await expect(row).toContainText(self.apiUrl);
    await expect(row).toContainText(self.version);
    await expect(row.getByRole('cell').nth(3)).not.toBeEmpty();

    await expect(page.getByRole('region', { name: 'Signed in as' }).getByRole('row', { name: /^Email/ })).toContainText(ROOT_EMAIL);
    await expect(page.getByRole('region', { name: 'Signed in as' }).getByRole('row', { name: /^Role/ })).toContainText('Administrator');

    await expectNoHorizontalScroll(page);
    await shot(page, testInfo, 'about');
  });

  test('a user who is not an administrator sees the versions but not the transaction ports', async ({ page, junction }, testInfo) => {
    const password = 'reception-desk-pass-4';
    const created = await junction.api('POST', '/users', { email: 'desk@clinic.example', firstname: 'Front', surname: 'Desk', groups: ['reception'], password });
    expect(created.status).toBe(201);
    await signIn(page, junction, password, 'desk@clinic.example');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'About' }).click();
    await expect(page.getByRole('region', { name: 'Versions' }).getByRole('row', { name: /^Product/ })).toContainText('Junction');
    const ports = page.getByRole('region', { name: 'Ports' });
    await expect(ports).toContainText('Only administrators can see the transaction ports');
    await expect(ports.getByRole('row', { name: /^Management API and console/ })).toContainText(portOf(junction.apiUrl));
    await expect(ports.getByRole('row', { name: /^Transactions/ })).toHaveCount(0);
    await expect(page.getByRole('region', { name: 'Signed in as' }).getByRole('row', { name: /^Role/ })).toContainText('User');
    const instances = page.getByRole('region', { name: 'Instances' });
    await expect(instances).toContainText('Only administrators can see the instances');
    await expect(instances.getByRole('table')).toHaveCount(0);
    await expectNoHorizontalScroll(page);
    await shot(page, testInfo, 'about-user');
  });
});
