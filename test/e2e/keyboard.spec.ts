/**
 * The console by keyboard alone: no click, no mouse at all. A user signs in, creates a channel and re-runs a
 * transaction with Tab, arrows, Enter and typing, seeing a focus ring on each control; a dialog keeps focus inside
 * it and gives it back to its button when closed; the dashboard announces a new transaction without taking focus.
 */
import type { Locator, Page } from '@playwright/test';
import { ADMIN_PASSWORD, ROOT_EMAIL, expect, test } from './fixtures.js';
import { LAB_CHANNEL, setupLab } from './transactions-setup.js';

/** Presses Tab (or Shift+Tab) until `target` has focus; fails if it never gets it, so unreachable controls fail. */
async function tabTo(page: Page, target: Locator, backwards = false, most = 80): Promise<void> {
  for (let i = 0; i < most; i++) {
    if (await target.evaluate((el) => el === document.activeElement).catch(() => false)) return;
    await page.keyboard.press(backwards ? 'Shift+Tab' : 'Tab');
  }
  await expect(target, `reached by ${backwards ? 'Shift+' : ''}Tab`).toBeFocused();
}

/** A focused button or link shows a focus ring (an outline), not just a change of colour. */
async function expectFocusRing(target: Locator): Promise<void> {
  await expect(target).toBeFocused();
  const outline = await target.evaluate((el) => {
    const style = getComputedStyle(el);
    return { style: style.outlineStyle, width: parseFloat(style.outlineWidth) };
  });
  expect(outline.style, 'a focus ring is drawn').not.toBe('none');
  expect(outline.width, 'the focus ring is at least 1px wide').toBeGreaterThanOrEqual(1);
}

async function press(page: Page, target: Locator, key = 'Enter'): Promise<void> {
  await tabTo(page, target);
  await expectFocusRing(target);
  await page.keyboard.press(key);
}

async function typeInto(page: Page, field: Locator, text: string): Promise<void> {
  await tabTo(page, field);
  await page.keyboard.type(text);
}

test('signs in, creates a channel and re-runs a transaction by keyboard alone', async ({ page, junction }) => {
  const lab = await setupLab(junction);
  try {
    const txId = await lab.send('/lab/json');

    // Sign in.
    await page.goto(`${junction.apiUrl}/`);
    await typeInto(page, page.getByLabel('Email'), ROOT_EMAIL);
    await typeInto(page, page.getByLabel(/^Password/), ADMIN_PASSWORD);
    await page.keyboard.press('Enter');
    const nav = page.getByRole('navigation', { name: 'Main' });
    await expect(nav).toBeVisible();

    // A dialog holds focus while open and gives it back to its opener when closed.
    await press(page, nav.getByRole('link', { name: 'Clients' }));
    await expect(page.getByRole('heading', { level: 1, name: 'Clients' })).toBeVisible();
    const addClient = page.getByRole('button', { name: 'Add client' });
    await press(page, addClient);
    const dialog = page.getByRole('dialog', { name: 'Add client' });
    await expect(dialog).toBeVisible();
    for (let i = 0; i < 40; i++) {
      await page.keyboard.press('Tab');
      expect(await dialog.evaluate((el) => el.contains(document.activeElement)), `focus stays in the dialog after ${i + 1} Tabs`).toBe(true);
    }
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();
    await expect(addClient).toBeFocused();

    // Create a channel.
    await press(page, nav.getByRole('link', { name: 'Channels' }), 'Enter');
    await expect(page.getByRole('heading', { level: 1, name: 'Channels' })).toBeVisible();
    await press(page, page.getByRole('link', { name: 'New channel' }));
    await expect(page.getByRole('heading', { level: 1, name: 'New channel' })).toBeVisible();
    await typeInto(page, page.getByLabel(/^Name/), 'Radiology');
    await typeInto(page, page.getByLabel(/^URL pattern/), '^/radiology/.*$');
    // Tabs are one stop; the arrows move between them (WAI-ARIA tabs pattern).
    await tabTo(page, page.getByRole('tab', { name: /^Basics/ }), true);
    await page.keyboard.press('ArrowRight');
    await expect(page.getByRole('tab', { name: /^Routes/ })).toHaveAttribute('aria-selected', 'true');
    await typeInto(page, page.getByLabel(/^Route name/), 'PACS');
    await typeInto(page, page.getByLabel(/^Host/), '127.0.0.1');
    await typeInto(page, page.getByLabel(/^Port/), '8042');
    await press(page, page.getByRole('button', { name: 'Save channel' }));
    await expect(page.getByRole('status').filter({ hasText: 'Channel “Radiology” was created.' })).toBeVisible();
    const channels = (await junction.api('GET', '/channels')).json as { name: string; urlPattern: string; routes: { host: string; port: number }[] }[];
    const saved = channels.find((c) => c.name === 'Radiology');
    expect(saved?.urlPattern).toBe('^/radiology/.*$');
    expect(saved?.routes[0]).toMatchObject({ host: '127.0.0.1', port: 8042 });

    // Re-run a transaction from its page.
    await press(page, nav.getByRole('link', { name: 'Transactions' }));
    await expect(page.getByRole('heading', { level: 1, name: 'Transactions' })).toBeVisible();
    await press(page, page.getByRole('link', { name: /\/lab\/json/ }).first());
    await expect(page).toHaveURL(new RegExp(`#/transactions/${txId}$`));
    await press(page, page.getByRole('button', { name: 'Re-run', exact: true }));
    // It asks first; the dialog holds focus, so Tab reaches its buttons.
    await press(page, page.getByRole('dialog', { name: 'Re-run this transaction?' }).getByRole('button', { name: 'Re-run now' }));
    await expect(page.getByRole('status').filter({ hasText: 'Re-run finished' })).toBeVisible();
    const tasks = (await junction.api('GET', '/tasks')).json as { _id: string }[];
    expect(tasks).toHaveLength(1);
    const task = (await junction.api('GET', `/tasks/${tasks[0]?._id ?? ''}`)).json as { transactions: { tid: string }[] };
    expect(task.transactions.map((t) => t.tid)).toEqual([txId]);
  } finally {
    await lab.close();
  }
});

test('the dashboard announces a new transaction politely, without taking focus', async ({ console: page, junction }) => {
  const lab = await setupLab(junction);
  try {
    // Loaded after the channel exists, so the announcement can name it.
    await page.reload();
    await expect(page.getByRole('heading', { level: 1, name: 'Dashboard' })).toBeVisible();
    const announcer = page.getByTestId('feed-announcer');
    await expect(announcer).toHaveAttribute('aria-live', 'polite');
    await expect(announcer).toHaveText('');
    const allTransactions = page.getByRole('link', { name: 'All transactions' });
    await tabTo(page, allTransactions);
    await expect(page.getByRole('link', { name: 'Successful 0', exact: true })).toBeVisible();
    await lab.send('/lab/json');
    await expect(announcer).toContainText(`GET /lab/json on ${LAB_CHANNEL}`);
    await expect(allTransactions).toBeFocused();
  } finally {
    await lab.close();
  }
});
