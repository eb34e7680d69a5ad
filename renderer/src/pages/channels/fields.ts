/**
 * Where each channel field lives in the editor (which tab, what its input is called) and the server's field problems
 * in words, so a refused save can be shown next to the input it concerns and in a summary that says where to look.
 */
import type { ChannelForm } from './form';
import { isSocketChannel } from './form';

export type TabId = 'basics' | 'access' | 'matching' | 'routes' | 'rewriting' | 'retries' | 'alerts';

export const TABS: { id: TabId; label: string }[] = [
  { id: 'basics', label: 'Basics' },
  { id: 'routes', label: 'Routes' },
  { id: 'access', label: 'Access' },
  { id: 'matching', label: 'Request matching' },
  { id: 'rewriting', label: 'URL rewriting' },
  { id: 'retries', label: 'Retries and storage' },
  { id: 'alerts', label: 'Alerts' },
];

/** The labels of the channel's own inputs, by API field name. */
const CHANNEL_LABELS: Record<string, [TabId, string]> = {
  name: ['basics', 'Name'],
  description: ['basics', 'Description'],
  type: ['basics', 'Channel type'],
  urlPattern: ['basics', 'URL pattern'],
  priority: ['basics', 'Priority'],
  status: ['basics', 'Status'],
  timeout: ['basics', 'Timeout'],
  tcpHost: ['basics', 'Listen on address'],
  tcpPort: ['basics', 'Listen on port'],
  tcpFraming: ['basics', 'Message framing'],
  requireClientCertificate: ['basics', 'Require a client certificate'],
  pollingSchedule: ['basics', 'Polling schedule'],
  properties: ['basics', 'Property'],
  routes: ['routes', 'Routes'],
  authType: ['access', 'Authentication type'],
  allow: ['access', 'Allowed clients and roles'],
  whitelist: ['access', 'Whitelisted IP addresses'],
  txViewAcl: ['access', 'Groups that can view transactions'],
  txViewFullAcl: ['access', 'Groups that can view request and response bodies'],
  txRerunAcl: ['access', 'Groups that can re-run transactions'],
  methods: ['matching', 'Methods'],
  matchContentTypes: ['matching', 'Content types'],
  matchContentRegex: ['matching', 'Body regular expression'],
  matchContentXpath: ['matching', 'XPath'],
  matchContentJson: ['matching', 'JSON property'],
  matchContentValue: ['matching', 'Expected value'],
  rewriteUrls: ['rewriting', 'Rewrite URLs'],
  addAutoRewriteRules: ['rewriting', 'Add rules for the primary routes automatically'],
  rewriteUrlsConfig: ['rewriting', 'Rewrite rule'],
  requestBody: ['retries', 'Store request bodies'],
  responseBody: ['retries', 'Store response bodies'],
  maxBodyAgeDays: ['retries', 'Keep bodies for'],
  autoRetryEnabled: ['retries', 'Retry automatically'],
  autoRetryPeriodMinutes: ['retries', 'Minimum wait between retries'],
  autoRetryMaxAttempts: ['retries', 'Maximum attempts'],
  alerts: ['alerts', 'Alert'],
};

const ROUTE_LABELS: Record<string, string> = {
  name: 'Route name',
  type: 'Route type',
  host: 'Host',
  port: 'Port',
  path: 'Path',
  pathTransform: 'Path transform',
  primary: 'Primary',
  secured: 'Secure (HTTPS or TLS)',
  username: 'Username',
  password: 'Password',
  forwardAuthHeader: 'Forward the client’s Authorization header',
  status: 'Route enabled',
  waitPrimaryResponse: 'Wait for the primary route',
  statusCodesCheck: 'Send when the primary answers',
};

const RULE_LABELS: Record<string, string> = {
  fromHost: 'From host',
  fromPort: 'From port',
  toHost: 'To host',
  toPort: 'To port',
  pathTransform: 'Path transform',
};

const ALERT_LABELS: Record<string, string> = {
  condition: 'Alert when',
  status: 'Response status',
  failureRate: 'Failure rate above',
  groups: 'Groups to notify',
  users: 'Recipient',
  user: 'User',
  method: 'Send by',
  maxAlerts: 'At most',
};

/** Tabs about HTTP requests only: a tcp or tls channel takes everything that arrives on its port. */
const HTTP_ONLY_TABS: readonly TabId[] = ['matching', 'rewriting'];

/**
 * The tabs shown for a channel type. A hidden tab still shows when it holds a problem, so every problem the server
 * names can be reached.
 */
export function tabsFor(type: ChannelForm['type'], errors: FieldErrors): { id: TabId; label: string }[] {
  const socket = isSocketChannel(type);
  return TABS.filter(({ id }) => !socket || !HTTP_ONLY_TABS.includes(id) || errors.countIn(id) > 0);
}

/** The tab holding the input of a field path such as `routes.0.host`. */
export function tabOf(path: string): TabId {
  const top = path.split('.')[0] ?? '';
  return CHANNEL_LABELS[top]?.[0] ?? 'basics';
}

/** The name of the input at `path` (`Path transform`), without saying which route or rule. */
export function inputLabel(path: string): string {
  const parts = path.split('.');
  const [top = '', , field] = parts;
  if (top === 'routes' && field !== undefined) return ROUTE_LABELS[field] ?? field;
  if (top === 'rewriteUrlsConfig' && field !== undefined) return RULE_LABELS[field] ?? field;
  if (top === 'alerts' && field !== undefined) return ALERT_LABELS[parts[parts.length - 1] ?? ''] ?? ALERT_LABELS[field] ?? field;
  return CHANNEL_LABELS[top]?.[1] ?? top;
}

