/**
 * The live feed: one websocket at `/ws` on the management API server. It pushes the live events (transactions of the
 * channels the user may view, mediator heartbeats, and task progress for admins) as JSON frames `{type, data}`.
 *
 * Built on `ws` directly (noServer mode) rather than @fastify/websocket: the upgrade request is authenticated before
 * the handshake, so a refused client gets a plain HTTP 401/403 and never an open socket, and nothing else (a Fastify
 * plugin wrapping each socket in a stream) sits between the event bus and the socket.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { WebSocket, WebSocketServer } from 'ws';
import type { RawData } from 'ws';
import { AppError, errorCatalogue } from '../errors.js';
import type { ApiAuthenticationType } from '../contracts/api.js';
import type { LiveEventType, LiveFrame } from '../contracts/live-feed.js';
import { parseBasicAuthorization } from '../domain/codecs/basic-credentials.js';
import { isBrowserRequest, originRefusal } from '../domain/access/request-origin.js';
import type { RequestHeaders } from '../domain/access/request-origin.js';
import { canViewChannel, isAdmin } from '../domain/access/permissions.js';
import type { LiveEventMap, LiveEvents } from '../events/live.js';
import type { Sessions } from '../accounts/sessions.js';
import type { UserAccounts } from '../accounts/users.js';
import type { ChannelRecord, UserRecord } from '../storage/records.js';
import type { Store } from '../storage/store.js';
import type { Authenticator } from './auth/authenticator.js';
import { SESSION_COOKIE } from './auth/hook.js';
import { writeRawError } from './raw-answer.js';

export const LIVE_FEED_PATH = '/ws';

export interface LiveFeedDeps {
  events: LiveEvents;
  authenticator: Authenticator;
  sessions: Sessions;
  accounts: UserAccounts;
  types: readonly ApiAuthenticationType[];
  /** Channel ACLs decide which transaction events a user sees. */
  store: Pick<Store, 'channels'>;
}

export interface LiveFeedOptions {
  /** Protocol pings (and the re-check of each client's login) at this interval; a client that misses a pong is dropped. */
  pingIntervalMs?: number;
  maxClients?: number;
  /** Origins of consoles served elsewhere (`api.corsOrigins`), whose pages may open the feed as this server's may. */
  corsOrigins?: readonly string[];
}

const EVENT_TYPES = ['transaction.started', 'transaction.completed', 'mediator.heartbeat', 'task.progress'] as const satisfies readonly LiveEventType[];
type FeedEvent = (typeof EVENT_TYPES)[number];
// A client frame is a tiny control message; anything bigger is refused by ws itself (close 1009).
const MAX_CLIENT_FRAME_BYTES = 4096;
// A console that cannot keep up is dropped (it reconnects and reloads) rather than buffered without bound.
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;
const CLOSE_GOING_AWAY = 1001;
const CLOSE_POLICY = 1008;
const CLOSE_TRY_AGAIN = 1013;

interface Client {
  ws: WebSocket;
  user: UserRecord;
  sessionToken?: string;
  alive: boolean;
  /** Frames are filtered asynchronously; chaining keeps them in the order the events happened. */
  queue: Promise<void>;
}

type Refusal = { error: AppError };

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The answer to a handshake that ws refused (a POST, a missing Sec-WebSocket-Key, an unknown version, ...). */
function handshakeError(req: IncomingMessage, reason: string): AppError {
  if (req.method !== 'GET') return new AppError('METHOD_NOT_ALLOWED', `The live feed is opened with GET, not ${req.method ?? 'this method'}`, null, { headers: { allow: 'GET' } });
  // RFC 6455 4.4: a server that does not speak the requested version names the ones it does.
  const headers = /version/i.test(reason) ? { 'sec-websocket-version': '13, 8' } : undefined;
  return new AppError('BAD_HANDSHAKE', `${errorCatalogue.BAD_HANDSHAKE.message} (ws: ${reason})`, { reason }, headers === undefined ? {} : { headers });
}

