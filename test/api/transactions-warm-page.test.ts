/** The newest page the transaction routes read once in the background after start (issue 19). */
import { setImmediate as turn } from 'node:timers/promises';
import fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { SchemaWarmup } from '../../service/api/schema-warmup.js';
import { transactionRoutes } from '../../service/api/routes/transactions.js';
import type { TransactionRoutesDeps } from '../../service/api/routes/transactions.js';
import type { PageOptions, TransactionFilter, TransactionLog } from '../../service/storage/transactions.js';

async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await turn();
}

/** The routes with a log that only records its pages; nothing else is reached by these tests. */
async function routes(warmup: SchemaWarmup, pageFails = false) {
  const pages: [TransactionFilter, PageOptions][] = [];
  const transactions = {
    page: (filter: TransactionFilter, options: PageOptions) => {
      pages.push([filter, options]);
      return pageFails ? Promise.reject(new Error('disk gone')) : Promise.resolve([]);
    },
  } as unknown as TransactionLog;
  const app = fastify();
  await app.register(transactionRoutes({ transactions, warmup } as unknown as TransactionRoutesDeps));
  await app.ready();
  return { app, pages };
}

describe('the newest page read after start', () => {
  it('reads the newest 20 once, when the warm-up gets to it, and never before start', async () => {
    const warmup = new SchemaWarmup();
    const { app, pages } = await routes(warmup);
    await turns(5);
    expect(pages).toEqual([]);
    warmup.start();
    await turns(20);
    expect(pages).toEqual([[{}, { limit: 20 }]]);
    await app.close();
  });

  it('is skipped when a list was asked for first, and a failed read is left to the first list to report', async () => {
    const skipped = new SchemaWarmup();
    const first = await routes(skipped);
    // Refused (no user on the request), but it is a list asked for: the background read is then not needed.
    await first.app.inject({ url: '/transactions' });
    skipped.start();
    await turns(20);
    expect(first.pages).toEqual([]);
    await first.app.close();

    const failing = new SchemaWarmup();
    const second = await routes(failing, true);
    failing.start();
    await turns(20);
    expect(second.pages).toHaveLength(1);
    await second.app.close();
  });
});
