/**
 * The empty dashboard's first-run checklist, without React: which steps are done (decided from what exists: a
 * channel, a client, any transaction), whether the checklist shows, and the address and example command of the
 * first message.
 */
import type { ServicePort } from '../../../../service/contracts/api';
import type { Channel } from '../../../../service/contracts/channels';
import type { PublicClient } from '../../../../service/contracts/clients';

export type FirstRunStep = 'channel' | 'client' | 'message';
export const FIRST_RUN_STEPS: readonly FirstRunStep[] = ['channel', 'client', 'message'];

/** What the checklist is decided from; null while not known yet. */
export interface FirstRunFacts {
  channels: readonly Channel[] | null;
  clients: readonly PublicClient[] | null;
  /** Whether any transaction is stored (or arrived on the live feed since). */
  anyTransaction: boolean | null;
}

export type StepsDone = Record<FirstRunStep, boolean>;

/** Each step's state, or null while any fact is still unknown (so the checklist never flashes up and away). */
export function stepsDone(facts: FirstRunFacts): StepsDone | null {
  if (facts.channels === null || facts.clients === null || facts.anyTransaction === null) return null;
  return { channel: facts.channels.length > 0, client: facts.clients.length > 0, message: facts.anyTransaction };
}

export function allDone(done: StepsDone): boolean {
  return FIRST_RUN_STEPS.every((step) => done[step]);
}

/**
 * Whether the checklist shows: to an administrator (only they can make channels and clients) who has not hidden it,
 * while a step is left, and, once it has shown, until they leave the page, so the last step is seen ticked.
 */
export function showChecklist(done: StepsDone | null, options: { admin: boolean; dismissed: boolean; shownBefore: boolean }): boolean {
  if (!options.admin || options.dismissed || done === null) return false;
  return options.shownBefore || !allDone(done);
}

/** Where this browser keeps that the checklist was hidden (it is shown again in another browser while steps are left). */
export const DISMISSED_KEY = 'junction.firstRun.dismissed';

/**
 * A path that a channel's URL pattern matches, when the pattern is a plain path (`^/lab$`, `^/lab/.*$`,
 * `^/lab(/.*)?$`); null when it is a real regular expression, whose matching paths only its author knows.
 */
export function samplePath(urlPattern: string): string | null {
  let path = urlPattern.trim();
  if (path.startsWith('^')) path = path.slice(1);
  if (path.endsWith('$')) path = path.slice(0, -1);
  for (const tail of ['(/.*)?', '/.*', '.*', '/?']) {
    if (path.endsWith(tail)) {
      path = path.slice(0, -tail.length);
      break;
    }
  }
  path = path.replace(/\\\//g, '/');
  if (path === '') return '/';
  return /^\/[A-Za-z0-9\-_~/]*$/.test(path) ? path : null;
}

/** The channel a first message is best sent to: an enabled one that listens for messages, HTTP before sockets. */
export function exampleChannel(channels: readonly Channel[]): Channel | null {
  const live = channels.filter((c) => c.status === 'enabled');
  return live.find((c) => c.type === 'http') ?? live.find((c) => c.type === 'tcp' || c.type === 'tls') ?? null;
}

/** A client the channel admits (by client ID or role), else any client: its credentials go in the example. */
export function exampleClient(channel: Channel | null, clients: readonly PublicClient[]): PublicClient | null {
  if (channel !== null) {
    const admitted = clients.find((c) => channel.allow.includes(c.clientID) || c.roles.some((role) => channel.allow.includes(role)));
    if (admitted !== undefined) return admitted;
  }
  return clients[0] ?? null;
}

/** How a first message is sent: the address and a command to copy, with placeholders for what only the reader knows. */
export interface FirstMessage {
  /** `https://host:5000/lab` or `mllp://host:2575`. */
  address: string;
  command: string;
  /** What the placeholders in the command are, in words. */
  notes: string[];
}

export interface FirstMessageInput {
  channel: Channel;
  client: PublicClient | null;
  /** The transaction ports being listened on (`GET /about`, admins). */
  ports: readonly ServicePort[];
  /** The host the console was reached at: senders on the same network reach Junction there too. */
  host: string;
  /** Whether the HTTPS port's certificate is one Junction made itself (curl does not trust it). */
  selfSignedCertificate: boolean;
}

/** Quotes a word for a POSIX shell. */
function shellWord(text: string): string {
  return /^[A-Za-z0-9@%+=:,./_-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

function hostPort(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** The address and example command of a first message to the channel, or null when Junction listens on no port for it. */
export function firstMessage(input: FirstMessageInput): FirstMessage | null {
  const { channel, client, host } = input;
  const notes: string[] = [];
  if (channel.type === 'tcp' || channel.type === 'tls') {
    if (channel.tcpPort === undefined) return null;
    const address = `mllp://${hostPort(host, channel.tcpPort)}`;
    notes.push('message.hl7 is a file holding one HL7 v2 message; mllp_send comes with the python3-hl7 package, and any MLLP sender will do.');
    if (channel.type === 'tls') notes.push('This channel takes TLS: send from a program that speaks MLLP over TLS, with the client certificate it asks for.');
    return { address, command: `mllp_send --port ${channel.tcpPort} --file message.hl7 ${host}`, notes };
  }
  const https = input.ports.find((p) => p.purpose === 'transactions' && p.protocol === 'https');
  const http = input.ports.find((p) => p.purpose === 'transactions' && p.protocol === 'http');
  const port = https ?? http;
  if (port === undefined) return null;
  const path = samplePath(channel.urlPattern);
  const url = `${port.protocol}://${hostPort(host, port.port)}${path ?? '/your/path'}`;
  if (path === null) notes.push(`Replace /your/path with a path that the channel's pattern ${channel.urlPattern} matches.`);
  const parts = ['curl'];
  if (port.protocol === 'https' && input.selfSignedCertificate) {
    parts.push('--insecure');
    notes.push('--insecure accepts the certificate Junction made for itself; leave it out once the server has a certificate your computers trust.');
  }
  if (channel.authType === 'private') {
    if (client === null) {
      parts.push("--user 'CLIENT-ID:CLIENT-PASSWORD'");
      notes.push('Put the client ID and password of a client this channel allows.');
    } else if (client.hasPassword || (!client.customTokenSet && client.certFingerprint === undefined)) {
      parts.push(`--user ${shellWord(`${client.clientID}:CLIENT-PASSWORD`)}`);
      notes.push(`Put the password of the client ${client.name} in place of CLIENT-PASSWORD.`);
    } else if (client.customTokenSet) {
      parts.push("--header 'Authorization: Custom CLIENT-TOKEN'");
      notes.push(`Put the token of the client ${client.name} in place of CLIENT-TOKEN.`);
    } else {
      parts.push('--cert client.crt --key client.key');
      notes.push(`client.crt and client.key are the certificate registered for the client ${client.name} and its private key.`);
    }
  }
  // A channel that takes only some methods gets the first of them; a body only where the method carries one.
  const method = channel.methods.length === 0 || channel.methods.includes('POST') ? 'POST' : (channel.methods[0] ?? 'POST');
  if (['GET', 'HEAD', 'DELETE', 'OPTIONS'].includes(method)) parts.push(method === 'GET' ? '' : method === 'HEAD' ? '--head' : `--request ${method}`);
  else parts.push(...(method === 'POST' ? [] : [`--request ${method}`]), "--header 'Content-Type: application/json'", `--data '{"hello":"Junction"}'`);
  parts.push(shellWord(url));
  return { address: url, command: parts.filter((part) => part !== '').join(' '), notes };
}
