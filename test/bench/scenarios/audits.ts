/**
 * The ATNA audit repository (issue 17): how many audit messages per second Junction stores when 10 senders send
 * octet-counted RFC 5424 syslog over TCP (syslog-load, in C, so the senders take little of the 2 cores), with the CPU
 * Junction used per 1,000 messages from /proc; then how fast `GET /audits` answers pages over everything stored.
 *
 * Stored means written to audits.sqlite: the scenario counts rows there (read-only, a second connection), since
 * syslog has no acknowledgement. Every message is a 2 KB DICOM PIX query audit with its own patient ID.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { freePort } from '../../helpers/process.js';
import { openApi } from '../lib/api.js';
import type { Api } from '../lib/api.js';
import { cpuMs, startJunction } from '../lib/processes.js';
import type { RunningJunction } from '../lib/processes.js';

const run = promisify(execFile);
const here = fileURLToPath(new URL('.', import.meta.url));
const SENDERS = 10;
/** Stored audits per second over TCP from 10 senders that issue 17 asks for. */
export const TARGET_MESSAGES_PER_SECOND = 5000;
/** A filtered page's answer time over the stored audits that issue 17 asks for. */
export const TARGET_PAGE_MS = 50;

/** `%08d` is replaced by syslog-load with a counter, so each message names another patient (audit-engines.ts too). */
export const MESSAGE = `<85>1 2026-11-24T10:30:12.456Z emr.clinic.example clinic-emr 4410 IHE+RFC-3881 - <?xml version="1.0" encoding="UTF-8"?><AuditMessage><EventIdentification EventActionCode="E" EventDateTime="2026-11-23T10:30:12.456+02:00" EventOutcomeIndicator="0"><EventID csd-code="110112" codeSystemName="DCM" originalText="Query"/><EventTypeCode csd-code="ITI-9" codeSystemName="IHE Transactions" originalText="PIX Query"/></EventIdentification><ActiveParticipant UserID="clinic-emr|LAB" AlternativeUserID="3141" UserIsRequestor="true" NetworkAccessPointID="10.20.0.12" NetworkAccessPointTypeCode="2"><RoleIDCode csd-code="110153" codeSystemName="DCM" originalText="Source Role ID"/></ActiveParticipant><ActiveParticipant UserID="pix-manager|REGION" UserIsRequestor="false" NetworkAccessPointID="pix.region.example" NetworkAccessPointTypeCode="1"><RoleIDCode csd-code="110152" codeSystemName="DCM" originalText="Destination Role ID"/></ActiveParticipant><AuditSourceIdentification AuditSourceID="clinic-emr" AuditEnterpriseSiteID="Riverside Clinic"><AuditSourceTypeCode csd-code="4" codeSystemName="DCM" originalText="Application Server"/></AuditSourceIdentification><ParticipantObjectIdentification ParticipantObjectID="PT-%08d^^^&amp;1.3.6.1.4.1.21367.13.20.1000&amp;ISO" ParticipantObjectTypeCode="1" ParticipantObjectTypeCodeRole="1"><ParticipantObjectIDTypeCode csd-code="2" codeSystemName="RFC-3881" originalText="Patient Number"/></ParticipantObjectIdentification><ParticipantObjectIdentification ParticipantObjectTypeCode="2" ParticipantObjectTypeCodeRole="24" ParticipantObjectID="pix-query"><ParticipantObjectIDTypeCode csd-code="ITI-9" codeSystemName="IHE Transactions" originalText="PIX Query"/><ParticipantObjectQuery>TVNIfF5+XCZ8Q0xJTklDLUVNUnxSSVZFUlNJREV8UElYLU1HUnxSRUdJT058MjAyNjExMjMxMDMwfHxRQlReUTIzXlFCUF9RMjF8UTIzLTAwMDF8UHwyLjU=</ParticipantObjectQuery><ParticipantObjectDetail type="MSH-10" value="UTIzLTAwMDE="/></ParticipantObjectIdentification></AuditMessage>`;

