/**
 * Real syslog senders nobody here wrote, against the audit listeners: util-linux `logger` over UDP and TCP (newline
 * framing and octet counting, RFC 3164 and RFC 5424 headers), and rsyslog forwarding over TLS (omfwd with the gtls
 * driver, octet-counted framing) with and without a client certificate. Needs Debian's bsdutils, rsyslog and
 * rsyslog-gnutls (`.ci/run` installs them).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/process.js';
import { until } from '../helpers/wait.js';
import { issuedClientCertificate } from '../messages/hl7-peers.js';
import { serverPair, startListeners } from './listener-helpers.js';
import type { Started } from './listener-helpers.js';

/** Small RFC 3881 messages of events a clinic sees, one line each (logger sends each input line as a message). */
const loginAudit = (user: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><AuditMessage><EventIdentification EventActionCode="E" EventDateTime="2024-03-01T08:00:00Z" EventOutcomeIndicator="0"><EventID code="110114" codeSystemName="DCM" displayName="User Authentication"/><EventTypeCode code="110122" codeSystemName="DCM" displayName="Login"/></EventIdentification><ActiveParticipant UserID="${user}" UserIsRequestor="true"/><AuditSourceIdentification AuditSourceID="ehr.clinic.example"/></AuditMessage>`;
const recordAccessAudit = (patient: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><AuditMessage><EventIdentification EventActionCode="R" EventDateTime="2024-03-01T08:01:00Z" EventOutcomeIndicator="0"><EventID code="110110" codeSystemName="DCM" displayName="Patient Record"/></EventIdentification><ActiveParticipant UserID="dr.nkosi" UserIsRequestor="true"/><AuditSourceIdentification AuditSourceID="ehr.clinic.example"/><ParticipantObjectIdentification ParticipantObjectID="${patient}^^^&amp;1.2.3&amp;ISO" ParticipantObjectTypeCode="1" ParticipantObjectTypeCodeRole="1"><ParticipantObjectIDTypeCode code="2"/></ParticipantObjectIdentification></AuditMessage>`;

const children: ChildProcess[] = [];
const dirs: string[] = [];

/** Runs a command to its end; rejects with its stderr when it fails. */
function run(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    children.push(child);
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${command} exited with ${String(code)}: ${stderr}`))));
  });
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
}

describe('real syslog senders', () => {
  let started: Started | undefined;
  afterEach(async () => {
    for (const child of children.splice(0)) {
      child.kill('SIGKILL');
      await exited(child);
    }
    await started?.listeners.stop();
    started = undefined;
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  const payloadsOf = (s: Started) => s.intake.got.map((m) => m.text);

  describe('util-linux logger', () => {
    const logger = (args: string[], message: string) => run('logger', [...args, '-t', 'ehr', message]);

    it('sends over UDP, with an RFC 3164 and an RFC 5424 header', async () => {
      started = await startListeners({ enabled: ['udp'] });
      const { ports } = started;
      // UDP can be lost only if nothing listens; the listener is bound before logger runs.
      await logger(['--udp', '--rfc3164', '-n', '127.0.0.1', '-P', String(ports.udp)], loginAudit('nurse.dlamini'));
      await logger(['--udp', '--rfc5424', '-n', '127.0.0.1', '-P', String(ports.udp)], recordAccessAudit('PAT-0001'));
      const s = started;
      await until('both datagrams', () => (s.intake.got.length === 2 ? true : undefined));
      const [bsd, ietf] = payloadsOf(s);
      expect(bsd).toMatch(/^<13>[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \S+ ehr: /);
      expect(bsd?.endsWith(loginAudit('nurse.dlamini'))).toBe(true);
      expect(ietf).toMatch(/^<13>1 \d{4}-\d\d-\d\dT\S+ \S+ ehr - - /);
      expect(ietf?.endsWith(recordAccessAudit('PAT-0001'))).toBe(true);
      expect(s.intake.got[0]?.from.transport).toBe('udp');
    });

    it('sends over TCP newline-framed (plain --tcp) and octet-counted (--octet-count), multi-byte UTF-8 included', async () => {
      started = await startListeners({ enabled: ['tcp'] });
      const { ports } = started;
      const target = ['-n', '127.0.0.1', '-P', String(ports.tcp)];
      await logger(['--tcp', '--rfc5424', ...target], loginAudit('nurse.dlamini'));
      await logger(['--tcp', '--octet-count', '--rfc5424', ...target], recordAccessAudit('PAT-0002'));
      await logger(['--tcp', '--octet-count', '--rfc5424', ...target], loginAudit('zoë.müller-山田'));
      await logger(['--tcp', '--rfc3164', ...target], recordAccessAudit('PAT-0003'));
      const s = started;
      await until('four messages', () => (s.intake.got.length === 4 ? true : undefined));
      const texts = payloadsOf(s);
      expect(texts[0]?.endsWith(loginAudit('nurse.dlamini'))).toBe(true);
      expect(texts[1]?.endsWith(recordAccessAudit('PAT-0002'))).toBe(true);
      expect(texts[2]?.endsWith(loginAudit('zoë.müller-山田'))).toBe(true);
      expect(texts[3]?.endsWith(recordAccessAudit('PAT-0003'))).toBe(true);
      expect(texts.every((t) => t.startsWith('<13>'))).toBe(true);
      expect(s.listeners.stats()[0]).toMatchObject({ received: 4, malformedFraming: 0, tooLarge: 0 });
    });
  });

  describe('rsyslog forwarding over TLS', () => {
    const client = issuedClientCertificate('ehr.clinic.example');

    /**
     * Starts rsyslogd in the foreground with its own config, pid file and work directory: a plain TCP input on a
     * local port, forwarded by omfwd over TLS (gtls, octet-counted) to the audit listener, verifying Junction's
     * certificate, and presenting the client certificate when asked to. Resolves once its input accepts connections.
     */
    async function rsyslog(tlsPort: number, presentCertificate: boolean): Promise<{ inputPort: number; stderr: () => string }> {
      const dir = await mkdtemp(join(tmpdir(), 'junction-rsyslog-'));
      dirs.push(dir);
      await mkdir(join(dir, 'work'));
      const file = (name: string) => join(dir, name);
      await writeFile(file('server-ca.pem'), serverPair.cert);
      await writeFile(file('client-cert.pem'), client.cert);
      await writeFile(file('client-key.pem'), client.key);
      const inputPort = await freePort();
      const certificates = presentCertificate ? ` DefaultNetstreamDriverCertFile="${file('client-cert.pem')}" DefaultNetstreamDriverKeyFile="${file('client-key.pem')}"` : '';
      const config = [
        `global(workDirectory="${file('work')}" DefaultNetstreamDriver="gtls" DefaultNetstreamDriverCAFile="${file('server-ca.pem')}"${certificates})`,
        'module(load="imtcp")',
        `input(type="imtcp" address="127.0.0.1" port="${inputPort}")`,
        `*.* action(type="omfwd" target="127.0.0.1" port="${tlsPort}" protocol="tcp" StreamDriver="gtls" StreamDriverMode="1" StreamDriverAuthMode="x509/certvalid" TCP_Framing="octet-counted" template="RSYSLOG_SyslogProtocol23Format")`,
        '',
      ].join('\n');
      await writeFile(file('rsyslog.conf'), config);
      const child = spawn('rsyslogd', ['-n', '-f', file('rsyslog.conf'), '-i', file('rsyslogd.pid')], { stdio: ['ignore', 'pipe', 'pipe'] });
      children.push(child);
      let output = '';
      child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
      await until(`rsyslogd's input to listen (${output})`, () =>
        child.exitCode !== null
          ? Promise.reject(new Error(`rsyslogd exited with ${String(child.exitCode)}: ${output}`))
          : new Promise<true | undefined>((resolve) => {
              const probe = connect({ host: '127.0.0.1', port: inputPort });
              probe.once('connect', () => {
                probe.destroy();
                resolve(true);
              });
              probe.once('error', () => resolve(undefined));
            }),
      );
      return { inputPort, stderr: () => output };
    }

    it('delivers a message whole when rsyslog presents a client certificate that chains to a trusted CA', async () => {
      started = await startListeners({ enabled: ['tls'], trustedCAs: [client.ca] });
      const s = started;
      const sender = await rsyslog(s.ports.tls, true);
      await run('logger', ['--tcp', '--octet-count', '--rfc5424', '-n', '127.0.0.1', '-P', String(sender.inputPort), '-t', 'ehr', recordAccessAudit('PAT-0100')]);
      await until(`the forwarded message (rsyslogd said: ${sender.stderr()})`, () => (s.intake.got.length >= 1 ? true : undefined));
      const [message] = s.intake.got;
      expect(message?.from).toMatchObject({ transport: 'tls', address: '127.0.0.1', certificateSubject: 'ehr.clinic.example' });
      expect(message?.text).toMatch(/^<13>1 \S+ \S+ ehr /);
      expect(message?.text.trimEnd().endsWith(recordAccessAudit('PAT-0100'))).toBe(true);
      expect(s.listeners.stats()[0]).toMatchObject({ received: 1, refusedConnections: 0, malformedFraming: 0 });
    });

    it('refuses rsyslog without a client certificate, and logs the refusal with its address', async () => {
      started = await startListeners({ enabled: ['tls'], trustedCAs: [client.ca] });
      const s = started;
      const sender = await rsyslog(s.ports.tls, false);
      await run('logger', ['--tcp', '--octet-count', '--rfc5424', '-n', '127.0.0.1', '-P', String(sender.inputPort), '-t', 'ehr', loginAudit('nurse.dlamini')]);
      const refusal = await until(`the refusal (rsyslogd said: ${sender.stderr()})`, () => s.lines.find((l) => l.reason === 'no client certificate'));
      expect(refusal).toMatchObject({ transport: 'tls', peer: expect.stringMatching(/^127\.0\.0\.1:\d+$/) as unknown });
      expect(s.intake.got).toEqual([]);
      expect(s.listeners.stats()[0]?.refusedConnections).toBeGreaterThanOrEqual(1);
    });
  });
});
