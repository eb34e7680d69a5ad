import type { ServerResponse } from 'node:http';
import type { Page } from '@playwright/test';
import type { TaskDetail, TaskView } from '../../service/contracts/tasks.js';
import { httpUpstream } from '../helpers/upstream.js';
import type { Upstream } from '../helpers/upstream.js';
import type { E2EJunction } from './fixtures.js';
import { ROOT_EMAIL, expect, expectNoHorizontalScroll, shot, test } from './fixtures.js';

const CLIENT_AUTH = `Basic ${Buffer.from('lab:lab-client-pass-1').toString('base64')}`;

/** An upstream that answers at once, or holds its answers while `hold` is on, so a task can be caught mid-run. */
class GatedUpstream {
  hold = false;
  readonly waiting: ServerResponse[] = [];
  server!: Upstream;

  async start(): Promise<void> {
    this.server = await httpUpstream((req, res) => {
      req.resume();
      req.on('end', () => {
        if (this.hold) this.waiting.push(res);
        else this.answer(res);
      });
    });
  }

  answer(res: ServerResponse): void {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"ok":true}');
  }

  release(): void {
    for (const res of this.waiting.splice(0)) this.answer(res);
  }
}

/** A channel to the upstream, a client, and `count` real transactions through the HTTP transaction port. */
async function transactions(junction: E2EJunction, upstream: Upstream, count: number): Promise<string[]> {
  const channel = await junction.api('POST', '/channels', {
    name: 'Lab orders',
    urlPattern: '^/lab/.*$',
    authType: 'private',
    allow: ['lab'],
    routes: [{ name: 'Lab system', host: '127.0.0.1', port: upstream.port, primary: true }],
  });
  expect(channel.status, channel.text).toBe(201);
  const client = await junction.api('POST', '/clients', { clientID: 'lab', name: 'Lab', roles: ['laboratory'], password: 'lab-client-pass-1' });
  expect(client.status, client.text).toBe(201);
  const ids: string[] = [];
  for (let i = 1; i <= count; i++) {
    const res = await fetch(`${junction.httpUrl}/lab/orders/${i}`, { headers: { authorization: CLIENT_AUTH } });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    const id = res.headers.get('x-openhim-transactionid');
    expect(id).toMatch(/^[0-9a-f]{24}$/);
    ids.push(id ?? '');
  }
  // A transaction can be re-run once it is stored as finished.
  await expect
    .poll(async () => Promise.all(ids.map(async (id) => ((await junction.api('GET', `/transactions/${id}`)).json as { status: string }).status)))
    .toEqual(ids.map(() => 'Successful'));
  return ids;
}

async function createTask(junction: E2EJunction, tids: string[], paused: boolean): Promise<TaskView> {
  const res = await junction.api('POST', '/tasks', { tids, paused, batchSize: 1 });
  expect(res.status, res.text).toBe(201);
  return res.json as TaskView;
}

async function taskStatus(junction: E2EJunction, id: string): Promise<string> {
  return ((await junction.api('GET', `/tasks/${id}`)).json as TaskView).status;
}

async function confirm(page: Page, title: string, button: string): Promise<void> {
  const dialog = page.getByRole('dialog', { name: title });
  await dialog.getByRole('button', { name: button }).click();
  await expect(dialog).toBeHidden();
}

