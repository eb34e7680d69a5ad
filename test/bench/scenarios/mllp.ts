/**
 * MLLP through Junction (issue 15): 10 closed-loop MLLP senders of a 1 KB ORU^R01 (mllp-load, in C) against an MLLP
 * ACK server (mllp-ack-server, in C) directly, and through Junction: a tcp channel with `tcpFraming: 'mllp'`, full
 * storage (both bodies), one `mllp` route to that same ACK server. Both targets in one run, in round-robin rounds,
 * each row being its median round. CPU seconds per 1,000 messages of Junction and of the upstream from /proc.
 *
 * The senders and the upstream are C so that, on 2 cores, they take little of the CPU Junction is measured with.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../helpers/process.js';
import { openApi } from '../lib/api.js';
import type { Api } from '../lib/api.js';
import { cpuMs, startJunction } from '../lib/processes.js';
import type { RunningJunction } from '../lib/processes.js';
import { compileMllpPrograms, runMllpLoad, startAckServer } from '../mllp-load/programs.js';
import type { MllpLoadResult, MllpPrograms, RunningAckServer } from '../mllp-load/programs.js';

const CONNECTIONS = 10;
const MESSAGE_BYTES = 1024;
/** Messages/s through Junction with full storage that issue 15 asks for on the 2-core machine. */
export const TARGET_MESSAGES_PER_SECOND = 3000;

/** One round of one target, with the CPU each process of ours used per 1,000 messages (over warm-up and window). */
export interface MllpRow extends MllpLoadResult {
  upstreamCpuSecondsPer1000: number;
  junctionCpuSecondsPer1000?: number;
}

export interface MllpFigures {
  connections: number;
  messageBytes: number;
  rounds: number;
  secondsPerRound: number;
  direct: MllpRow;
  /** Absent when Junction could not be measured: see `junctionNotMeasured`. */
  junction?: MllpRow;
  /** Another build (`--baseline`) measured the same way in the same rounds, when one was given. */
  baseline?: MllpRow;
  /** This build's msg/s and CPU per message over the baseline's, per round (the same round's rows). */
  againstBaseline?: { rateRatios: number[]; cpuRatios: number[] };
  junctionNotMeasured?: string;
  junctionToDirect?: number;
  /** Transactions Junction stored for the channel, against the messages answered AA through it (warm-ups included). */
  stored?: { transactions: number; answered: number; requestBodyStored: boolean; responseBodyStored: boolean };
  targetMessagesPerSecond: number;
  /** Junction measured, no error, at least the target, and every answered message stored with both bodies. */
  passed: boolean;
}

/** The round with the median messages/s; the rest of its figures come with it, so a row is one real measurement. */
function medianRound(rows: MllpRow[]): MllpRow {
  const sorted = [...rows].sort((a, b) => a.messagesPerSecond - b.messagesPerSecond);
  const middle = sorted[Math.floor(sorted.length / 2)];
  if (middle === undefined) throw new Error('no rounds measured');
  return middle;
}

/** Per 1,000 messages, from a CPU delta in ms over all the messages of the run. */
function cpuSecondsPer1000(cpuDeltaMs: number, result: MllpLoadResult): number {
  const messages = result.messages + result.warmupMessages;
  return messages > 0 && Number.isFinite(cpuDeltaMs) ? Number((cpuDeltaMs / messages).toFixed(3)) : Number.NaN;
}

/** The channel of the scenario: MLLP in on `tcpPort`, both bodies stored, MLLP out to the upstream. */
export function mllpChannel(tcpPort: number, upstreamPort: number): Record<string, unknown> {
  return {
    name: 'bench-mllp',
    type: 'tcp',
    // Required by the OpenHIM schema even for tcp channels, where it is not used.
    urlPattern: '^/.*$',
    tcpHost: '127.0.0.1',
    tcpPort,
    tcpFraming: 'mllp',
    authType: 'public',
    methods: [],
    requestBody: true,
    responseBody: true,
    routes: [{ name: 'upstream', type: 'mllp', host: '127.0.0.1', port: upstreamPort, primary: true }],
  };
}

