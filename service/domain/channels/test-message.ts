/**
 * Whether a console test message may go through a channel, and as what request (issue 36). Pure: the channel
 * service (channels/test-messages.ts) sends it. A test message is what a sender could send: an http channel's path,
 * method and content type must be ones the channel matches, so the test says something about real traffic.
 */
import type { ValidationProblem } from '../../contracts/api.js';
import type { Channel, TestMessageBody } from '../../contracts/channels.js';
import { channelKind } from './channel-kinds.js';
import { matchesRequest } from './channel-match.js';
import type { MatchableChannel } from './channel-match.js';

/** The request a test message is sent as (an http channel's; a tcp or tls channel's message is the body alone). */
export interface TestRequest {
  method: string;
  path: string;
  querystring: string;
  headers: Record<string, string>;
}

export type TestPlan =
  | { ok: true; request: TestRequest }
  | { ok: false; code: 'BAD_REQUEST' | 'CONFLICT'; message: string }
  | { ok: false; code: 'VALIDATION_FAILED'; problems: ValidationProblem[] };

type TestedChannel = MatchableChannel & Pick<Channel, 'name' | 'status'>;

/** Decides how a test message goes through `channel`, or why it cannot. */
export function testMessagePlan(channel: TestedChannel, body: TestMessageBody): TestPlan {
  const kind = channelKind(channel.type);
  if (kind === undefined || kind.entry === 'poll') {
    return { ok: false, code: 'BAD_REQUEST', message: `Channel ${channel.name} is a ${channel.type} channel: nobody sends to it; use Trigger to poll its routes now` };
  }
  if (channel.status === 'deleted') return { ok: false, code: 'CONFLICT', message: `Channel ${channel.name} is deleted; restore it to send a test message through it` };
  if (channel.status !== 'enabled') return { ok: false, code: 'CONFLICT', message: `Channel ${channel.name} is disabled; enable it to send a test message through it` };
  if (kind.entry === 'message') {
    if (body.body === '') return { ok: false, code: 'VALIDATION_FAILED', problems: [{ path: 'body.body', message: 'is empty; write the message to send' }] };
    return { ok: true, request: { method: 'POST', path: '/', querystring: '', headers: {} } };
  }
  const target = body.path ?? '';
  const q = target.indexOf('?');
  const path = q < 0 ? target : target.slice(0, q);
  const querystring = q < 0 ? '' : target.slice(q + 1);
  const method = (body.method ?? 'POST').toUpperCase();
  const problems: ValidationProblem[] = [];
  if (!path.startsWith('/')) {
    problems.push({ path: 'body.path', message: 'must be a path starting with /, such as /fhir/Patient' });
  } else if (!matchesRequest({ ...channel, status: 'enabled' as const, methods: [], matchContentTypes: [] }, { path, method })) {
    // Each said apart, so the person knows which to change.
    problems.push({ path: 'body.path', message: `does not match the channel's URL pattern ${channel.urlPattern}` });
  } else if (channel.methods.length > 0 && !channel.methods.some((m) => m.toUpperCase() === method)) {
    problems.push({ path: 'body.method', message: `is not one the channel takes (${channel.methods.join(', ')})` });
  } else if (!matchesRequest({ ...channel, status: 'enabled' as const }, { path, method, ...(body.contentType === undefined ? {} : { contentType: body.contentType }) })) {
    problems.push({ path: 'body.contentType', message: `is not one the channel takes (${channel.matchContentTypes.join(', ')})` });
  }
  if (problems.length > 0) return { ok: false, code: 'VALIDATION_FAILED', problems };
  const headers: Record<string, string> = body.contentType === undefined || body.contentType === '' ? {} : { 'content-type': body.contentType };
  return { ok: true, request: { method, path, querystring, headers } };
}
