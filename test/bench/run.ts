/**
 * Benchmarks: `npm run bench [-- --quick] [-- --only=proxy,log-scale,patterns,mllp,...]`. Each scenario compares its variants
 * within one run, so the ratios hold on a shared, noisy machine. Prints tables and writes every figure as JSON to
 * test/bench/results/ (not committed). docs/BENCHMARKS.md explains each figure and holds the last full run.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { managementApiScenario } from './scenarios/management-api.js';
import { largeBodyScenario } from './scenarios/large-body.js';
import { logScaleScenario } from './scenarios/log-scale.js';
import { logScalePgScenario } from './scenarios/log-scale-pg.js';
import { listFiltersScenario } from './scenarios/list-filters.js';
import { proxyScenario } from './scenarios/proxy.js';
import { consoleScenario } from './scenarios/console.js';
import { stressScenario } from './scenarios/stress.js';
import { patternsScenario } from './scenarios/patterns.js';
import { mllpScenario } from './scenarios/mllp.js';
import { auditsScenario } from './scenarios/audits.js';
import { auditEnginesScenario } from './scenarios/audit-engines.js';
import { clusterScenario } from './scenarios/cluster.js';
import { searchScenario } from './scenarios/search.js';
import type { PatternRow } from './scenarios/patterns.js';
import type { ProxyResult } from './scenarios/proxy.js';

const quick = process.argv.includes('--quick');
const only = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length).split(',');
/** `--baseline=<folder>`: another build (a checkout built with `npm run build:service`) measured beside this one. */
const baseline = process.argv.find((a) => a.startsWith('--baseline='))?.slice('--baseline='.length);
/** `--rounds=<n>`: round-robin rounds of the proxy scenario, each as long as one default round. */
const roundsArg = process.argv.find((a) => a.startsWith('--rounds='))?.slice('--rounds='.length);

interface Scenario {
  name: string;
  run(): Promise<unknown>;
  print(figures: never): void;
}

function printLogScalePg(f: Awaited<ReturnType<typeof logScalePgScenario>>): void {
  const seeded = f.seedSeconds === 0 ? 'reused' : `seeded in ${f.seedSeconds} s (${f.seedRowsPerSecond.toLocaleString('en')} rows/s)`;
  console.log(`\nLog scale on PostgreSQL: ${f.transactions.toLocaleString('en')} transactions over ${f.days} days, ${seeded}; table with indexes ${f.tableMb} MB; load average ${f.loadAverage.join(' ')}`);
  console.table({
    'newest page of 20 (first / median)': { measured: `${f.newestPage.firstMs} / ${f.newestPage.medianMs} ms`, target: '<= 50 ms', plan: f.newestPage.plan },
    'channel + status page, 7 days (first / median)': { measured: `${f.filteredWeekPage.firstMs} / ${f.filteredWeekPage.medianMs} ms (${f.filteredWeekPage.rows} rows)`, target: '<= 300 ms', plan: f.filteredWeekPage.plan },
  });
  const w = f.writes;
  console.log(`write path: ${w.transactions.toLocaleString('en')} inserted and completed in ${w.seconds} s, ${w.perSecond.toLocaleString('en')} transactions/s; CPU s per 1,000: server ${w.serverCpuSecondsPer1000}, bench process ${w.clientCpuSecondsPer1000}`);
}

/** `--transactions=<n>`: the search scenario's corpus size instead of the mode's (for a run between quick and full). */
function searchTransactions(): number | undefined {
  const arg = process.argv.find((a) => a.startsWith('--transactions='))?.slice('--transactions='.length);
  if (arg === undefined) return undefined;
  const n = Number(arg);
  if (!Number.isSafeInteger(n) || n < 1000) throw new Error('--transactions must be a whole number of 1,000 or more');
  return n;
}

/** `--rounds=<n>`: the search scenario's ingest rounds instead of the mode's (more rounds, a steadier median). */
function searchRounds(): number | undefined {
  const arg = process.argv.find((a) => a.startsWith('--rounds='))?.slice('--rounds='.length);
  if (arg === undefined) return undefined;
  const n = Number(arg);
  if (!Number.isSafeInteger(n) || n < 1 || n > 50) throw new Error('--rounds must be a whole number from 1 to 50');
  return n;
}

