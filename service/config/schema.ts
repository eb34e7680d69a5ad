/**
 * The configuration schema: the single source of truth for keys, types, defaults, descriptions, secrets and the keys
 * not available yet. Validation, environment parsing and the configuration reference (docs/operations/configuration.md) are all derived from it.
 */
import { Type, type Static } from 'typebox';

/** `secret` keys are never echoed in messages and also accept `<ENV>_FILE`. */
const secret = { secret: true } as const;

function section<T extends Parameters<typeof Type.Object>[0]>(properties: T, description: string) {
  // Closed objects make the validator report typos in key names instead of silently ignoring them.
  return Type.Object(properties, { additionalProperties: false, description });
}

/**
 * `unavailable` marks a key whose feature is not built yet: validation accepts only its default, so a setting never
 * seems to work while it does nothing. The value says what is missing; messages and the reference table quote it.
 */
interface Unavailable {
  unavailable?: string;
}

function int(minimum: number, maximum: number, defaultValue: number, description: string, extra: Unavailable = {}) {
  return Type.Integer({ minimum, maximum, default: defaultValue, description, ...extra });
}

function port(defaultValue: number, description: string, extra: Unavailable = {}) {
  return int(1, 65535, defaultValue, description, extra);
}

function bool(defaultValue: boolean, description: string, extra: Unavailable = {}) {
  return Type.Boolean({ default: defaultValue, description, ...extra });
}

function auditServer(defaultPort: number, transport: string) {
  return section(
    {
      enabled: bool(false, `Listen for ATNA audit messages (syslog) over ${transport}.`),
      port: port(defaultPort, `Port of the ${transport} audit listener.`),
    },
    `ATNA audit repository listener over ${transport}.`,
  );
}

export const jwtAlgorithms = [
  'HS256', 'HS384', 'HS512', 'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA',
] as const;