export interface AuditFigures {
  senders: number;
  messageBytes: number;
  sent: number;
  senderSeconds: number;
  senderErrors: number;
  stored: number;
  storedPerSecond: number;
  junctionCpuSecondsPer1000: number;
  /** Junction's CPU seconds per 1,000 stored audits by thread (the main thread, the parse worker, GC, ...). */
  threadCpuSecondsPer1000: Record<string, number>;
  /** The machine's 1-minute load average when the measured batch ended (the machine is shared). */
  loadAverage: number;
  pages: Record<string, { firstMs: number; medianMs: number; rows: number }>;
  totalStored: number;
  passed: boolean;
}

/**
 * CPU time (user + system, ms) of each thread of a process so far, keyed by thread id and name, from /proc. Threads
 * that ended in between are missed, which is why the scenario also reports the whole process's figure.
 */
async function threadCpuMs(pid: number | undefined): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (pid === undefined) return out;
  for (const tid of await readdir(`/proc/${pid}/task`).catch(() => [] as string[])) {
    const stat = await readFile(`/proc/${pid}/task/${tid}/stat`, 'utf8').catch(() => '');
    const open = stat.indexOf('(');
    const close = stat.lastIndexOf(')');
    if (open < 0 || close < 0) continue;
    const fields = stat.slice(close + 2).split(' ');
    out.set(`${tid} ${stat.slice(open + 1, close)}`, ((Number(fields[11]) + Number(fields[12])) * 1000) / 100);
  }
  return out;
}

/** Per-thread CPU between two readings, per 1,000 stored audits, busiest first. */
function threadFigures(before: Map<string, number>, after: Map<string, number>, stored: number, mainTid: number | undefined): Record<string, number> {
  const byName: Record<string, number> = {};
  for (const [key, ms] of after) {
    const used = ms - (before.get(key) ?? 0);
    if (used <= 0) continue;
    const [tid, ...name] = key.split(' ');
    // Node names its main thread, the parse worker and V8's helpers alike ("node"), so those keep their thread ids;
    // the main thread's id is the process id, and the busiest other "node" thread is the parse worker.
    const label = Number(tid) === mainTid ? 'main thread' : `${name.join(' ')}#${tid}`;
    byName[label] = (byName[label] ?? 0) + used;
  }
  return Object.fromEntries(Object.entries(byName).sort((a, b) => b[1] - a[1]).map(([name, ms]) => [name, Number((ms / stored).toFixed(3))]));
}

function sourceFile(): string {
  const beside = join(here, '..', 'syslog-load', 'syslog-load.c');
  if (existsSync(beside)) return beside;
  const fromDist = join(here, '..', '..', '..', '..', 'test', 'bench', 'syslog-load', 'syslog-load.c');
  if (existsSync(fromDist)) return fromDist;
  throw new Error(`syslog-load.c not found beside ${here} nor in ${fromDist}`);
}

