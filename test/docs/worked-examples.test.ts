/**
 * Issue 39: the manual's commands, run as a reader would run them. The first-login password change of
 * docs/install.md and the two worked examples of docs/admin/channels.md (a lab's HL7 v2 feed over MLLP, an EMR's FHIR
 * API) are read from the pages, moved to this test's ports and peers (the clinic's names become 127.0.0.1 and
 * localhost, the FHIR server is a plain HTTP upstream here), and run with the real curl and Debian's mllp_send against
 * a real Junction. What passes here is what the pages tell a clinic to type.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChannelStatusAnswer } from '../../service/contracts/channels.js';
import { startJunction, tempDir } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { freePort } from '../helpers/process.js';
import { httpUpstream, readBody } from '../helpers/upstream.js';
import type { Upstream } from '../helpers/upstream.js';
import { until } from '../helpers/wait.js';
import { hl7Upstream } from '../messages/hl7-peers.js';
import type { Hl7Upstream } from '../messages/hl7-peers.js';

const run = promisify(execFile);
const INSTALL = readFileSync('docs/install.md', 'utf8');
const CHANNELS = readFileSync('docs/admin/channels.md', 'utf8');

/** The one fenced block of `lang` on the page that contains `needle`. */
function block(page: string, lang: string, needle: string): string {
  const found = [...page.matchAll(new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map((m) => m[1] ?? '').filter((text) => text.includes(needle));
  expect(found, `one ${lang} block with ${needle}`).toHaveLength(1);
  return found[0] ?? '';
}

/** `text` with each `from` replaced by its `to`, failing when the page no longer holds one (a substitution must not miss). */
function moved(text: string, substitutions: [from: string, to: string][]): string {
  let out = text;
  for (const [from, to] of substitutions) {
    expect(out, `the page's text holds ${from}`).toContain(from);
    out = out.replaceAll(from, to);
  }
  return out;
}

describe('the commands of the install and channel pages', () => {
  let t: TestJunction;
  let dir: string;
  let lab: Hl7Upstream;
  let fhir: Upstream;
  const fhirRequests: string[] = [];
  let apiPort: string;
  let adminPassword = '';

  beforeAll(async () => {
    t = await startJunction();
    dir = await tempDir('junction-docs-');
    lab = await hl7Upstream();
    fhir = await httpUpstream((req, res) => {
      void readBody(req).then(() => {
        fhirRequests.push(`${req.method ?? ''} ${req.url ?? ''}`);
        res.writeHead(200, { 'content-type': 'application/fhir+json' });
        res.end('{"resourceType":"Bundle","type":"searchset","total":0}');
      });
    });
    apiPort = new URL(t.url).port;
  });

  afterAll(async () => {
    await lab.close();
    await fhir.close();
    await t.destroy();
    await rm(dir, { recursive: true, force: true });
  });

  /** Runs the page's commands in the test's folder; resolves with their output. */
  async function shell(commands: string): Promise<string> {
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', commands], { cwd: dir, timeout: 30_000 });
    return stdout;
  }

  /** An administrator's curl commands of the channel page, aimed at this Junction with its own certificate file. */
  function asAdmin(commands: string): string {
    return moved(commands, [
      ['curl ', 'curl -sS --fail-with-body '],
      ['server-cert.pem', join(t.dataDir, 'keystore', 'server-cert.pem')],
      ['-u admin@clinic.example', `-u root@junction.local:${adminPassword}`],
      ['https://junction.clinic.example:8080', `https://localhost:${apiPort}`],
    ]);
  }

  it('changes the first-run password with the command of the first login', async () => {
    const command = block(INSTALL, 'sh', 'PUT https://localhost:8080/users/root@junction.local');
    const out = await shell(moved(command, [['curl ', 'curl -sS --fail-with-body '], ['https://localhost:8080', `https://localhost:${apiPort}`]]));
    expect(out).toContain('root@junction.local');
    adminPassword = /"password": "([^"]+)"/.exec(command)?.[1] ?? '';
    const me = await t.request('/users/root@junction.local', { headers: { authorization: `Basic ${Buffer.from(`root@junction.local:${adminPassword}`).toString('base64')}` } });
    expect(me.status, me.text).toBe(200);
  });

  it("sets up the lab's MLLP channel and passes the EMR's AA back to mllp_send", async () => {
    const port = await freePort();
    const channel = moved(block(CHANNELS, 'json', '"name": "Lab results"'), [
      ['"tcpPort": 2575', `"tcpPort": ${port}`],
      ['"192.168.10.21"', '"127.0.0.1"'],
      ['"host": "emr.clinic.example", "port": 6661', `"host": "127.0.0.1", "port": ${lab.port}`],
    ]);
    await writeFile(join(dir, 'lab-channel.json'), channel);
    const created = await shell(asAdmin(block(CHANNELS, 'sh', '@lab-channel.json')));
    const id = (JSON.parse(created) as { _id: string })._id;
    const admin = { authorization: `Basic ${Buffer.from(`root@junction.local:${adminPassword}`).toString('base64')}` };
    await until('the lab channel listens', async () => {
      const status = await t.request('/channels/status', { headers: admin });
      const rows = (status.body as ChannelStatusAnswer).channels;
      return rows.find((row) => row._id === id)?.listener.condition === 'listening' ? true : undefined;
    });

    const send = moved(block(CHANNELS, 'sh', 'mllp_send'), [
      ['-p 2575', `-p ${port}`],
      ['-f result.hl7 junction.clinic.example', '-f result.hl7 127.0.0.1'],
    ]);
    const ack = await shell(send);
    expect(ack).toMatch(/MSA\|AA\|LAB0001/);
    expect(lab.received).toHaveLength(1);
    expect(lab.received[0]).toContain('ORU^R01');
    expect(lab.received[0]).toContain('PID|1||123^^^CLINIC||Nkosi^Thandi');
  });

  it("sets up the EMR's client and FHIR channel, and the EMR's curl gets the FHIR server's answer", async () => {
    await writeFile(join(dir, 'emr-client.json'), block(CHANNELS, 'json', '"clientID": "emr"'));
    await writeFile(
      join(dir, 'fhir-channel.json'),
      moved(block(CHANNELS, 'json', '"name": "FHIR"'), [
        ['"host": "fhir.clinic.example", "port": 443, "secured": true', `"host": "127.0.0.1", "port": ${fhir.port}, "secured": false`],
      ]),
    );
    const created = await shell(asAdmin(block(CHANNELS, 'sh', '@emr-client.json')));
    expect(created).toContain('"clientID":"emr"');
    expect(created).toContain('"name":"FHIR"');

    const call = moved(block(CHANNELS, 'sh', '-u emr:a-long-client-password'), [
      ['curl ', 'curl -sS -i --fail-with-body '],
      ['server-cert.pem', join(t.dataDir, 'keystore', 'server-cert.pem')],
      ['https://junction.clinic.example:5000', `https://localhost:${new URL(t.httpsUrl).port}`],
    ]);
    const answer = await shell(call);
    expect(answer).toMatch(/^x-openhim-transactionid: [0-9a-f]{24}\r?$/im);
    expect(answer).toContain('"resourceType":"Bundle"');
    expect(fhirRequests).toEqual(['GET /fhir/Patient?name=Nkosi']);
  });
});