export const configSchema = Type.Object(
  {
    dataDir: Type.String({
      minLength: 1,
      description: 'Folder holding everything Junction stores; a relative path is taken from the working directory.',
      // The real default depends on the user and platform (see data-dir.ts), so the docs show this text instead.
      defaultText:
        'per user: `$XDG_DATA_HOME/junction` or `~/.local/share/junction` (Linux), ' +
        '`~/Library/Application Support/Junction` (macOS), `%APPDATA%\\Junction` (Windows)',
    }),
    adminPassword: Type.Optional(
      Type.String({
        minLength: 8,
        description:
          "Password for the built-in super user, applied while it still has its first-run password; skips the forced change.",
        ...secret,
      }),
    ),
    api: section(
      {
        host: Type.String({ minLength: 1, default: '0.0.0.0', description: 'Address the management API listens on.' }),
        port: port(8080, 'Port of the management API.'),
        protocol: Type.Enum(['https', 'http'], {
          default: 'https',
          description: 'Protocol of the management API; plain `http` must be chosen explicitly.',
        }),
        bodyLimitBytes: int(1024, 1073741824, 5242880, 'Largest request body the management API accepts, in bytes.'),
        idleTimeoutSeconds: int(1, 3600, 120, 'Longest the management API waits on a connection that has gone silent in the middle of a request, in seconds; the client then gets 408 and is disconnected.'),
        authenticationTypes: Type.Array(Type.Enum(['basic', 'local', 'token', 'openid']), {
          minItems: 1,
          uniqueItems: true,
          default: ['basic', 'local'],
          description: 'How API clients may log in; `token` is the deprecated OpenHIM token scheme, `openid` is OpenID Connect sign-in (settings in `api.openid`).',
        }),
        sessionTimeoutMinutes: int(1, 43200, 120, 'Idle time after which a login session ends, in minutes.'),
        corsOrigins: Type.Array(Type.String({ minLength: 1, maxLength: 300 }), {
          default: [],
          uniqueItems: true,
          maxItems: 100,
          description:
            'Origins (`scheme://host[:port]`, such as `https://console.example:9000`) of consoles served elsewhere that may call the management API from a browser; ' +
            'empty allows the same origin only. Naming any makes the session cookie `SameSite=None; Secure` so that those consoles can sign in.',
        }),
        // OpenID Connect sign-in: where OpenHIM keeps it (`api.openid`), since it is one of the API's login types.
        openid: section(
          {
            issuerUrl: Type.String({ default: '', maxLength: 2000, description: 'Issuer URL of the OpenID provider; its settings are discovered from `<issuerUrl>/.well-known/openid-configuration` (Keycloak: `https://<host>/realms/<realm>`). Required when `openid` is in `api.authenticationTypes`.' }),
            clientId: Type.String({ default: '', maxLength: 500, description: 'Client id registered for Junction at the provider. Required when `openid` is in `api.authenticationTypes`.' }),
            clientSecret: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: 'Client secret of `api.openid.clientId`; leave unset for a public client (PKCE only).', ...secret })),
            callbackUrl: Type.String({ default: '', maxLength: 2000, description: 'Where the provider sends the browser back, registered at the provider as a redirect URI; empty means the console on this API: `https://<host>:<api.port>/`.' }),
            scope: Type.String({ default: 'openid email profile', minLength: 1, maxLength: 500, description: 'Scopes asked for; must include `openid`.' }),
            emailClaim: Type.String({ default: 'email', minLength: 1, maxLength: 200, description: "Dotted path to the user's email in the ID token or userinfo claims; the user is found by it." }),
            nameClaim: Type.String({ default: 'name', minLength: 1, maxLength: 200, description: "Dotted path to the user's full name (used when `given_name` and `family_name` are absent)." }),
            groupsClaim: Type.String({ default: '', maxLength: 200, description: "Dotted path to the user's groups (a list or one name), such as `groups` or `resource_access.junction.roles` (Keycloak client roles); they replace the user's groups at each sign-in. Empty leaves groups to Junction's user page." }),
            adminGroups: Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { default: [], uniqueItems: true, maxItems: 100, description: 'Values of the groups claim that make the user an administrator (the `admin` group).' }),
            createUsers: bool(false, 'Create the user at first sign-in when no user has that email; otherwise an administrator must create the user first.'),
            displayName: Type.String({ default: 'OpenID Connect', minLength: 1, maxLength: 100, description: 'Name on the console\'s sign-in button: "Sign in with <displayName>".' }),
          },
          'OpenID Connect sign-in.',
        ),
        loginThrottle: section(
          {
            maxFailuresPerAccount: int(1, 1000, 10, 'Failed logins allowed per account within the window.'),
            maxFailuresPerAddress: int(1, 10000, 50, 'Failed logins allowed per client address within the window.'),
            windowSeconds: int(1, 86400, 900, 'Length of the failed-login window, in seconds.'),
          },
          'Limits on failed logins.',
        ),
      },
      'Management API.',
    ),
    tls: section(
      {
        certFile: Type.String({
          default: '',
          description: 'PEM certificate file; empty uses a self-signed certificate generated in the data folder.',
        }),
        keyFile: Type.String({ default: '', description: 'PEM private key file for `tls.certFile`.' }),
        keyPassphrase: Type.Optional(
          Type.String({ minLength: 1, description: 'Passphrase of `tls.keyFile`, if it is encrypted.', ...secret }),
        ),
        trustedCAFiles: Type.Array(Type.String({ minLength: 1 }), {
          default: [],
          uniqueItems: true,
          description: 'PEM files of CA certificates trusted for client certificates (mutual TLS) and for HTTPS routes, besides the system CAs.',
        }),
      },
      'Server certificate.',
    ),
    keystore: section(
      {
        secretFile: Type.String({
          default: '',
          description: 'File holding the secret that encrypts the stored private key and passphrase (created 0600 on first start); empty uses `keystore.secret` in the data folder. Keep it apart from backups of `<dataDir>/keystore/` to keep those backups useless without it. With `storage.engine: postgres` the keystore is in the database and every instance must be given a copy of the same secret file.',
        }),
        expiryWarningDays: int(1, 3650, 30, 'Days before a server or trusted CA certificate expires that an expiry alert is sent (at most once a day per certificate).'),
        expiryAlertGroups: Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
          default: [],
          uniqueItems: true,
          description: 'Contact groups (by name) that receive certificate expiry alerts by their members\' chosen method; with none, every admin user is emailed.',
        }),
      },
      'Keystore: server certificate and trusted CAs managed through the API and console.',
    ),
    router: section(
      {
        host: Type.String({ minLength: 1, default: '0.0.0.0', description: 'Address the transaction ports listen on.' }),
        httpsPort: port(5000, 'HTTPS transaction port.'),
        httpPort: port(5001, 'HTTP transaction port.'),
        timeoutMs: int(1, 3_600_000, 60_000, 'Milliseconds to wait for a route to answer, for channels without their own timeout.'),
        maxBodyBytes: int(1024, 1_073_741_824, 16_777_216, 'Largest request or response body stored per transaction; longer bodies are stored truncated and cannot be re-run.'),
        matchBodyLimitBytes: int(1024, 104_857_600, 10_485_760, 'Largest request body read into memory for content matching (RegEx, XPath, JSON) channels.'),
        routeCheckTimeoutMs: int(10, 60_000, 5_000, 'Milliseconds "Check routes" (`POST /channels/:id/check-routes`) waits for each route\'s connection and TLS handshake before reporting it timed out.'),
      },
      'Transaction router.',
    ),
    tcp: section(
      {
        maxMessageBytes: int(1024, 1_073_741_824, 16_777_216, 'Largest message a tcp or tls channel accepts, and largest reply read from an MLLP or TCP route; a longer one is refused, never cut short.'),
        idleTimeoutSeconds: int(1, 86_400, 600, 'Seconds a tcp or tls channel connection (between messages), or a pooled MLLP route connection, may stay silent before it is closed; a new connection that has sent nothing yet: tcp.silentTimeoutSeconds.'),
        maxConnectionsPerChannel: int(1, 100_000, 200, 'Connections one tcp or tls channel holds open at once; more are refused until one closes.'),
        maxConnectionsPerAddress: int(1, 100_000, 16, 'Connections one address may hold open at once on one tcp or tls channel, so a single sender cannot fill tcp.maxConnectionsPerChannel; more from that address are closed at once (logged, counted) until one closes.'),
        silentTimeoutSeconds: int(1, 86_400, 120, 'Seconds a new tcp or tls channel connection may stay open without sending a byte; after its first byte, tcp.idleTimeoutSeconds applies between messages.'),
        connectionsPerRoute: int(1, 1000, 16, 'Connections kept open to each MLLP route upstream and reused.'),
      },
      'TCP, TLS and MLLP channels and routes.',
    ),
    connections: section(
      {
        maxTotal: int(0, 1_000_000, 0, 'Inbound connections the service holds at once over every listener; more are refused (closed at once, logged, counted) until some close. 0: from the open-file limit at start (the soft RLIMIT_NOFILE, raised to the hard limit where allowed) less a quarter of it, at least 256, kept for store files, logs and outbound connections.'),
        maxPerAddress: int(1, 100_000, 128, 'Connections one address may hold open at once on each HTTP and HTTPS transaction port, on the management API and on each audit listener; more from that address are closed at once (logged, counted) until one closes. Behind a reverse proxy every client shares its address: raise this to what the proxy opens. tcp and tls channels: tcp.maxConnectionsPerAddress.'),
        headTimeoutSeconds: int(1, 3600, 30, 'Seconds an HTTP or HTTPS connection to a transaction port or the management API gets, from connecting (or from its previous response) until a whole request head has arrived; a silent or slow sender then gets 408 and is disconnected.'),
        handshakeTimeoutSeconds: int(1, 600, 10, 'Seconds a TLS handshake may take on every TLS listener (HTTPS port, management API, tls channels, TLS audit listener) before the connection is closed.'),
        silentTimeoutSeconds: int(1, 86_400, 30, 'Seconds a TCP or TLS audit connection may stay open without sending a byte (tcp and tls channels: tcp.silentTimeoutSeconds; HTTP: connections.headTimeoutSeconds).'),
        frameTimeoutSeconds: int(1, 86_400, 60, 'Seconds one whole message may take to arrive, from its first byte, on a tcp or tls channel (an MLLP frame, or a stream message up to its end) or a TCP or TLS audit connection; a sender still sending then is disconnected (MLLP: with an AR when its MSH was read).'),
      },
      'Inbound connection limits and deadlines, shared by every listener.',
    ),
    authentication: section(
      {
        enableMutualTLSAuthentication: bool(true, 'Accept clients identified by their TLS client certificate.'),
        enableBasicAuthentication: bool(true, 'Accept clients using HTTP basic authentication.'),
        enableCustomTokenAuthentication: bool(false, 'Accept clients using a custom token.'),
        enableJWTAuthentication: bool(false, 'Accept clients using a JSON Web Token.'),
        jwt: section(
          {
            secretOrPublicKey: Type.Optional(
              Type.String({
                minLength: 1,
                description:
                  'Shared secret or PEM public key that verifies JWTs; required when JWT authentication is on.',
                ...secret,
              }),
            ),
            algorithms: Type.Array(Type.Enum([...jwtAlgorithms]), {
              minItems: 1,
              uniqueItems: true,
              default: ['HS256'],
              description: 'JWT signature algorithms accepted.',
            }),
            audience: Type.Array(Type.String(), {
              default: [],
              description: 'Accepted JWT audiences; empty accepts any.',
            }),
            issuer: Type.String({ default: '', description: 'Required JWT issuer; empty accepts any.' }),
          },
          'JSON Web Token verification.',
        ),
        throttle: section(
          {
            maxFailuresPerClientPerAddress: int(1, 1000, 10, 'Failed authentications allowed per client id from one address within the window; past it that address gets 429.'),
            maxFailuresPerClient: int(1, 100_000, 100, 'Failed authentications allowed per client id from all addresses within the window; past it only addresses that have themselves failed for that client get 429.'),
            maxFailuresPerAddress: int(1, 100_000, 50, 'Failed client authentications allowed per address within the window, whatever client id (or none) is given.'),
            windowSeconds: int(1, 86_400, 300, 'Length of the failed-authentication window, in seconds; also how often a flood of failures is summarised in one audit event.'),
          },
          'Limits on failed client authentications on the transaction ports.',
        ),
      },
      'How clients of the transaction ports authenticate.',
    ),
    auditing: section(
      {
        host: Type.String({ minLength: 1, default: '0.0.0.0', description: 'Address the audit repository listeners listen on.' }),
        servers: section(
          {
            udp: auditServer(5050, 'UDP'),
            tls: section(
              {
                enabled: bool(false, 'Listen for ATNA audit messages (syslog) over TLS.'),
                port: port(5051, 'Port of the TLS audit listener.'),
                requireClientCertificate: bool(
                  true,
                  "Refuse TLS audit senders without a client certificate that chains to the trusted CAs (ATNA's node authentication). Turn off only for senders that cannot present one.",
                ),
              },
              'ATNA audit repository listener over TLS, with the server certificate (`tls.*`).',
            ),
            tcp: auditServer(5052, 'TCP'),
          },
          'ATNA audit repository listeners.',
        ),
        maxMessageBytes: int(1024, 16_777_216, 262_144, 'Largest audit message accepted; a longer one is counted, logged and dropped (a stream sender is disconnected).'),
        maxConnections: int(1, 100_000, 500, 'TCP and TLS audit connections held open at once, per listener; more are refused until one closes.'),
        idleTimeoutSeconds: int(1, 86_400, 600, 'Seconds a TCP or TLS audit connection may stay silent before it is closed.'),
        retentionDays: int(0, 36_500, 0, 'Days of audit records kept (checked daily); 0 keeps them forever.'),
      },
      'Audit repository.',
    ),
    auditEvents: section(
      {
        interface: Type.Enum(['internal', 'udp', 'tls', 'tcp'], {
          default: 'internal',
          description: "Where Junction's own audit events go: `internal` stores them in this Junction's audit repository; `udp`, `tcp` and `tls` send them as syslog to `auditEvents.host:port`.",
        }),
        host: Type.String({
          default: '',
          maxLength: 255,
          description: 'Audit repository host; required unless `auditEvents.interface` is `internal`.',
        }),
        port: port(5051, 'Audit repository port.'),
        auditSourceID: Type.String({
          minLength: 1,
          default: 'Junction',
          description: 'Audit source ID written into audit events.',
        }),
        maxQueued: int(1, 10_000_000, 100_000, 'Audit events kept to send while the audit repository cannot be reached; past it the oldest are dropped, and the drop is logged.'),
        retryMaxSeconds: int(1, 86_400, 300, 'Longest wait between attempts to reach an unreachable audit repository (the wait doubles from 1 s up to this).'),
      },
      "Junction's own audit events.",
    ),
    logging: section(
      {
        level: Type.Enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
          default: 'info',
          description: 'Least severe log level written.',
        }),
        file: section(
          {
            enabled: bool(true, 'Write a rotating JSON log in `<dataDir>/logs`.'),
            maxSizeMB: int(1, 1024, 10, 'Size at which the log file is rotated, in MB.'),
            maxFiles: int(1, 365, 7, 'Number of rotated log files kept.'),
          },
          'Log file.',
        ),
      },
      'Logging.',
    ),
    retention: section(
      {
        maxAgeDays: int(0, 36_500, 0, 'Days of transactions kept (whole days, checked daily); 0 keeps them forever. Channels can also limit how long their bodies are kept (maxBodyAgeDays).'),
      },
      'Retention of the transaction log.',
    ),
    search: section(
      {
        enabled: bool(true, 'Index clinical keys (patient IDs, order numbers, control IDs, message types) and the words of stored bodies as transactions complete, and walk back over older transactions in the background (issue 37); false indexes nothing and a search by key or text is refused with SEARCH_DISABLED.'),
        maxTextBytes: int(0, 16_777_216, 65_536, "Bytes of each stored body whose words go into the full-text index (0: keys only). Keys are read from at least the first MiB of a body whatever this says."),
        countWithinMs: int(0, 60_000, 400, 'Milliseconds a text search may spend counting its matches for the list\'s total, after its page is read: past it (or past 10,000 matches) the total is answered as estimated (`estimated: true`: what was counted, or PostgreSQL\'s estimate from its statistics), so a common word\'s first page is never kept waiting by its count. 0: always estimated.'),
        intervalMs: int(100, 3_600_000, 1000, 'Milliseconds between runs of the indexer (the `search-index` job): each run indexes what completed since the last. Longer intervals index in larger batches, and searches find new messages that much later.'),
      },
      'The search index of stored transactions (docs/operations/search-index.md).',
    ),
    refusals: section(
      {
        flushIntervalSeconds: int(1, 3600, 5, 'Seconds between writes of the refusals recorded in memory (folded per minute, address, listener, channel and reason) to the refusal log; GET /refusals and the alert job write them first.'),
        maxPendingRows: int(100, 1_000_000, 10_000, 'Refusal rows (distinct minute, address, listener, channel and reason) kept apart between two writes; beyond it new senders are folded into one row with the address *, so a flood from many addresses cannot exhaust memory or the disk.'),
        maxAgeDays: int(0, 36_500, 0, 'Days of refusals kept (checked daily with the transactions); 0: as long as transactions (retention.maxAgeDays; kept forever when that is 0 too).'),
      },
      'The record of refused requests and messages (GET /refusals).',
    ),
    storage: section(
      {
        engine: Type.Enum(['embedded', 'postgres'], {
          default: 'embedded',
          description:
            'Where Junction keeps its data: `embedded` (NeDB and SQLite files in the data folder, for one machine) or `postgres` ' +
            '(the PostgreSQL database of `storage.postgres`, shared by several Junction instances). The `storage.postgres` keys are refused with `embedded`.',
        }),
        compactionIntervalMinutes: int(1, 10080, 60, 'How often the configuration data files (`*.db`) are compacted, in minutes.'),
        disk: section(
          {
            checkIntervalSeconds: int(1, 3600, 10, "How often the free space of the data folder's disk is measured, in seconds (it is also measured at once when a write fails)."),
            warningMB: int(0, 10_485_760, 1024, 'Below this much free space in the data folder, in MB, `/health`, `/about` and the console warn and the admins get one email per episode; 0 turns the warning off.'),
            floorMB: int(0, 10_485_760, 128, 'Below this much free space in the data folder, in MB, new transactions are refused (HTTP 503 `STORE_UNAVAILABLE`, an `AR` NAK on tcp and tls channels) before anything is written, until space comes back; 0 turns the floor off. Only with `storage.engine: embedded`, whose transactions live in the data folder.'),
          },
          "Watching the free space of the data folder's disk.",
        ),
        postgres: section(
          {
            url: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: 'Connection URL of the PostgreSQL database, `postgres://user:password@host:port/database`; when set it replaces `host`, `port`, `database`, `user` and `password`.', ...secret })),
            host: Type.String({ minLength: 1, maxLength: 500, default: 'localhost', description: 'Host name or address of the PostgreSQL server.' }),
            port: port(5432, 'Port of the PostgreSQL server.'),
            database: Type.String({ minLength: 1, maxLength: 63, default: 'junction', description: 'Database Junction keeps its tables in; it must exist, and Junction creates its tables there.' }),
            user: Type.String({ minLength: 1, maxLength: 63, default: 'junction', description: 'PostgreSQL role Junction connects as; it needs to create tables in the database.' }),
            password: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: 'Password of `storage.postgres.user`.', ...secret })),
            poolSize: int(1, 1000, 10, 'Most connections one Junction instance keeps open to PostgreSQL.'),
            commitWindowMs: int(
              0,
              100,
              1,
              'Group commit of the transaction log: how long, in milliseconds, the first insert or completion of a batch waits for the others in flight to share its commit (a batch is also sent when the one before it has committed, or at 500 writes). 0 sends on the next turn of the event loop; more trades a little latency at low load for fewer commits.',
            ),
            writeTimeoutMs: int(
              100,
              600_000,
              10_000,
              'How long, in milliseconds, one group commit of the transaction log (and one batch of small bodies) may take, from the wait for a connection to its COMMIT, before it fails: its senders are then refused (HTTP 503 `STORE_UNAVAILABLE`, an `AR` NAK) as in an outage, and the database is checked and reported away on `/health` if it does not answer. A write queued behind a batch in flight waits for it first, so a sender is answered within about twice this long when the server stops answering without closing its connections (a frozen server). Keep it well under the channels\' timeouts (`router.timeoutMs`).',
            ),
            queryTimeoutMs: int(
              1000,
              3_600_000,
              60_000,
              'How long, in milliseconds, any other statement may run (console and API reads, retention, heartbeats, the search indexer\'s batches), on both sides: the server cancels it (`statement_timeout`) and Junction stops waiting and drops the connection (node-postgres\' `query_timeout`). Schema migrations at start-up are not bounded.',
            ),
            tls: section(
              {
                enabled: bool(false, 'Connect to PostgreSQL over TLS, verifying the server certificate and its host name.'),
                caFile: Type.String({ maxLength: 2000, default: '', description: 'PEM file of the CA that signed the PostgreSQL server certificate; empty trusts the system CAs.' }),
              },
              'TLS to the PostgreSQL server.',
            ),
            cluster: section(
              {
                heartbeatMs: int(100, 60_000, 5_000, 'How often each instance writes its heartbeat to the database, in milliseconds.'),
                deadAfterMs: int(300, 600_000, 15_000, 'An instance whose last heartbeat is older than this, in milliseconds, is taken for dead: a survivor marks its unfinished transactions Failed. At least twice `heartbeatMs`, so one slow beat is not a death.'),
                leaseMs: int(300, 600_000, 20_000, 'How long a scheduled job\'s lease lasts, in milliseconds (renewed while it runs): when the instance holding it dies, another takes the job over within about this long after its next tick.'),
              },
              'How the instances sharing the database watch each other; every instance should be given the same values.',
            ),
          },
          'The PostgreSQL engine (`storage.engine: postgres`), for several Junction instances sharing one database.',
        ),
      },
      'Data storage.',
    ),
    mediators: section(
      {
        offlineAfterSeconds: int(1, 86_400, 60, 'Seconds without a heartbeat after which a mediator is shown offline (OpenHIM uses 60).'),
      },
      'Mediators.',
    ),
    tasks: section(
      {
        concurrency: int(1, 16, 1, 'How many re-run tasks run at the same time; each re-runs up to its own batchSize transactions at once.'),
      },
      'Re-run tasks (bulk re-runs).',
    ),
    timeZone: Type.String({
      default: '',
      maxLength: 100,
      description:
        'IANA time zone (such as `Africa/Nairobi`) that metric day, week, month and year buckets are cut in, that alert and report messages show times in, and that reports are scheduled in; empty uses the system\'s zone.',
    }),
    metrics: section(
      {
        minuteRetentionHours: int(2, 8760, 24, 'Hours that per-minute metric buckets are kept (hour and day buckets are kept as long as transactions are).'),
      },
      'Transaction metrics.',
    ),
    prometheus: section(
      {
        public: bool(false, 'Let anyone who can reach the API port read the Prometheus exposition (`GET /metrics/prometheus`, or a scrape of `GET /metrics`) without signing in; otherwise a scraper needs an admin user\'s basic credentials.'),
      },
      'Prometheus metrics exposition.',
    ),
    email: section(
      {
        fromAddress: Type.String({ default: '', maxLength: 320, description: 'Sender address of alert, report and password emails, such as `Junction <junction@clinic.example>`; required to send email.' }),
        smtp: section(
          {
            host: Type.String({ default: '', maxLength: 255, description: 'SMTP server host name; empty means no email is sent (alerts by email are recorded as failed).' }),
            port: port(587, 'SMTP server port (587 submission with STARTTLS, 465 implicit TLS, 25 relay).'),
            secure: bool(false, 'Use TLS from the first byte (port 465); otherwise STARTTLS is used when the server offers it.'),
            requireTLS: bool(true, 'Refuse to send over a connection that did not upgrade to TLS with STARTTLS.'),
            rejectUnauthorized: bool(true, "Verify the SMTP server's certificate against the system and trusted CAs."),
            user: Type.String({ default: '', maxLength: 320, description: 'SMTP login name; empty sends without authentication.' }),
            password: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: 'SMTP password for `email.smtp.user`.', ...secret })),
            timeoutSeconds: int(1, 600, 30, 'Seconds to wait for the SMTP server at each step before the attempt counts as failed.'),
          },
          'The SMTP server that email goes through.',
        ),
      },
      'Email (alerts, reports and set-password links).',
    ),
    sms: section(
      {
        gatewayUrl: Type.String({ default: '', maxLength: 2000, description: 'URL of the SMS gateway that receives one HTTP POST per message; empty means no SMS is sent (alerts by SMS are recorded as failed).' }),
        format: Type.Enum(['json', 'form'], { default: 'json', description: 'Body of the POST: a JSON object, or an `application/x-www-form-urlencoded` form.' }),
        toField: Type.String({ default: 'to', minLength: 1, maxLength: 100, description: 'Name of the field holding the phone number (MSISDN).' }),
        textField: Type.String({ default: 'text', minLength: 1, maxLength: 100, description: 'Name of the field holding the message text.' }),
        from: Type.String({ default: '', maxLength: 100, description: 'Sender id sent in a `from` field, if the gateway needs one; empty sends none.' }),
        authorization: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: 'Value of the `Authorization` header sent to the gateway, such as `Bearer <key>`.', ...secret })),
        timeoutSeconds: int(1, 600, 30, 'Seconds to wait for the gateway before the attempt counts as failed.'),
      },
      'SMS through an HTTP gateway.',
    ),
    notifications: section(
      {
        maxAttempts: int(1, 100, 10, 'Tries of one email or SMS before it is recorded as failed for good; waits between tries double from 30 s up to an hour.'),
        keepDays: int(1, 3650, 30, 'Days that records of sent and failed alerts, reports and test messages are kept.'),
      },
      'Delivery of alerts, reports and other messages.',
    ),
    alerts: section(
      {
        enableAlerts: bool(true, "Evaluate channels' alert rules and send alerts."),
        pollPeriodMinutes: int(1, 1440, 1, 'How often alert rules are evaluated, in minutes; each run covers exactly the time since the previous one.'),
        minuteMs: int(1, 60_000, 60_000, 'Milliseconds in one minute of alerts.pollPeriodMinutes; only tests set less than 60000.'),
        himInstance: Type.String({ default: 'Junction', minLength: 1, maxLength: 200, description: 'Name of this instance in alert and report messages.' }),
        consoleURL: Type.String({ default: '', maxLength: 2000, description: "The console's address as recipients reach it, such as `https://junction.clinic.example:8080`, for links in alert, report and set-password messages; empty uses the management API's own address, with the machine's first LAN IPv4 address for a wildcard host (a guess, logged at start and shown on the console's Alerts and messages page)." }),
      },
      'Alerts on channels.',
    ),
    reports: section(
      {
        enableReports: bool(true, 'Send daily reports at 07:00 for the previous day and weekly reports on Monday at 07:00 for the previous week, in `timeZone`, to users who asked for them.'),
      },
      'Daily and weekly reports.',
    ),
    backup: section(
      {
        folder: Type.String({ default: '', maxLength: 4096, description: 'Folder that scheduled backups of the whole data folder are written to (ideally another disk or a network share); empty turns scheduled backups off. Downloads from the console work either way.' }),
        schedule: Type.String({ default: '0 2 * * *', minLength: 1, maxLength: 100, description: 'When scheduled backups run: a cron expression (5 fields, or 6 with seconds first) in the server\'s time zone, or an interval such as `12 hours`; the default is 02:00 every day.' }),
        keep: int(1, 1000, 7, 'How many scheduled backups are kept in `backup.folder`; the oldest are deleted after each new one is written.'),
      },
      'Backups of the whole appliance (configuration, transactions, bodies, audits, certificates and keystore).',
    ),
    autoRetry: section(
      {
        scanIntervalMs: int(100, 3_600_000, 60_000, 'How often transactions queued for auto retry are checked, in milliseconds.'),
        minuteMs: int(1, 60_000, 60_000, "Milliseconds in one minute of a channel's autoRetryPeriodMinutes; only tests set less than 60000."),
      },
      'Automatic retry of transactions that could not reach their route.',
    ),
    attention: section(
      {
        refusalWindowMinutes: int(1, 10_080, 60, 'How far back `GET /attention` counts refused requests and messages per channel, in minutes.'),
        failedMessagesHours: int(1, 8_760, 24, 'How far back `GET /attention` counts messages to people (alerts, reports, links) that failed to send, in hours.'),
        autoRetryQueueWarning: int(1, 1_000_000, 20, 'Transactions waiting for auto retry on one channel from which `GET /attention` shows it: its routes are not answering.'),
        searchBehindMinutes: int(1, 10_080, 5, 'Minutes the oldest completed transaction may wait to be indexed for search before `GET /attention` shows the index as behind (`search-index-behind`).'),
        searchBehindTransactions: int(1, 10_000_000, 10_000, 'Completed transactions waiting to be indexed for search from which `GET /attention` shows the index as behind, however recent they are.'),
      },
      'The "needs attention" list (`GET /attention`) and the dashboard\'s strip.',
    ),
  },
  { additionalProperties: false },
);

/** The fully resolved configuration; every key is present (optional secrets may be undefined). */
export type JunctionConfig = Static<typeof configSchema>;