function countStored(file: string): number {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM audits').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

async function waitStored(file: string, total: number, timeoutMs: number): Promise<number> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const stored = existsSync(file) ? countStored(file) : 0;
    if (stored >= total || Date.now() > end) return stored;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function timePage(api: Api, path: string): Promise<{ firstMs: number; medianMs: number; rows: number }> {
  const times: number[] = [];
  let rows = 0;
  for (let i = 0; i < 7; i++) {
    const answer = await api.json<unknown[]>('GET', path);
    times.push(answer.ms);
    rows = answer.body.length;
  }
  const sorted = times.slice(1).sort((a, b) => a - b);
  return { firstMs: Number((times[0] ?? 0).toFixed(1)), medianMs: Number((sorted[Math.floor(sorted.length / 2)] ?? 0).toFixed(1)), rows };
}

/** Sends `total` audits (in `batches` runs of syslog-load, each timed), then times filtered pages over them. */
export async function auditsScenario(total: number, batches = 1): Promise<AuditFigures> {
  const dir = await mkdtemp(join(tmpdir(), 'junction-bench-audits-'));
  let junction: RunningJunction | undefined;
  let api: Api | undefined;
  try {
    const program = join(dir, 'syslog-load');
    await run(process.env.CC ?? 'cc', ['-O2', '-pthread', '-o', program, sourceFile()]);
    const messageFile = join(dir, 'message.txt');
    await writeFile(messageFile, MESSAGE);
    const port = await freePort();
    junction = await startJunction(join(dir, 'data'), { JUNCTION_AUDITING_HOST: '127.0.0.1', JUNCTION_AUDITING_SERVERS_TCP_ENABLED: 'true', JUNCTION_AUDITING_SERVERS_TCP_PORT: String(port) });
    api = await openApi(junction.apiUrl, junction.dataDir);
    const file = join(junction.dataDir, 'audits.sqlite');
    const before = existsSync(file) ? countStored(file) : 0;

    // The first batch is the measured one; later batches only fill the store for the page timings.
    const perSender = Math.ceil(total / batches / SENDERS);
    const cpuBefore = await cpuMs(junction.child.pid);
    const threadsBefore = await threadCpuMs(junction.child.pid);
    const started = performance.now();
    const { stdout } = await run(program, ['--port', String(port), '--file', messageFile, '--connections', String(SENDERS), '--messages', String(perSender)]);
    const sent = JSON.parse(stdout) as { messages: number; seconds: number; errors: number };
    const stored = (await waitStored(file, before + sent.messages, 600_000)) - before;
    const seconds = (performance.now() - started) / 1000;
    const cpu = (await cpuMs(junction.child.pid)) - cpuBefore;
    const threadCpuSecondsPer1000 = threadFigures(threadsBefore, await threadCpuMs(junction.child.pid), stored, junction.child.pid);
    const loadAverage = Number((await readFile('/proc/loadavg', 'utf8').catch(() => 'NaN')).split(' ')[0]);
    for (let b = 1; b < batches; b++) {
      // Counted before sending: by the time the senders finish, Junction has stored much of the batch already.
      const already = countStored(file);
      const more = await run(program, ['--port', String(port), '--file', messageFile, '--connections', String(SENDERS), '--messages', String(perSender)]);
      const expected = already + (JSON.parse(more.stdout) as { messages: number }).messages;
      await waitStored(file, expected, 600_000);
    }
    const totalStored = countStored(file);

    const q = (filters: Record<string, string>) => `/audits?filterRepresentation=simpledetails&filterLimit=20&filters=${encodeURIComponent(JSON.stringify(filters))}`;
    const pages = {
      'newest 20': await timePage(api, '/audits?filterLimit=20'),
      'newest 20, details': await timePage(api, '/audits?filterLimit=20&filterRepresentation=simpledetails'),
      'event ID 110112': await timePage(api, q({ 'eventIdentification.eventID.code': '110112' })),
      'one patient': await timePage(api, q({ 'participantObjectIdentification.participantObjectID': JSON.stringify(`PT-00000042\\^\\^\\^.*`) })),
      'user and outcome': await timePage(api, q({ 'activeParticipant.userID': 'clinic-emr|LAB', 'eventIdentification.eventOutcomeIndicator': '0' })),
      'a day': await timePage(api, q({ 'eventIdentification.eventDateTime': JSON.stringify({ $gte: '2026-11-23T00:00:00Z', $lte: '2026-11-23T23:59:59Z' }) })),
      'page 500 of 20': await timePage(api, '/audits?filterLimit=20&filterPage=500'),
    };
    const storedPerSecond = Math.round(stored / seconds);
    const filteredWorst = Math.max(...Object.values(pages).map((p) => p.medianMs));
    return {
      senders: SENDERS,
      messageBytes: Buffer.byteLength(MESSAGE),
      sent: sent.messages,
      senderSeconds: sent.seconds,
      senderErrors: sent.errors,
      stored,
      storedPerSecond,
      junctionCpuSecondsPer1000: Number((cpu / stored).toFixed(3)),
      threadCpuSecondsPer1000,
      loadAverage,
      pages,
      totalStored,
      passed: stored === sent.messages && storedPerSecond >= TARGET_MESSAGES_PER_SECOND && filteredWorst <= TARGET_PAGE_MS,
    };
  } finally {
    await api?.close();
    await junction?.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