/** The live feed of one API server. `attach` hooks it onto the server's upgrades; Fastify's close stops it. */
export class LiveFeed {
  readonly #deps: LiveFeedDeps;
  readonly #logger: FastifyBaseLogger;
  readonly #wss: WebSocketServer;
  readonly #clients = new Set<Client>();
  readonly #maxClients: number;
  readonly #pingIntervalMs: number;
  readonly #corsOrigins: ReadonlySet<string>;
  // Only the events the feed forwards; the bus may carry others (for schedulers) that users never see.
  readonly #listeners: { [K in FeedEvent]: (...args: LiveEventMap[K]) => void };
  #timer: NodeJS.Timeout | undefined;
  #closing = false;

  constructor(deps: LiveFeedDeps, logger: FastifyBaseLogger, options: LiveFeedOptions = {}) {
    this.#deps = deps;
    this.#logger = logger.child({ component: 'live-feed' });
    this.#maxClients = options.maxClients ?? 500;
    this.#pingIntervalMs = options.pingIntervalMs ?? 30_000;
    this.#corsOrigins = new Set(options.corsOrigins ?? []);
    this.#wss = new WebSocketServer({ noServer: true, maxPayload: MAX_CLIENT_FRAME_BYTES, clientTracking: false });
    // With a listener, ws leaves the answer to a refused handshake to us instead of writing its own plain text.
    this.#wss.on('wsClientError', (err: Error, socket: Duplex, req: IncomingMessage) => {
      this.#logger.info({ reason: err.message, method: req.method }, 'live feed handshake refused');
      writeRawError(socket, handshakeError(req, err.message));
    });
    this.#listeners = {
      'transaction.started': (event) => this.#transaction('transaction.started', event),
      'transaction.completed': (event) => this.#transaction('transaction.completed', event),
      'mediator.heartbeat': (event) => this.#broadcast({ type: 'mediator.heartbeat', data: { ...event, at: event.at.toISOString() } }, () => true),
      'task.progress': (event) => this.#broadcast({ type: 'task.progress', data: event }, isAdmin),
    };
  }

  /** Hooks the feed onto the API server: handles upgrades to /ws and closes every socket before the server closes. */
  attach(app: FastifyInstance): void {
    app.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      this.#upgrade(app, req, socket, head).catch((err: unknown) => {
        this.#logger.error({ err }, 'live feed upgrade failed');
        if (!socket.destroyed) writeRawError(socket, new AppError('INTERNAL'));
      });
    });
    // Upgraded sockets no longer belong to the HTTP server, so its close would wait for them forever.
    app.addHook('preClose', async () => this.close());
    for (const type of EVENT_TYPES) this.#deps.events.on(type, this.#listeners[type]);
    this.#timer = setInterval(() => void this.#sweep(), this.#pingIntervalMs);
    this.#timer.unref();
  }

  /** Closes every connection with 1001 (going away) and stops listening to events. */
  async close(): Promise<void> {
    if (this.#closing) return;
    this.#closing = true;
    clearInterval(this.#timer);
    for (const type of EVENT_TYPES) this.#deps.events.off(type, this.#listeners[type]);
    const closed = [...this.#clients].map(
      (client) =>
        new Promise<void>((resolve) => {
          // A client that does not answer the close handshake is cut off rather than holding up the stop.
          const timer = setTimeout(() => {
            client.ws.terminate();
            resolve();
          }, 2000);
          client.ws.once('close', () => {
            clearTimeout(timer);
            resolve();
          });
          client.ws.close(CLOSE_GOING_AWAY, 'Junction is stopping');
        }),
    );
    await Promise.all(closed);
    this.#clients.clear();
    await new Promise<void>((resolve) => this.#wss.close(() => resolve()));
  }

  async #upgrade(app: FastifyInstance, req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    // The socket is ours from here; its errors must not go unhandled.
    socket.on('error', () => undefined);
    const path = (req.url ?? '').split('?')[0];
    if (path !== LIVE_FEED_PATH) return writeRawError(socket, new AppError('NOT_FOUND', `No websocket at ${path ?? ''}; the live feed is ${LIVE_FEED_PATH}`));
    if (this.#closing) return writeRawError(socket, new AppError('SERVICE_STOPPING'));
    if (this.#clients.size >= this.#maxClients) return writeRawError(socket, new AppError('TOO_MANY_CONNECTIONS'));
    const identity = await this.#identify(app, req);
    if ('error' in identity) return writeRawError(socket, identity.error);
    if (this.#closing) return writeRawError(socket, new AppError('SERVICE_STOPPING'));
    this.#wss.handleUpgrade(req, socket, head, (ws) => this.#open(ws, identity.user, identity.sessionToken));
  }

  /** Who is connecting: the session cookie, or HTTP Basic for scripts; a refusal says why. */
  async #identify(app: FastifyInstance, req: IncomingMessage): Promise<{ user: UserRecord; sessionToken?: string } | Refusal> {
    const { authenticator, types } = this.#deps;
    const address = req.socket.remoteAddress ?? '';
    // Browsers send cookies (and cached Basic credentials) on cross-site websocket handshakes; SameSite alone is not enough.
    const headers = req.headers as RequestHeaders;
    const crossSite = originRefusal(headers, this.#corsOrigins);
    if (crossSite !== null) {
      this.#logger.warn({ origin: header(req, 'origin'), address }, `live feed refused a handshake from ${crossSite}`);
      return { error: new AppError('CROSS_ORIGIN_REFUSED', `The live feed accepts connections only from this server's own pages and the consoles named in api.corsOrigins, not from ${crossSite}`, { origin: header(req, 'origin') ?? null }) };
    }
    // A browser is not challenged: its password dialog would cache the credentials for every page to use.
    const challenge = types.includes('basic') && !isBrowserRequest(headers) ? { headers: { 'www-authenticate': 'Basic realm="Junction", charset="UTF-8"' } } : {};
    let found: { user: UserRecord; sessionToken?: string } | null = null;
    const authorization = header(req, 'authorization');
    if (authorization !== undefined && /^basic\s/i.test(authorization) && types.includes('basic')) {
      const credentials = parseBasicAuthorization(authorization);
      if (credentials === null) return { error: new AppError('UNAUTHENTICATED', 'The Basic authorization header is malformed', null, challenge) };
      try {
        found = { user: await authenticator.password(credentials.username, credentials.password, address, 'basic', new AppError('INVALID_CREDENTIALS', undefined, null, challenge)) };
      } catch (err) {
        if (err instanceof AppError) return { error: err };
        throw err;
      }
    } else {
      const token = types.includes('local') ? app.parseCookie(header(req, 'cookie') ?? '')[SESSION_COOKIE] : undefined;
      const session = token === undefined ? null : await authenticator.session(token);
      if (session !== null && token !== undefined) found = { user: session.user, sessionToken: token };
    }
    if (found === null) {
      await authenticator.anonymous(address, 'live feed without valid credentials');
      return { error: new AppError('UNAUTHENTICATED', 'The live feed needs a login session cookie or HTTP Basic credentials', null, challenge) };
    }
    if (found.user.passwordChangeRequired) return { error: new AppError('PASSWORD_CHANGE_REQUIRED') };
    return found;
  }

  #open(ws: WebSocket, user: UserRecord, sessionToken: string | undefined): void {
    const client: Client = { ws, user, alive: true, queue: Promise.resolve(), ...(sessionToken === undefined ? {} : { sessionToken }) };
    this.#clients.add(client);
    ws.on('pong', () => {
      client.alive = true;
    });
    ws.on('message', (data: RawData, isBinary: boolean) => this.#receive(client, data, isBinary));
    ws.on('error', (err) => this.#logger.info({ err, user: user.email }, 'live feed connection error'));
    ws.once('close', () => this.#clients.delete(client));
    const events = EVENT_TYPES.filter((type) => type !== 'task.progress' || isAdmin(user));
    this.#send(client, { type: 'hello', data: { user: user.email, events } });
    this.#logger.info({ user: user.email, clients: this.#clients.size }, 'live feed connected');
  }

  #receive(client: Client, data: RawData, isBinary: boolean): void {
    let frame: unknown;
    try {
      frame = isBinary ? undefined : JSON.parse(Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.concat(data as Buffer[]).toString('utf8'));
    } catch {
      frame = undefined;
    }
    if (typeof frame === 'object' && frame !== null && (frame as { type?: unknown }).type === 'ping') {
      this.#send(client, { type: 'pong', data: { at: new Date().toISOString() } });
      return;
    }
    // A bad frame is the client's mistake, not a reason to drop its feed: it is told, logged, and otherwise ignored.
    this.#logger.debug({ user: client.user.email, binary: isBinary }, 'live feed ignored a client frame that is not {"type":"ping"}');
    this.#send(client, { type: 'error', data: { code: 'BAD_FRAME', message: new AppError('BAD_FRAME').message } });
  }

  #send(client: Client, frame: LiveFrame): void {
    if (client.ws.readyState !== WebSocket.OPEN) return;
    if (client.ws.bufferedAmount > MAX_BUFFERED_BYTES) {
      this.#logger.warn({ user: client.user.email }, 'live feed client too slow; closing it so it reconnects and reloads');
      client.ws.close(CLOSE_TRY_AGAIN, 'too slow to keep up; reconnect');
      return;
    }
    client.ws.send(JSON.stringify(frame));
  }

  #enqueue(client: Client, deliver: () => Promise<void> | void): void {
    client.queue = client.queue.then(deliver).catch((err: unknown) => this.#logger.error({ err, user: client.user.email }, 'live feed could not deliver an event'));
  }

  #broadcast(frame: LiveFrame, allowed: (user: UserRecord) => boolean): void {
    for (const client of this.#clients) {
      this.#enqueue(client, () => {
        if (allowed(client.user)) this.#send(client, frame);
      });
    }
  }

  #transaction(type: 'transaction.started' | 'transaction.completed', event: LiveEventMap[typeof type][0]): void {
    if (this.#clients.size === 0) return;
    // One lookup per event, shared by every non-admin client; admins see every channel without it.
    let channel: Promise<ChannelRecord | null> | undefined;
    const frame: LiveFrame = { type, data: { ...event } };
    for (const client of this.#clients) {
      if (isAdmin(client.user)) {
        this.#enqueue(client, () => this.#send(client, frame));
        continue;
      }
      channel ??= this.#deps.store.channels.findById(event.channelID);
      const lookup = channel;
      this.#enqueue(client, async () => {
        const found = await lookup;
        if (found !== null && canViewChannel(client.user, found)) this.#send(client, frame);
      });
    }
  }

  /** Pings every client, drops those that missed the last pong, and re-checks each login (ended sessions, changed groups). */
  async #sweep(): Promise<void> {
    const { sessions, accounts } = this.#deps;
    for (const client of [...this.#clients]) {
      if (!client.alive) {
        client.ws.terminate();
        continue;
      }
      client.alive = false;
      client.ws.ping();
      try {
        // peek, not resolve: an open feed is not user activity, so it must not keep an idle session alive.
        const session = client.sessionToken === undefined ? null : await sessions.peek(client.sessionToken);
        const user = await accounts.findById(session?.userId ?? client.user._id);
        if ((client.sessionToken !== undefined && session === null) || user === null || user.passwordChangeRequired) {
          client.ws.close(CLOSE_POLICY, 'login ended');
          continue;
        }
        client.user = user;
      } catch (err) {
        this.#logger.error({ err, user: client.user.email }, 'live feed could not re-check a login');
      }
    }
  }
}
