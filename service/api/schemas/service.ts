/** Response schemas of the service endpoints (`GET /about`). */
import { Type } from 'typebox';

export const ServicePortSchema = Type.Object(
  {
    purpose: Type.Enum(['api', 'transactions', 'audit'], { description: 'api: management API and console; transactions: client requests; audit: ATNA audit messages' }),
    protocol: Type.Enum(['http', 'https', 'tcp', 'tls', 'udp']),
    port: Type.Integer({ minimum: 1, maximum: 65535 }),
  },
  { additionalProperties: false },
);

const AuditTransportSchema = Type.Union([Type.Literal('udp'), Type.Literal('tcp'), Type.Literal('tls')]);

/** The audit counts admins see on `/about` (contracts/api.ts AboutAudits). */
export const AboutAuditsSchema = Type.Object(
  {
    intake: Type.Optional(Type.Object({ received: Type.Integer(), stored: Type.Integer(), malformed: Type.Integer(), failed: Type.Integer(), dropped: Type.Integer(), inFlight: Type.Integer() })),
    listeners: Type.Array(
      Type.Object({
        transport: AuditTransportSchema,
        port: Type.Integer(),
        connections: Type.Integer(),
        received: Type.Integer(),
        malformedFraming: Type.Integer(),
        refusedConnections: Type.Integer(),
        tooLarge: Type.Integer(),
      }),
    ),
    forwarding: Type.Optional(
      Type.Object({
        interface: AuditTransportSchema,
        target: Type.String(),
        queued: Type.Integer(),
        sent: Type.Integer(),
        dropped: Type.Integer(),
        tooLarge: Type.Integer(),
        retrying: Type.Boolean(),
        connected: Type.Boolean(),
      }),
    ),
  },
  { description: "the audit repository's and audit sender's counts since start; admins only" },
);

const DiskSpaceSchema = Type.Object(
  {
    level: Type.Enum(['ok', 'low', 'critical']),
    freeBytes: Type.Number(),
    totalBytes: Type.Number(),
    warningBytes: Type.Number(),
    floorBytes: Type.Number(),
    refusing: Type.Boolean(),
    checkedAt: Type.String(),
  },
  { description: "the data folder's free space as last measured, and whether new transactions are refused for the lack of it" },
);

export const AboutAnswerSchema = Type.Object({
  currentCoreVersion: Type.String(),
  serverTimezone: Type.String(),
  product: Type.String(),
  version: Type.String(),
  nodeVersion: Type.String(),
  ports: Type.Optional(Type.Array(ServicePortSchema, { description: 'the ports listened on; admins only' })),
  audits: Type.Optional(AboutAuditsSchema),
  messageLinks: Type.Optional(
    Type.Object({ url: Type.String(), configured: Type.Boolean() }, { description: 'the console address links in emails use, and whether alerts.consoleURL set it; admins only' }),
  ),
  storage: Type.Object(
    {
      engine: Type.Enum(['embedded', 'postgres']),
      instances: Type.Optional(
        Type.Array(
          Type.Object({ id: Type.String(), name: Type.String(), apiUrl: Type.String(), version: Type.String(), started: Type.String(), lastBeat: Type.String(), self: Type.Boolean() }),
          { description: 'the instances alive now (beating), this one included; admins only' },
        ),
      ),
    },
    { description: 'the storage engine and, on PostgreSQL, the instances sharing it' },
  ),
  certificate: Type.Optional(
    Type.Object({ validFrom: Type.String(), validTo: Type.String(), fingerprint256: Type.String(), source: Type.Enum(['configured', 'generated', 'uploaded']) }, { description: 'the server certificate being served' }),
  ),
  disk: Type.Optional(DiskSpaceSchema),
  warnings: Type.Optional(Type.Array(Type.String(), { description: 'what an admin should act on now (low disk space, a failing log file); admins only' })),
});