/** Where a field is, for the summary: `Route 2 (archive) › Path transform`. */
export function fieldPlace(path: string, form: ChannelForm): string {
  const parts = path.split('.');
  const [top = '', index] = parts;
  const n = index !== undefined && /^\d+$/.test(index) ? Number(index) : undefined;
  if (n === undefined) return inputLabel(path);
  if (top === 'routes') {
    const name = form.routes[n]?.name.trim();
    return `Route ${n + 1}${name ? ` (${name})` : ''}${parts.length > 2 ? ` › ${inputLabel(path)}` : ''}`;
  }
  if (top === 'rewriteUrlsConfig') return `Rewrite rule ${n + 1}${parts.length > 2 ? ` › ${inputLabel(path)}` : ''}`;
  if (top === 'alerts') {
    const recipient = parts[2] === 'users' && parts[3] !== undefined ? ` › recipient ${Number(parts[3]) + 1}` : '';
    return `Alert ${n + 1}${recipient}${parts.length > 2 ? ` › ${inputLabel(path)}` : ''}`;
  }
  if (top === 'properties') return `Property ${n + 1}`;
  return `${inputLabel(path)} (item ${n + 1})`;
}

/** Field names the server may mention inside a message, in the words the editor uses. */
const NAMES_IN_MESSAGES: [RegExp, string][] = [
  [/\bmatchContentXpath\b/g, 'an XPath'],
  [/\bmatchContentJson\b/g, 'a JSON property'],
  [/\bmatchContentValue\b/g, 'the expected value'],
];

/** The validator's terse wording, said plainly. */
function plain(message: string, path: string): string {
  if (/^must match pattern/.test(message)) {
    if (/^alerts\.\d+\.status$/.test(path)) return 'must be a status code such as 401 or a range such as 4xx';
    if (/^methods\./.test(path)) return 'must be an HTTP method name such as GET';
    return 'is not in the expected form';
  }
  if (/^properties\./.test(path) && /pattern|property name/.test(message)) return 'needs a name without dots that does not start with $';
  if (/^routes\.\d+\.password$/.test(path) && /mask/.test(message)) {
    return 'is needed again: the route was renamed, so the stored password cannot be kept. Type the password';
  }
  let text = message
    .replace(/^must NOT have fewer than 1 characters?$/, 'cannot be empty')
    .replace(/^must NOT have fewer than (\d+) characters$/, 'must have at least $1 characters')
    .replace(/^must NOT have more than (\d+) characters$/, 'is too long (at most $1 characters)')
    .replace(/^must NOT have more than (\d+) items$/, 'has too many entries (at most $1)')
    .replace(/^must be >= (\S+)$/, 'must be at least $1')
    .replace(/^must be <= (\S+)$/, 'must be at most $1')
    .replace(/^must be integer$/, 'must be a whole number');
  for (const [name, words] of NAMES_IN_MESSAGES) text = text.replace(name, words);
  return text;
}

/** A server problem as a sentence about the input next to which it is shown: `Host is required.` */
export function problemSentence(path: string, message: string): string {
  const sentence = `${inputLabel(path)} ${plain(message, path)}`;
  return /[.!?]$/.test(sentence) ? sentence : `${sentence}.`;
}

/** Field problems by path, with the look-ups the inputs need. */
export class FieldErrors {
  readonly #byPath: Record<string, string>;

  constructor(byPath: Record<string, string> = {}) {
    this.#byPath = byPath;
  }

  get paths(): string[] {
    return Object.keys(this.#byPath);
  }

  get empty(): boolean {
    return this.paths.length === 0;
  }

  /** The sentence for exactly this field. */
  at(path: string): string | undefined {
    const message = this.#byPath[path];
    return message === undefined ? undefined : problemSentence(path, message);
  }

  /** The field's own problem, else the first of its items (`methods.2`): for inputs that hold a list. */
  within(path: string, itemName?: (index: number) => string): string | undefined {
    const own = this.at(path);
    if (own !== undefined) return own;
    const item = this.paths.find((p) => p.startsWith(`${path}.`));
    if (item === undefined) return undefined;
    const index = Number(item.slice(path.length + 1).split('.')[0]);
    const what = Number.isInteger(index) && itemName !== undefined ? itemName(index) : undefined;
    const message = plain(this.#byPath[item] ?? '', item);
    return `${what ?? `Entry ${index + 1}`} ${message}.`;
  }

  /** The problem at exactly this path in words, without the field's name: for the summary, which names the place. */
  plainAt(path: string): string | undefined {
    const message = this.#byPath[path];
    return message === undefined ? undefined : plain(message, path);
  }

  /** The same problems less those under the given top-level fields (`routes` clears `routes.1.host`). */
  without(fields: string[]): FieldErrors {
    const kept = Object.entries(this.#byPath).filter(([path]) => !fields.includes(path.split('.')[0] ?? ''));
    return kept.length === this.paths.length ? this : new FieldErrors(Object.fromEntries(kept));
  }

  /** How many problems are in a tab. */
  countIn(tab: TabId): number {
    return this.paths.filter((p) => tabOf(p) === tab).length;
  }
}

/** The id of the input for a field path, so the error summary can move focus to it. */
export function fieldId(path: string): string {
  return `channel-${path.replace(/\./g, '-')}`;
}

/** What every tab of the editor gets. */
export interface TabProps {
  form: ChannelForm;
  update: (patch: Partial<ChannelForm>) => void;
  errors: FieldErrors;
}

/** The props that tie an input to a field: its id and its problem, if any. */
export function bind(errors: FieldErrors, path: string): { id: string; error: string | undefined } {
  return { id: fieldId(path), error: errors.at(path) };
}