/** `--engines=sqlite,postgres`: which engines the search scenario seeds and queries (both by default; `none`: ingest only). */
function searchEngines(): ('sqlite' | 'postgres')[] | undefined {
  const arg = process.argv.find((a) => a.startsWith('--engines='))?.slice('--engines='.length);
  if (arg === undefined) return undefined;
  if (arg === 'none') return [];
  const engines = arg.split(',');
  for (const e of engines) if (e !== 'sqlite' && e !== 'postgres') throw new Error(`--engines takes sqlite and postgres, not ${e}`);
  return engines as ('sqlite' | 'postgres')[];
}

/** The 10,000,000-transaction log on PostgreSQL (quick: 300,000 over a month); JUNCTION_BENCH_PG_DIR keeps it. */
function runLogScalePg(): ReturnType<typeof logScalePgScenario> {
  return logScalePgScenario(quick ? 300_000 : 10_000_000, quick ? 30 : 365);
}

function printSearch(f: Awaited<ReturnType<typeof searchScenario>>): void {
  console.log(`\nClinical search: ${f.transactions.toLocaleString('en')} transactions over ${f.days} days (HL7 ADT/ORM/ORU and FHIR Bundles, ${f.corpus.meanBytes} bytes a transaction on average; ${f.corpus.patients.toLocaleString('en')} patients, the most frequent in ~${f.corpus.mostFrequentPatientMessages.toLocaleString('en')} messages)`);
  for (const e of f.engines) {
    const t = e.seedTimes;
    const seeded = e.seedSeconds === 0 || t === undefined ? 'reused' : `seeded in ${e.seedSeconds} s, ${Math.round(e.transactions / e.seedSeconds).toLocaleString('en')}/s (waiting for the workers' messages and extraction ${t.generateSeconds} s, log rows ${t.rowsSeconds} s, index writes ${t.indexSeconds} s${t.buildSeconds > 0 ? `, indexes built after and VACUUM ANALYZE ${t.buildSeconds} s` : ''})`;
    console.log(`${e.engine}: ${seeded}; index ${e.indexMb} MB (${e.indexMbPerMillion} MB per million transactions; ${e.indexed.transactions.toLocaleString('en')} transactions, ${e.indexed.keys.toLocaleString('en')} keys); load average ${e.loadAverage.join(' ')}`);
    console.table(
      Object.fromEntries(
        Object.entries(e.queries).map(([name, q]) => [
          name,
          {
            'first / median ms': `${q.firstMs} / ${q.medianMs}`,
            target: `<= ${q.targetMs} ms`,
            rows: q.rows,
            'expected row': q.found ? 'yes' : 'NO',
            total: q.total === undefined ? '' : `${q.total.toLocaleString('en')}${q.estimated === true ? ' (estimated)' : ''}`,
          },
        ]),
      ),
    );
  }
  const side = (s: typeof f.ingest.hl7.with) => `${s.cpuMsPerTransaction} ms (${s.perSecond.toLocaleString('en')}/s${s.catchUpSeconds > 0 ? `, index caught up ${s.catchUpSeconds} s after` : ''})`;
  const sides = f.ingest.aa ? 'an A/A run: search.enabled false on both services (--ingest-aa), so each ratio is the method\'s own' : 'search.enabled false / true';
  console.log(`Ingest on the embedded engine, ${sides}, side by side and loaded at the same time, ${f.ingest.rounds} round(s) of ${f.ingest.secondsPerRound} s, which service starts first alternating (the median round; load average ${f.ingest.loadAverage.join(' ')})`);
  console.table({
    'HL7 ORU^R01 over MLLP (mllp-load.c)': { 'CPU per transaction, no indexing': side(f.ingest.hl7.without), 'with indexing': side(f.ingest.hl7.with), ratio: f.ingest.hl7.ratio, 'each round': f.ingest.hl7.ratios.join(', '), 'load (1 min)': f.ingest.hl7.loads.join(', '), target: '<= 1.15' },
    'FHIR Bundle over HTTP (wrk)': { 'CPU per transaction, no indexing': side(f.ingest.fhir.without), 'with indexing': side(f.ingest.fhir.with), ratio: f.ingest.fhir.ratio, 'each round': f.ingest.fhir.ratios.join(', '), 'load (1 min)': f.ingest.fhir.loads.join(', '), target: '<= 1.15' },
  });
}

