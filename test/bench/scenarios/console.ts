/**
 * Console at scale: 100,000 stored transactions, the console in Debian's Chromium. Each figure is set against the
 * API call the page makes for it, in the same run, so the ratio says what the console adds on top of the server:
 * opening the transactions list, turning pages, a filtered view from its address, and the browser's memory after
 * paging (a list that kept every page it had shown would grow here).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from '@playwright/test';
import type { Page } from '@playwright/test';
import { openApi, passThroughChannel } from '../lib/api.js';
import { round } from '../lib/load.js';
import { ADMIN, startJunction } from '../lib/processes.js';
import { seed, timed } from './log-scale.js';

export interface ConsoleFigures {
  transactions: number;
  pageSize: number;
  api: { newestPageMs: number; failedPageMs: number };
  console: { openListMs: number; nextPageMs: number; filteredFromAddressMs: number };
  ratios: { openListToApi: number; nextPageToApi: number; filteredToApi: number };
  heapMb: { afterFirstPage: number; afterPaging: number; pagesTurned: number };
}

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const PAGE_SIZE = 100;

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return round(sorted[Math.floor(sorted.length / 2)] ?? Number.NaN);
}

async function rows(page: Page): Promise<number> {
  return page.getByRole('table', { name: 'Transactions' }).locator('tbody tr').count();
}

/** Milliseconds from navigation to a full page of rows on screen. */
async function openList(page: Page, url: string): Promise<number> {
  await page.goto('about:blank');
  const started = performance.now();
  await page.goto(url);
  await page.getByRole('table', { name: 'Transactions' }).locator(`tbody tr:nth-child(${PAGE_SIZE})`).waitFor();
  return performance.now() - started;
}

async function heapMb(page: Page): Promise<number> {
  const session = await page.context().newCDPSession(page);
  await session.send('HeapProfiler.collectGarbage');
  const { usedSize } = await session.send('Runtime.getHeapUsage');
  await session.detach();
  return round(usedSize / 2 ** 20, 1);
}

export async function consoleScenario(days: number, perDay: number, samples: number): Promise<ConsoleFigures> {
  const dir = await mkdtemp(join(tmpdir(), 'junction-bench-console-'));
  const dataDir = join(dir, 'data');
  try {
    const first = await startJunction(dataDir);
    const setup = await openApi(first.apiUrl, dataDir);
    const channelIds: string[] = [];
    for (let i = 0; i < 5; i++) {
      const created = await setup.json<{ _id: string }>('POST', '/channels', passThroughChannel(9, `seeded-${i}`, { urlPattern: `^/seeded-${i}/.*$` }));
      channelIds.push(created.body._id);
    }
    await setup.close();
    await first.stop();
    const transactions = await seed(dataDir, channelIds, days, perDay, Date.now());

    const junction = await startJunction(dataDir);
    const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
    try {
      const api = await openApi(junction.apiUrl, dataDir);
      await api.json('GET', '/me');
      const newest = await timed(() => api.json('GET', `/transactions?filterLimit=${PAGE_SIZE}&filterPage=0`), samples + 1);
      const failedFilter = encodeURIComponent(JSON.stringify({ status: ['Failed'] }));
      const failed = await timed(() => api.json('GET', `/transactions?filterLimit=${PAGE_SIZE}&filterPage=0&filters=${failedFilter}`), samples + 1);
      await api.close();

      const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      await page.goto(`${junction.apiUrl}/`);
      await page.getByLabel('Email').fill(ADMIN.user);
      await page.getByLabel(/^Password/).fill(ADMIN.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('navigation', { name: 'Main' }).waitFor();

      const listUrl = `${junction.apiUrl}/#/transactions?size=${PAGE_SIZE}`;
      const open: number[] = [];
      for (let i = 0; i <= samples; i++) open.push(await openList(page, listUrl));
      if ((await rows(page)) !== PAGE_SIZE) throw new Error('the list did not show a full page');
      const afterFirstPage = await heapMb(page);

      const next: number[] = [];
      const pagesTurned = Math.max(10, samples * 2);
      for (let i = 0; i < pagesTurned; i++) {
        const firstLink = page.getByRole('table', { name: 'Transactions' }).locator('tbody tr').first().getByRole('link').first();
        const before = await firstLink.getAttribute('href');
        const started = performance.now();
        await page.getByRole('button', { name: 'Next page' }).click();
        await page.waitForFunction(
          (href) => document.querySelector('table[aria-label="Transactions"] tbody tr a')?.getAttribute('href') !== href,
          before,
        );
        next.push(performance.now() - started);
      }
      const afterPaging = await heapMb(page);

      const filtered: number[] = [];
      for (let i = 0; i <= samples; i++) filtered.push(await openList(page, `${listUrl}&status=Failed`));
      await context.close();

      const openListMs = median(open.slice(1));
      const nextPageMs = median(next);
      const filteredFromAddressMs = median(filtered.slice(1));
      return {
        transactions,
        pageSize: PAGE_SIZE,
        api: { newestPageMs: newest.medianMs, failedPageMs: failed.medianMs },
        console: { openListMs, nextPageMs, filteredFromAddressMs },
        ratios: {
          openListToApi: round(openListMs / newest.medianMs),
          nextPageToApi: round(nextPageMs / newest.medianMs),
          filteredToApi: round(filteredFromAddressMs / failed.medianMs),
        },
        heapMb: { afterFirstPage, afterPaging, pagesTurned },
      };
    } finally {
      await browser.close();
      await junction.stop();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
