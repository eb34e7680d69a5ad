/**
 * Steps 1–3 of every transport that has a caller: who is calling (authenticate.ts), which channel (step 2 is the
 * transport's: an HTTP port matches the method, path and body; a listener's channel is its own), and may the caller use
 * it (the channel's access rules, authorise.ts). A caller refused on a channel is audited (node authentication, in
 * per-address summaries), and every refusal here is recorded where people see it (the refusal log, issue 35). What
 * differs per transport is only how each refusal is worded to the sender, `Refusals`, and where it came in.
 */
import { AppError } from '../errors.js';
import type { RefusalSink, RefusedAt } from '../domain/operations/refusals.js';
import type { RefusedNodeAudit } from '../audit/refused-nodes.js';
import type { ChannelRecord, ClientRecord } from '../storage/records.js';
import type { ClientAuthenticator, PresentedCredentials } from './authenticate.js';
import { mayUse } from './authorise.js';

export interface AdmitDeps {
  clientAuth: Pick<ClientAuthenticator, 'authenticate'>;
  /** Where callers refused on a channel are audited. */
  refusedNodes?: Pick<RefusedNodeAudit, 'refused'>;
  /** Where every refused caller is recorded. */
  refusals?: RefusalSink;
}

/** How a transport words each refusal for its sender (an HTTP error answer, the text of an AR NAK). */
export interface Refusals {
  throttled(retryAfterSeconds: number): AppError;
  unauthenticated(reason: string): AppError;
  /** The caller, or its address, is not among those the channel admits. */
  notAllowed(client: ClientRecord | null, channel: ChannelRecord): AppError;
  /** A refusal only this transport makes on an otherwise admitted caller (a tls channel that requires a registered certificate). */
  required?(client: ClientRecord | null, channel: ChannelRecord): AppError | undefined;
}

/** One caller at the door. */
export interface Entry {
  credentials: PresentedCredentials & { address: string };
  /** Step 2: the channel for this caller; throws the transport's AppError when none matches. */
  match(client: ClientRecord | null): Promise<ChannelRecord>;
  refusals: Refusals;
  /** Where the caller came in, with the channel and client once known, as its refusal is recorded. */
  refusedAt(known: { channel?: ChannelRecord; client: ClientRecord | null }): RefusedAt;
}

/** Steps 1–3: resolves with the caller and the channel, or throws the refusal (an AppError) to answer with. */
export async function admit(deps: AdmitDeps, entry: Entry): Promise<{ client: ClientRecord | null; channel: ChannelRecord }> {
  const known: { channel?: ChannelRecord; client: ClientRecord | null } = { client: null };
  try {
    return await steps(deps, entry, known);
  } catch (err) {
    // Junction's own failures (a store that did not answer) are not the caller's refusal; the transport logs them.
    if (err instanceof AppError) deps.refusals?.refusedWith(err, entry.refusedAt(known));
    throw err;
  }
}

async function steps(deps: AdmitDeps, entry: Entry, known: { channel?: ChannelRecord; client: ClientRecord | null }): Promise<{ client: ClientRecord | null; channel: ChannelRecord }> {
  const { credentials, refusals } = entry;
  // The authenticator counts and audits failures itself (in summary), so a flood costs no audit write per attempt.
  const result = await deps.clientAuth.authenticate(credentials);
  if (result.outcome === 'throttled') throw refusals.throttled(result.retryAfterSeconds);
  if (result.outcome === 'refused') throw refusals.unauthenticated(result.reason);
  const client = result.outcome === 'authenticated' ? result.client : null;
  known.client = client;
  const channel = await entry.match(client);
  known.channel = channel;
  const refused = refusals.required?.(client, channel) ?? (mayUse({ client, clientIp: credentials.address }, channel) ? undefined : refusals.notAllowed(client, channel));
  if (refused === undefined) return { client, channel };
  await deps.refusedNodes?.refused({ address: credentials.address, channel: channel.name, reason: refused.message });
  throw refused;
}