test.describe('tasks', () => {
  let upstream = new GatedUpstream();
  test.beforeEach(async () => {
    upstream = new GatedUpstream();
    await upstream.start();
  });
  test.afterEach(async () => {
    upstream.release();
    await upstream.server.close();
  });

  test('a task is paused, resumed and cancelled from the page, with its progress shown live, then deleted', async ({ console: page, junction }, testInfo) => {
    const tids = await transactions(junction, upstream.server, 3);
    upstream.hold = true;
    const task = await createTask(junction, tids, true);

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Tasks' }).click();
    const table = page.getByRole('table', { name: 'Re-run tasks' });
    const row = table.getByRole('row').filter({ hasText: ROOT_EMAIL });
    await expect(row).toContainText('Paused');
    await expect(row).toContainText('0 of 3 re-run');
    await expect(row.getByRole('progressbar', { name: 'Progress: 0 of 3 re-run' })).toBeVisible();
    await expect(row.getByRole('button', { name: /^Pause/ })).toHaveCount(0);
    await expectNoHorizontalScroll(page);
    await shot(page, testInfo, 'tasks-paused');

    // Resume: the first re-run reaches the upstream, which holds it.
    await row.getByRole('button', { name: /^Resume task created/ }).click();
    await expect.poll(() => upstream.waiting.length).toBe(1);
    expect(['Queued', 'Processing']).toContain(await taskStatus(junction, task._id));
    await expect(row).toContainText('Processing');

    // Pause: it stops after the re-run in flight, which the progress shows when it finishes.
    await row.getByRole('button', { name: /^Pause task created/ }).click();
    await expect(row).toContainText('Paused');
    expect(await taskStatus(junction, task._id)).toBe('Paused');
    upstream.release();
    await expect(row).toContainText('1 of 3 re-run');
    await expect(row.getByRole('progressbar', { name: 'Progress: 1 of 3 re-run' })).toBeVisible();
    expect(upstream.waiting).toHaveLength(0);
    expect((await junction.api('GET', `/tasks/${task._id}`)).json).toMatchObject({ status: 'Paused', remainingTransactions: 2 });

    // Resume again, and cancel while the second re-run is held.
    await row.getByRole('button', { name: /^Resume/ }).click();
    await expect.poll(() => upstream.waiting.length).toBe(1);
    await row.getByRole('button', { name: /^Cancel task created/ }).click();
    await expect(page.getByRole('dialog', { name: 'Cancel this task?' })).toContainText('will not be re-run');
    await confirm(page, 'Cancel this task?', 'Cancel task');
    await expect(row).toContainText('Cancelled');
    expect(await taskStatus(junction, task._id)).toBe('Cancelled');
    upstream.release();
    await expect(row).toContainText('2 of 3 re-run');
    await expect(row.getByRole('button', { name: /^(Resume|Pause|Cancel)/ })).toHaveCount(0);
    await shot(page, testInfo, 'tasks-cancelled');

    // Delete asks first.
    await row.getByRole('button', { name: /^Delete task created/ }).click();
    await confirm(page, 'Delete this task?', 'Delete task');
    await expect(page.getByText('No re-run tasks yet.')).toBeVisible();
    expect((await junction.api('GET', `/tasks/${task._id}`)).status).toBe(404);
  });

  test('a new task appears and completes live; its page lists each transaction and its re-run', async ({ console: page, junction }, testInfo) => {
    const tids = await transactions(junction, upstream.server, 3);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Tasks' }).click();
    await expect(page.getByText('No re-run tasks yet.')).toBeVisible();

    const task = await createTask(junction, tids, false);
    const row = page.getByRole('table', { name: 'Re-run tasks' }).getByRole('row').filter({ hasText: ROOT_EMAIL });
    await expect(row).toContainText('Completed');
    await expect(row).toContainText('3 of 3 re-run');
    expect(await taskStatus(junction, task._id)).toBe('Completed');
    await expectNoHorizontalScroll(page);
    await shot(page, testInfo, 'tasks-completed');

    // The status filter asks the server for matching tasks only.
    await page.getByRole('combobox', { name: 'Status' }).click();
    await page.getByRole('option', { name: 'Paused' }).click();
    await expect(page.getByText('No paused tasks.')).toBeVisible();
    await page.getByRole('combobox', { name: 'Status' }).click();
    await page.getByRole('option', { name: 'Completed' }).click();
    await expect(row).toContainText('Completed');

    await row.getByRole('link', { name: /^Open the task created/ }).click();
    await expect(page.getByRole('heading', { name: 'Re-run task', level: 1 })).toBeVisible();
    await expect(page.getByRole('table', { name: 'Task summary' })).toContainText(task._id);
    await expect(page.getByRole('table', { name: 'Task summary' })).toContainText(ROOT_EMAIL);
    const detail = (await junction.api('GET', `/tasks/${task._id}`)).json as TaskDetail;
    const items = page.getByRole('table', { name: 'Transactions of the task' });
    for (const [i, tid] of tids.entries()) {
      const itemRow = items.getByRole('row').filter({ hasText: tid });
      await expect(itemRow).toContainText(String(i + 1));
      await expect(itemRow).toContainText('Re-run');
      await expect(itemRow).toContainText('Successful');
      await expect(itemRow.getByRole('link', { name: tid })).toHaveAttribute('href', `#/transactions/${tid}`);
      const rerunID = detail.transactions[i]?.rerunID ?? '';
      expect(rerunID).toMatch(/^[0-9a-f]{24}$/);
      await expect(itemRow.getByRole('link', { name: rerunID })).toHaveAttribute('href', `#/transactions/${rerunID}`);
    }
    await expectNoHorizontalScroll(page);
    await shot(page, testInfo, 'task-detail');

    // A finished task can only be deleted; deleting it from its page goes back to the list.
    await expect(page.getByRole('button', { name: /^(Pause|Resume|Cancel)/ })).toHaveCount(0);
    await page.getByRole('button', { name: /^Delete task created/ }).click();
    await confirm(page, 'Delete this task?', 'Delete task');
    await expect(page.getByRole('heading', { name: 'Tasks', level: 1 })).toBeVisible();
    expect((await junction.api('GET', `/tasks/${task._id}`)).status).toBe(404);
  });

  test('pages through the tasks and through a long task\'s transactions', async ({ console: page, junction }, testInfo) => {
    const tids = await transactions(junction, upstream.server, 51);
    const long = await createTask(junction, tids, true);
    for (let i = 0; i < 20; i++) await createTask(junction, [tids[i] ?? ''], true);

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Tasks' }).click();
    const rows = page.getByRole('table', { name: 'Re-run tasks' }).getByRole('row').filter({ hasText: ROOT_EMAIL });
    await expect(rows).toHaveCount(20);
    await expect(rows.filter({ hasText: '0 of 51 re-run' })).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Newer tasks' })).toBeDisabled();
    await page.getByRole('button', { name: 'Older tasks' }).click();
    await expect(page.getByText('Page 2')).toBeVisible();
    await expect(rows).toHaveCount(1);
    await expect(rows).toContainText('0 of 51 re-run');
    await expect(page.getByRole('button', { name: 'Older tasks' })).toBeDisabled();

    await rows.getByRole('link', { name: /^Open the task created/ }).click();
    await expect(page.getByRole('table', { name: 'Task summary' })).toContainText(long._id);
    const items = page.getByRole('table', { name: 'Transactions of the task' });
    await expect(items.getByRole('row')).toHaveCount(51);
    await expect(items.getByRole('row').nth(1)).toContainText(tids[0] ?? '');
    await expect(items.getByRole('row').nth(1)).toContainText('Waiting');
    await expectNoHorizontalScroll(page);
    await shot(page, testInfo, 'task-detail-paged');
    await page.getByRole('navigation', { name: 'Pages of transactions' }).getByRole('button', { name: 'Page 2' }).click();
    await expect(items.getByRole('row')).toHaveCount(2);
    await expect(items.getByRole('row').nth(1)).toContainText('51');
    await expect(items.getByRole('row').nth(1)).toContainText(tids[50] ?? '');
  });
});