/** Waits until the channel's listener is `listening` (polled, 20 s at most); throws with its error when it failed. */
async function listening(api: Api, channelId: string): Promise<void> {
  const deadline = performance.now() + 20_000;
  let last = 'no listener reported';
  while (performance.now() < deadline) {
    const { body } = await api.json<{ listener?: { state: string; error?: string } }>('GET', `/channels/${channelId}`);
    const state = body.listener?.state;
    if (state === 'listening') return;
    if (state === 'failed') throw new Error(`the channel's listener failed: ${body.listener?.error ?? 'no error given'}`);
    last = state === undefined ? 'no listener reported' : `listener ${state}`;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the channel was not listening within 20 s (${last})`);
}

/** Creates the channel and waits for its listener; the reason as text when Junction cannot serve it (yet). */
async function prepareJunction(api: Api, upstreamPort: number): Promise<{ tcpPort: number; channelId: string } | { notMeasured: string }> {
  const tcpPort = await freePort();
  try {
    const created = await api.json<{ _id?: string }>('POST', '/channels', mllpChannel(tcpPort, upstreamPort));
    const channelId = created.body?._id ?? (await api.json<{ _id: string; name: string }[]>('GET', '/channels')).body.find((c) => c.name === 'bench-mllp')?._id;
    if (channelId === undefined) return { notMeasured: 'the created channel was not found' };
    await listening(api, channelId);
    return { tcpPort, channelId };
  } catch (err) {
    return { notMeasured: err instanceof Error ? err.message : String(err) };
  }
}

/** How many transactions Junction stored, and whether the newest holds the message and the ACK. */
async function storedFigures(api: Api, answered: number): Promise<NonNullable<MllpFigures['stored']>> {
  const count = async () => (await api.json<{ count: number }>('GET', '/transactions?filterRepresentation=bulkrerun&filterLimit=1')).body.count;
  // Stored before the ACK goes back, or just after: allow the log a few seconds to catch up, no more.
  const deadline = performance.now() + 10_000;
  let transactions = await count();
  while (transactions < answered && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    transactions = await count();
  }
  const newest = await api.json<{ request?: { body?: string }; response?: { body?: string } }[]>('GET', '/transactions?filterRepresentation=full&filterLimit=1');
  const tx = newest.body[0];
  return {
    transactions,
    answered,
    requestBodyStored: tx?.request?.body?.includes('ORU^R01') ?? false,
    responseBodyStored: /MSA\|AA\|/.test(tx?.response?.body ?? ''),
  };
}

/**
 * Runs the comparison: `rounds` round-robin rounds of `seconds` each per target, each run after its own warm-up of
 * `warmupSeconds` (new connections every run).
 */
export async function mllpScenario(seconds: number, rounds: number, warmupSeconds = 1, baselineEntry?: string): Promise<MllpFigures> {
  const dir = await mkdtemp(join(tmpdir(), 'junction-bench-mllp-'));
  let upstream: RunningAckServer | undefined;
  let junction: RunningJunction | undefined;
  let api: Api | undefined;
  let baseline: RunningJunction | undefined;
  let baselineApi: Api | undefined;
  try {
    const programs: MllpPrograms = await compileMllpPrograms(dir);
    upstream = await startAckServer(programs);
    junction = await startJunction(join(dir, 'data'));
    api = await openApi(junction.apiUrl, junction.dataDir);
    const prepared = await prepareJunction(api, upstream.port);
    const targets: [name: 'direct' | 'junction' | 'baseline', port: number, process?: RunningJunction][] = [['direct', upstream.port]];
    if ('tcpPort' in prepared) targets.push(['junction', prepared.tcpPort, junction]);
    if (baselineEntry !== undefined) {
      baseline = await startJunction(join(dir, 'baseline-data'), {}, [], baselineEntry);
      baselineApi = await openApi(baseline.apiUrl, baseline.dataDir);
      const preparedBaseline = await prepareJunction(baselineApi, upstream.port);
      if (!('tcpPort' in preparedBaseline)) throw new Error(`the baseline could not be measured: ${preparedBaseline.notMeasured}`);
      targets.push(['baseline', preparedBaseline.tcpPort, baseline]);
    }
    const measured: Record<string, MllpRow[]> = {};
    for (let round = 0; round < rounds; round++) {
      for (const [name, port, service] of targets) {
        const upstreamBefore = await cpuMs(upstream.child.pid);
        const junctionBefore = service === undefined ? 0 : await cpuMs(service.child.pid);
        const result = await runMllpLoad(programs, { port, connections: CONNECTIONS, seconds, warmupSeconds, size: MESSAGE_BYTES });
        const row: MllpRow = { ...result, upstreamCpuSecondsPer1000: cpuSecondsPer1000((await cpuMs(upstream.child.pid)) - upstreamBefore, result) };
        if (service !== undefined) row.junctionCpuSecondsPer1000 = cpuSecondsPer1000((await cpuMs(service.child.pid)) - junctionBefore, result);
        (measured[name] ??= []).push(row);
      }
    }
    const direct = medianRound(measured.direct ?? []);
    const figures: MllpFigures = {
      connections: CONNECTIONS,
      messageBytes: MESSAGE_BYTES,
      rounds,
      secondsPerRound: seconds,
      direct,
      targetMessagesPerSecond: TARGET_MESSAGES_PER_SECOND,
      passed: false,
    };
    if ('notMeasured' in prepared) {
      figures.junctionNotMeasured = prepared.notMeasured;
      return figures;
    }
    const junctionRows = measured.junction ?? [];
    const through = medianRound(junctionRows);
    figures.junction = through;
    figures.junctionToDirect = Number((through.messagesPerSecond / direct.messagesPerSecond).toFixed(3));
    const baselineRows = measured.baseline;
    if (baselineRows !== undefined) {
      figures.baseline = medianRound(baselineRows);
      const ratio = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined ? Number.NaN : Number((a / b).toFixed(3)));
      figures.againstBaseline = {
        rateRatios: junctionRows.map((r, i) => ratio(r.messagesPerSecond, baselineRows[i]?.messagesPerSecond)),
        cpuRatios: junctionRows.map((r, i) => ratio(r.junctionCpuSecondsPer1000, baselineRows[i]?.junctionCpuSecondsPer1000)),
      };
    }
    const answered = junctionRows.reduce((sum, r) => sum + r.messages + r.warmupMessages, 0);
    figures.stored = await storedFigures(api, answered);
    figures.passed =
      junctionRows.every((r) => r.errors === 0) &&
      through.messagesPerSecond >= TARGET_MESSAGES_PER_SECOND &&
      figures.stored.transactions >= answered &&
      figures.stored.requestBodyStored &&
      figures.stored.responseBodyStored;
    return figures;
  } finally {
    await baselineApi?.close();
    await baseline?.stop();
    await api?.close();
    await junction?.stop();
    await upstream?.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
