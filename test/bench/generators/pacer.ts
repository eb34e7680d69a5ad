/**
 * The open-loop pacer (lib/load.ts runPaced) as a process of its own, so its CPU is counted apart from the bench
 * process and every target gets the same generator. Takes its options as JSON in PACER_OPTIONS (the body as
 * base64), sends `{ type: 'result', result, cpuSeconds }` to its parent over IPC and exits.
 */
import { runPaced } from '../lib/load.js';
import type { PacedOptions } from '../lib/load.js';

const raw = JSON.parse(process.env.PACER_OPTIONS ?? '{}') as Omit<PacedOptions, 'body'> & { body?: string };
const { body, ...rest } = raw;
const options: PacedOptions = { ...rest, ...(body === undefined ? {} : { body: Buffer.from(body, 'base64') }) };
const result = await runPaced(options);
const usage = process.cpuUsage();
process.send?.({ type: 'result', result, cpuSeconds: (usage.user + usage.system) / 1e6 }, () => process.exit(0));
