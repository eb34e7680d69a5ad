import { describe, expect, it } from 'vitest';
import type { Channel } from '../../../../service/contracts/channels';
import type { PublicClient } from '../../../../service/contracts/clients';
import { exampleChannel, exampleClient, firstMessage, samplePath, showChecklist, stepsDone } from './first-run';

const channel = (fields: Partial<Channel>): Channel => ({ _id: 'c1', name: 'Lab results', type: 'http', urlPattern: '^/lab$', methods: [], status: 'enabled', authType: 'private', allow: ['lab'], ...fields }) as Channel;
const client = (fields: Partial<PublicClient>): PublicClient => ({ _id: 'k1', clientID: 'lab-system', name: 'Lab system', roles: ['lab'], hasPassword: true, customTokenSet: false, ...fields }) as PublicClient;
const ports = [
  { purpose: 'api' as const, protocol: 'https' as const, port: 8080 },
  { purpose: 'transactions' as const, protocol: 'https' as const, port: 5000 },
  { purpose: 'transactions' as const, protocol: 'http' as const, port: 5001 },
];

describe('the first-run checklist', () => {
  it('ticks each step from what exists, and says nothing until all is known', () => {
    expect(stepsDone({ channels: null, clients: [], anyTransaction: false })).toBeNull();
    expect(stepsDone({ channels: [channel({})], clients: [], anyTransaction: false })).toEqual({ channel: true, client: false, message: false });
    expect(stepsDone({ channels: [channel({})], clients: [client({})], anyTransaction: true })).toEqual({ channel: true, client: true, message: true });
  });

  it('shows to administrators while a step is left, stays until left once shown, and hides when dismissed', () => {
    const left = { channel: true, client: false, message: false };
    const all = { channel: true, client: true, message: true };
    expect(showChecklist(left, { admin: true, dismissed: false, shownBefore: false })).toBe(true);
    expect(showChecklist(left, { admin: false, dismissed: false, shownBefore: false })).toBe(false);
    expect(showChecklist(left, { admin: true, dismissed: true, shownBefore: true })).toBe(false);
    // Set up already when the dashboard opened: the dashboard is as it always was.
    expect(showChecklist(all, { admin: true, dismissed: false, shownBefore: false })).toBe(false);
    // Finished while watched: the last tick is seen.
    expect(showChecklist(all, { admin: true, dismissed: false, shownBefore: true })).toBe(true);
    expect(showChecklist(null, { admin: true, dismissed: false, shownBefore: false })).toBe(false);
  });

  it('reads a path out of a plain URL pattern, and none out of a real expression', () => {
    expect(samplePath('^/lab$')).toBe('/lab');
    expect(samplePath('^/lab/.*$')).toBe('/lab');
    expect(samplePath('^/fhir(/.*)?$')).toBe('/fhir');
    expect(samplePath('^\\/orders\\/new$')).toBe('/orders/new');
    expect(samplePath('^/(lab|pharmacy)$')).toBeNull();
    expect(samplePath('/patients/\\d+')).toBeNull();
  });

  it('picks an enabled HTTP channel first, and a client that channel admits', () => {
    const mllp = channel({ _id: 'm', name: 'HL7 in', type: 'tcp', tcpPort: 2575 });
    const off = channel({ _id: 'o', name: 'Off', status: 'disabled' });
    const lab = channel({});
    expect(exampleChannel([off, mllp, lab])).toBe(lab);
    expect(exampleChannel([off, mllp])).toBe(mllp);
    expect(exampleChannel([off])).toBeNull();
    const other = client({ _id: 'k0', clientID: 'pharmacy', name: 'Pharmacy', roles: ['pharmacy'] });
    const labClient = client({});
    expect(exampleClient(lab, [other, labClient])).toBe(labClient);
    expect(exampleClient(lab, [other])).toBe(other);
    expect(exampleClient(lab, [])).toBeNull();
  });

  it('gives the HTTPS address and a curl command with the client ID and a password placeholder', () => {
    const message = firstMessage({ channel: channel({}), client: client({}), ports, host: 'junction.clinic.lan', selfSignedCertificate: true });
    expect(message?.address).toBe('https://junction.clinic.lan:5000/lab');
    expect(message?.command).toBe(
      `curl --insecure --user lab-system:CLIENT-PASSWORD --header 'Content-Type: application/json' --data '{"hello":"Junction"}' https://junction.clinic.lan:5000/lab`,
    );
    expect(message?.notes.join(' ')).toContain('CLIENT-PASSWORD');
  });

  it('leaves out credentials for a public channel, uses a token or certificate client as registered, and the HTTP port when HTTPS is off', () => {
    const open = firstMessage({ channel: channel({ authType: 'public' }), client: null, ports: ports.filter((p) => p.protocol !== 'https'), host: '10.0.0.5', selfSignedCertificate: true });
    expect(open?.command).toBe(`curl --header 'Content-Type: application/json' --data '{"hello":"Junction"}' http://10.0.0.5:5001/lab`);
    const token = firstMessage({ channel: channel({}), client: client({ hasPassword: false, customTokenSet: true }), ports, host: 'h', selfSignedCertificate: false });
    expect(token?.command).toContain("--header 'Authorization: Custom CLIENT-TOKEN'");
    const cert = firstMessage({ channel: channel({}), client: client({ hasPassword: false, certFingerprint: 'AB:CD' }), ports, host: 'h', selfSignedCertificate: false });
    expect(cert?.command).toContain('--cert client.crt --key client.key');
    const getOnly = firstMessage({ channel: channel({ methods: ['GET'] }), client: client({}), ports, host: 'h', selfSignedCertificate: false });
    expect(getOnly?.command).toBe('curl --user lab-system:CLIENT-PASSWORD https://h:5000/lab');
  });

  it('gives an MLLP address for a socket channel, and none when nothing listens', () => {
    const mllp = firstMessage({ channel: channel({ type: 'tcp', tcpPort: 2575 }), client: null, ports, host: 'h', selfSignedCertificate: false });
    expect(mllp).toMatchObject({ address: 'mllp://h:2575', command: 'mllp_send --port 2575 --file message.hl7 h' });
    expect(firstMessage({ channel: channel({}), client: null, ports: [], host: 'h', selfSignedCertificate: false })).toBeNull();
  });
});
