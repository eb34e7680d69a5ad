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

export const AboutAnswerSchema = Type.Object({
  currentCoreVersion: Type.String(),
  serverTimezone: Type.String(),
  product: Type.String(),
  version: Type.String(),
  nodeVersion: Type.String(),
  ports: Type.Optional(Type.Array(ServicePortSchema, { description: 'the ports listened on; admins only' })),
  certificate: Type.Optional(
    Type.Object({ validFrom: Type.String(), validTo: Type.String(), fingerprint256: Type.String(), source: Type.Enum(['configured', 'generated', 'uploaded']) }, { description: 'the server certificate being served' }),
  ),
});