const scenarios: Scenario[] = [
  {
    name: 'proxy',
    run: () => {
      const rounds = roundsArg === undefined ? (quick ? 1 : 3) : Number(roundsArg);
      if (!Number.isSafeInteger(rounds) || rounds < 1) throw new Error('--rounds must be a whole number of 1 or more');
      return proxyScenario((quick ? 3 : 5) * rounds, rounds, baseline === undefined ? undefined : resolve(baseline, 'dist', 'service', 'index.js'));
    },
    print: (f: Awaited<ReturnType<typeof proxyScenario>>) => {
      console.log(`\nProxy: wrk, 1 thread, 50 connections, 1 KB POST bodies and answers, full speed (each row: the median round; load average ${f.loadAverage.join(' ')})`);
      const cpu = (r: ProxyResult) => r.cpuMsPerRequest ?? '';
      console.table(
        Object.fromEntries(
          Object.entries(f.full).map(([k, r]) => [k, { 'req/s': r.rps, 'p50 ms': r.p50ms, 'p99 ms': r.p99ms, 'CPU s/1,000': cpu(r), 'wrk CPU s': r.generatorCpuSeconds, errors: r.errors + r.timeouts, non2xx: r.requests - (r.statuses[200] ?? 0) }]),
        ),
      );
      console.log('Same, at an even 1,000 requests/s (http-pacer.c, open loop, latency from each request\'s due time)');
      console.table(Object.fromEntries(Object.entries(f.fixedRate).map(([k, r]) => [k, { 'req/s': r.rps, 'p50 ms': r.p50ms, 'p99 ms': r.p99ms, 'CPU s/1,000': cpu(r), 'pacer CPU s': r.generatorCpuSeconds, errors: r.errors + r.timeouts }])));
      const ratio = (n: number | undefined) => (n === undefined ? 'n/a' : n.toFixed(2));
      console.log(
        `junction / bare undici: ${ratio(f.ratios.junctionToBare)} (target >= 0.50); junction / nginx: ${ratio(f.ratios.junctionToNginx)} (target >= 0.15); junction / direct: ${ratio(f.ratios.junctionToDirect)}; bare / direct: ${ratio(f.ratios.bareToDirect)}; fastify / bare: ${ratio(f.ratios.fastifyToBare)}; nginx / direct: ${ratio(f.ratios.nginxToDirect)}`,
      );
      console.log(`CPU per request, junction / bare undici: ${ratio(f.ratios.junctionCpuToBare)} (target <= 2)${f.ratios.baselineCpuToBare === undefined ? '' : `; baseline / bare undici: ${ratio(f.ratios.baselineCpuToBare)}`}`);
      console.log(`added p99 at 1,000 req/s over direct: ${f.addedP99AtFixedRateMs.toFixed(2)} ms (target <= 5 ms)`);
      if (f.ratios.baselineToBare !== undefined) console.log(`baseline (full) / bare undici: ${ratio(f.ratios.baselineToBare)}; this build / baseline: ${ratio(f.ratios.junctionToBare / f.ratios.baselineToBare)}`);
      if (f.againstBaseline !== undefined) {
        console.log(`this build / baseline, full storage, per round: req/s ${f.againstBaseline.rpsRatios.join(', ')}; CPU per request ${f.againstBaseline.cpuRatios.join(', ')}`);
      }
    },
  },
  {
    name: 'log-scale',
    // 10,000,000 over a year (issue 19); quick mode a month of 300,000. JUNCTION_BENCH_LOG_DIR keeps the seeded log.
    run: () => logScaleScenario(quick ? 300_000 : 10_000_000, quick ? 30 : 365, baseline === undefined ? undefined : resolve(baseline, 'dist', 'service', 'index.js')),
    print: (f: Awaited<ReturnType<typeof logScaleScenario>>) => {
      console.log(
        `\nLog scale: ${f.transactions.toLocaleString('en')} transactions (${f.days} days x ${f.perDay.toLocaleString('en')}, both bodies on ${f.withBodies.toLocaleString('en')}), seeded in ${f.seedSeconds} s; transactions.sqlite ${f.diskMb.log} MB, bodies.sqlite ${f.diskMb.bodies} MB`,
      );
      const rows = (m: typeof f) => ({
        'start to ready': `${m.startToReadyMs} ms (CPU ${m.startCpuMs} ms)`,
        'RSS after ready': `${m.rssAfterReadyMb} MB`,
        'RSS after the queries and export': `${m.rssAfterQueriesMb} MB`,
        'newest page of 20 (first / median)': `${m.newestPage.firstMs} / ${m.newestPage.medianMs} ms`,
        'first newest page over more starts (median; each)': `${m.firstPageOverStarts.medianMs} ms (${m.firstPageOverStarts.ms.join(', ')}); main-thread CPU ${m.firstPageOverStarts.medianCpuMs} ms (${m.firstPageOverStarts.mainThreadCpuMs.join(', ')})`,
        'channel + status page, 7 days (first / median)': `${m.filteredWeekPage.firstMs} / ${m.filteredWeekPage.medianMs} ms (${m.filteredWeekPage.rows} rows)`,
        'NDJSON export of the last 30 days': `${m.export.perSecond.toLocaleString('en')} transactions/s, ${m.export.mbPerSecond} MB/s, ${m.export.cpuSecondsPer1000} CPU s per 1,000 (${m.export.transactions.toLocaleString('en')} in ${m.export.seconds} s${m.export.complete ? '' : ', stopped there: not finished'})`,
      });
      const targets = { 'start to ready': '<= 1000 ms', 'RSS after ready': '<= 250 MB', 'RSS after the queries and export': '<= 250 MB', 'newest page of 20 (first / median)': '<= 20 ms', 'first newest page over more starts (median; each)': '<= 20 ms', 'channel + status page, 7 days (first / median)': '<= 100 ms', 'NDJSON export of the last 30 days': '>= 30,000 transactions/s' };
      const current = rows(f);
      const before = f.baseline === undefined ? undefined : rows({ ...f, ...f.baseline });
      console.table(Object.fromEntries(Object.entries(targets).map(([figure, target]) => [figure, { ...(before === undefined ? {} : { baseline: before[figure as keyof typeof before] }), 'this build': current[figure as keyof typeof current], target }])));
    },
  },
  {
    name: 'log-scale-pg',
    // The transaction log on PostgreSQL (issue 20): 10,000,000 over a year; quick mode a month of 300,000. Also run by
    // `cluster`, so `npm run bench` without --only runs it there rather than twice.
    run: () => runLogScalePg(),
    print: printLogScalePg,
  },
  {
    name: 'list-filters',
    // Run with node --expose-gc for steadier heap figures; quick mode seeds a fifth.
    run: () => listFiltersScenario(quick ? 20_000 : 100_000),
    print: (f: Awaited<ReturnType<typeof listFiltersScenario>>) => {
      console.log(`\nList filters over ${f.transactions.toLocaleString('en')} transactions (a route and an orchestration each), seeded in ${f.seedSeconds} s`);
      console.table(Object.fromEntries(f.filters.map((r) => [r.filter, { matches: r.matches, 'page of 20 first / median ms': `${r.pageFirstMs} / ${r.pageMedianMs}`, 'count ms': r.countMs, 'longest pause ms': r.countMaxPauseMs }])));
      console.log(`Heap above the start while all ${f.heap.rows.toLocaleString('en')} rows are listed: streamed (filterLimit=0) ${f.heap.streamedPeakMb} MB, as one page ${f.heap.pagePeakMb} MB`);
    },
  },
  {
    name: 'console',
    // 100,000 transactions in the full run (10 days x 10,000); quick mode seeds a fifth.
    run: () => consoleScenario(10, quick ? 2000 : 10_000, quick ? 3 : 7),
    print: (f: Awaited<ReturnType<typeof consoleScenario>>) => {
      console.log(`\nConsole in Chromium over ${f.transactions.toLocaleString('en')} transactions, ${f.pageSize} rows a page (each row: median; ratio to the API call behind it)`);
      console.table({
        'open the list': { console: `${f.console.openListMs} ms`, api: `${f.api.newestPageMs} ms`, ratio: f.ratios.openListToApi },
        'next page': { console: `${f.console.nextPageMs} ms`, api: `${f.api.newestPageMs} ms`, ratio: f.ratios.nextPageToApi },
        'Failed only, from the address': { console: `${f.console.filteredFromAddressMs} ms`, api: `${f.api.failedPageMs} ms`, ratio: f.ratios.filteredToApi },
      });
      console.log(`page JS heap after the first page ${f.heapMb.afterFirstPage} MB, after ${f.heapMb.pagesTurned} more pages ${f.heapMb.afterPaging} MB`);
    },
  },
  {
    name: 'large-body',
    run: () => largeBodyScenario(100),
    print: (f: Awaited<ReturnType<typeof largeBodyScenario>>) => {
      console.log(`\nLarge body: ${f.megabytes} MB POST through Junction (stored in full), answered ${f.status}, upstream received ${f.upstreamReceivedBytes.toLocaleString('en')} bytes in ${f.seconds} s`);
      console.log(`RSS before ${f.rssBeforeMb} MB, peak ${f.rssPeakMb} MB: growth ${f.rssGrowthMb} MB (target <= 64 MB)`);
    },
  },
  {
    name: 'stress',
    run: () => stressScenario(20_000),
    print: (f: Awaited<ReturnType<typeof stressScenario>>) => {
      console.log(`\nStress: ${f.sent.toLocaleString('en')} requests at full speed (${f.rps} req/s), answered ${JSON.stringify(f.answered)}, ${f.errors} errors`);
      console.log(`stored ${f.stored.toLocaleString('en')}: ${JSON.stringify(f.byStatus)}; wrong status ${f.wrongStatus} -> ${f.passed ? 'PASS' : 'FAIL'}`);
    },
  },
  {
    name: 'management-api',
    run: () => managementApiScenario(quick ? 2 : 10),
    print: (f: Awaited<ReturnType<typeof managementApiScenario>>) => {
      console.log(`\nManagement API over HTTPS, 20 connections; scrypt hash ${f.scryptMs} ms`);
      const base = f.results[0]?.rps ?? 1;
      console.table(f.results.map((r) => ({ ...r, 'ratio to no-auth': Number((r.rps / base).toFixed(2)) })));
    },
  },
  {
    name: 'patterns',
    run: () => Promise.resolve(patternsScenario(quick ? 3 : 9)),
    print: (f: ReturnType<typeof patternsScenario>) => {
      console.log('\nPatterns: RegExp against RE2 (domain/util/safe-pattern.ts), ns per call, median round');
      const row = (r: PatternRow) => ({ 'RegExp ns': r.regexpNs, 'RE2 ns': r.re2Ns, 'RE2 / RegExp': r.ratio });
      console.table({
        'URL check of one request against 10 channels': row(f.urlMatch),
        'one URL pattern, one path': row(f.urlTest),
        'path transform with $1 $2': row(f.pathTransform),
        ...Object.fromEntries(Object.entries(f.bodies).map(([name, r]) => [name, row(r)])),
      });
      console.log(`compile one pattern: RegExp ${f.compileUs.regexp} us, RE2 ${f.compileUs.re2} us (memoised for matching)`);
      console.log(`hostile ^/ok/(a+)+$ on ${f.hostile.path}: RegExp ${f.hostile.regexpMs} ms, RE2 ${f.hostile.re2Us} us`);
      console.log(`RE2 worst case near the size limit, ${f.worstCase.pattern}: ${f.worstCase.msPerMb} ms per MB of input`);
    },
  },
  {
    name: 'audits',
    // 50,000 measured audits, then the store filled to 1,000,000 for the page timings (quick: 20,000 and 100,000).
    run: () => (quick ? auditsScenario(100_000, 5) : auditsScenario(1_000_000, 20)),
    print: (f: Awaited<ReturnType<typeof auditsScenario>>) => {
      console.log(`\nAudit repository: ${f.senders} TCP senders (C) of a ${f.messageBytes}-byte RFC 5424 DICOM audit, octet-counted`);
      console.table({
        ingest: { value: `${f.storedPerSecond.toLocaleString('en')} stored/s (${f.stored.toLocaleString('en')} of ${f.sent.toLocaleString('en')} sent, senders done in ${f.senderSeconds} s, ${f.senderErrors} errors)`, target: '>= 5,000/s' },
        'Junction CPU per 1,000': { value: `${f.junctionCpuSecondsPer1000} s`, target: '' },
      });
      console.log(`CPU s per 1,000 by thread: ${Object.entries(f.threadCpuSecondsPer1000).map(([t, s]) => `${t} ${s}`).join(', ')}; load average ${f.loadAverage}`);
      console.log(`GET /audits over ${f.totalStored.toLocaleString('en')} stored audits (first / median of 6)`);
      console.table(Object.fromEntries(Object.entries(f.pages).map(([k, p]) => [k, { 'first ms': p.firstMs, 'median ms': p.medianMs, rows: p.rows }])));
      console.log(`targets met: ${f.passed ? 'yes' : 'NO'} (ingest >= 5,000/s, every page median <= 50 ms)`);
    },
  },
  {
    name: 'audit-engines',
    // The audit log alone on SQLite and on PostgreSQL (issue 20): 5 alternating rounds of 20,000 (quick: 3 of 5,000).
    run: () => (quick ? auditEnginesScenario(5000, 3) : auditEnginesScenario(20_000, 5)),
    print: (f: Awaited<ReturnType<typeof auditEnginesScenario>>) => {
      console.log(`\nAudit log engines: ${f.countPerRound.toLocaleString('en')} encoded audits a round, 250 a turn, median of ${f.rounds} alternating rounds; load average ${f.loadAverage}`);
      const row = (r: typeof f.sqlite) => ({ 'stored/s': r.storedPerSecond, 'client CPU s/1,000': r.clientCpuSecondsPer1000, 'server CPU s/1,000': r.serverCpuSecondsPer1000 });
      console.table({ 'SQLite (WAL, synchronous NORMAL)': row(f.sqlite), 'PostgreSQL (fsync per commit)': row(f.postgres) });
      console.log(`PostgreSQL / SQLite stored/s: ${f.postgresToSqlite}`);
    },
  },
  {
    name: 'cluster',
    // Issue 20: the embedded engine, then 1, 2 and 3 instances on one PostgreSQL, and 1 with synchronous_commit off
    // (issue 38); 10 s per row (quick: 3 s), then the embedded engine and PostgreSQL on 1 instance at an even 500 req/s.
    // The issue's pages over 10,000,000 transactions in PostgreSQL are measured in the same run, after the rows.
    // --rounds=<n> (default 1) repeats the rows in alternating order and reports each row's median round.
    run: async () => ({ ...(await clusterScenario(quick ? 3 : 10, roundsArg === undefined ? 1 : Number(roundsArg))), pages: await runLogScalePg() }),
    print: (f: Awaited<ReturnType<typeof clusterScenario>> & { pages: Awaited<ReturnType<typeof logScalePgScenario>> }) => {
      console.log(`\nCluster: ${f.connections} closed-loop connections (wrk) split evenly over the instances, 1 KB POST through a full-storage channel; ${f.secondsPerRow} s per row${f.rounds > 1 ? `, ${f.rounds} rounds in alternating order, each row's median round by total CPU per 1,000` : ''}`);
      console.log(`load average before: ${f.loadAverageBefore.join(', ')}`);
      const name = (r: (typeof f.rows)[number]): string =>
        `${r.engine}, ${r.instances} instance${r.instances === 1 ? '' : 's'}${r.synchronousCommit === 'off' ? ', synchronous_commit = off' : ''}`;
      const table: Record<string, unknown> = {};
      for (const r of f.rows) {
        table[name(r)] = {
          'req/s': r.rps, 'p99 ms': r.p99Ms, 'service CPU s/1,000': r.serviceCpuSecondsPer1000, 'PostgreSQL CPU s/1,000': r.postgresCpuSecondsPer1000,
          'total CPU s/1,000': Number((r.serviceCpuSecondsPer1000 + r.postgresCpuSecondsPer1000).toFixed(3)), requests: r.requests, 'non-2xx': r.non2xx, errors: r.errors, stored: r.stored ?? '',
          'commits/request': r.commitsPerRequest ?? '', 'statements/request': r.statementsPerRequest ?? '',
        };
      }
      console.table(table);
      if (f.rounds > 1) {
        console.log('Every round, in plan order (req/s, total CPU s/1,000, commits/request; paced p99 ms):');
        f.all.forEach((measured, i) => {
          const figures = measured.map((m) => `${m.rps} req/s ${(m.serviceCpuSecondsPer1000 + m.postgresCpuSecondsPer1000).toFixed(3)} s ${m.commitsPerRequest ?? '-'}${m.paced === undefined ? '' : ` p99 ${m.paced.p99Ms}`}`);
          console.log(`  ${name(f.rows[i]!)}: ${figures.join(' | ')}`);
        });
      }
      console.log(`At an even ${f.pacedRate} requests/s (http-pacer.c, open loop, ${f.connections} connections, latency from each request's due time), ${f.secondsPerRow} s`);
      const paced: Record<string, unknown> = {};
      for (const r of f.rows) {
        if (r.paced === undefined) continue;
        const p = r.paced;
        paced[name(r)] = {
          'req/s': p.rps, 'p50 ms': p.p50Ms, 'p99 ms': p.p99Ms, 'service CPU s/1,000': p.serviceCpuSecondsPer1000, 'PostgreSQL CPU s/1,000': p.postgresCpuSecondsPer1000,
          'total CPU s/1,000': Number((p.serviceCpuSecondsPer1000 + p.postgresCpuSecondsPer1000).toFixed(3)), requests: p.requests, 'non-2xx': p.non2xx, errors: p.errors,
        };
      }
      console.table(paced);
      for (const r of f.rows) {
        if (r.statements === undefined) continue;
        console.log(`Statements per request (pg_stat_statements, top level, 0.05 or more), ${name(r)}:`);
        for (const s of r.statements) console.log(`  ${s.perRequest.toFixed(2)}  ${s.query}`);
      }
      if (f.statementEvictions > 0) console.log(`WARNING: pg_stat_statements evicted ${f.statementEvictions} entries during the run: statements per request may be short`);
      console.log(`load average after: ${f.loadAverage.join(', ')}`);
      printLogScalePg(f.pages);
    },
  },
  {
    name: 'search',
    // Issue 37: 10,000,000 transactions over a year on both engines (quick: 300,000 over a month); JUNCTION_BENCH_LOG_DIR
    // and JUNCTION_BENCH_PG_DIR keep the seeded data. Ingest: 5 rounds of 10 s per path and service (quick: 3 of 4 s; --rounds=<n>); JUNCTION_BENCH_PROFILE_DIR=<dir>
    // runs both ingest services under `node --cpu-prof` and writes their profiles there (a profiled run's CPU is not a figure).
    run: () => searchScenario(searchTransactions() ?? (quick ? 300_000 : 10_000_000), quick ? 30 : 365, { ingestSeconds: quick ? 4 : 10, ingestRounds: searchRounds() ?? (quick ? 3 : 5), engines: searchEngines(), profileDir: process.env.JUNCTION_BENCH_PROFILE_DIR, ingestAa: process.argv.includes('--ingest-aa') }),
    print: printSearch,
  },
  {
    name: 'mllp',
    // Three 5-second rounds per target (one of 3 s in quick mode), each after a 1-second warm-up.
    run: () => mllpScenario(quick ? 3 : 5, quick ? 1 : 3, 1, baseline === undefined ? undefined : resolve(baseline, 'dist', 'service', 'index.js')),
    print: (f: Awaited<ReturnType<typeof mllpScenario>>) => {
      console.log(`\nMLLP: ${f.connections} closed-loop senders of a ${f.messageBytes}-byte ORU^R01 (C), ACK server upstream (C); each row: the median of ${f.rounds} round(s) of ${f.secondsPerRound} s`);
      const row = (r: NonNullable<typeof f.junction>) => ({
        'msg/s': Math.round(r.messagesPerSecond),
        'p50 ms': r.p50Ms ?? '',
        'p99 ms': r.p99Ms ?? '',
        'Junction CPU s/1,000': r.junctionCpuSecondsPer1000 ?? '',
        'upstream CPU s/1,000': r.upstreamCpuSecondsPer1000,
        'senders CPU s': r.generatorCpuSeconds,
        errors: r.errors,
      });
      console.table({
        direct: row(f.direct),
        ...(f.junction === undefined ? {} : { 'through Junction (full storage)': row(f.junction) }),
        ...(f.baseline === undefined ? {} : { 'through the baseline build': row(f.baseline) }),
      });
      if (f.againstBaseline !== undefined) {
        console.log(`this build / baseline, per round: msg/s ${f.againstBaseline.rateRatios.join(', ')}; Junction CPU per message ${f.againstBaseline.cpuRatios.join(', ')}`);
      }
      if (f.junction === undefined) {
        console.log(`through Junction: NOT MEASURED: ${f.junctionNotMeasured ?? 'unknown reason'}`);
      } else {
        console.log(`junction / direct: ${f.junctionToDirect ?? 'n/a'}; through Junction ${f.junction.messagesPerSecond} msg/s (target >= ${f.targetMessagesPerSecond})`);
        if (f.stored !== undefined) {
          console.log(`stored ${f.stored.transactions.toLocaleString('en')} transactions for ${f.stored.answered.toLocaleString('en')} messages answered AA; newest holds the message ${f.stored.requestBodyStored ? 'yes' : 'NO'}, the ACK ${f.stored.responseBodyStored ? 'yes' : 'NO'}`);
        }
      }
      console.log(f.passed ? 'PASS' : 'FAIL');
    },
  },
];

async function main(): Promise<void> {
  const started = performance.now();
  const machine = { cpus: cpus().length, cpu: cpus()[0]?.model ?? 'unknown', memoryGb: Math.round(totalmem() / 2 ** 30), node: process.version };
  console.log(`Junction benchmarks (${quick ? 'quick' : 'full'}) on ${machine.cpus} x ${machine.cpu}, ${machine.memoryGb} GB, Node ${machine.node}`);
  const results: Record<string, unknown> = {};
  for (const scenario of scenarios) {
    if (only !== undefined && !only.includes(scenario.name)) continue;
    // Part of `cluster` when every scenario runs.
    if (only === undefined && scenario.name === 'log-scale-pg') continue;
    const t = performance.now();
    const figures = await scenario.run();
    scenario.print(figures as never);
    console.log(`(${scenario.name}: ${((performance.now() - t) / 1000).toFixed(1)} s)`);
    results[scenario.name] = figures;
  }
  const dir = join('test', 'bench', 'results');
  await mkdir(dir, { recursive: true });
  const file = join(dir, `bench-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  await writeFile(file, JSON.stringify({ quick, machine, at: new Date().toISOString(), results }, null, 2));
  const stress = results.stress as { passed?: boolean } | undefined;
  const mllp = results.mllp as { passed?: boolean } | undefined;
  if (stress?.passed === false || mllp?.passed === false) process.exitCode = 1;
  console.log(`\nwritten: ${file} (${((performance.now() - started) / 1000).toFixed(1)} s in all)`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
