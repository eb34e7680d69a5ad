/** Request and response schemas of the roles routes. Channels and clients are referenced as OpenHIM does: by object. */
import { Type } from 'typebox';
import type { Static } from 'typebox';
import { ClientID, RoleName } from './clients.js';

const Id = Type.String({ minLength: 1, maxLength: 100 });
const ChannelName = Type.String({ minLength: 1, maxLength: 200 });

const ChannelRef = Type.Object(
  { _id: Type.Optional(Id), name: Type.Optional(ChannelName) },
  { additionalProperties: false, minProperties: 1, description: '{_id} or {name}' },
);
const ClientRef = Type.Object(
  { _id: Type.Optional(Id), clientID: Type.Optional(ClientID) },
  { additionalProperties: false, minProperties: 1, description: '{_id} or {clientID}' },
);
const ChannelRefs = Type.Array(ChannelRef, { maxItems: 1000 });
const ClientRefs = Type.Array(ClientRef, { maxItems: 1000 });

export const RoleCreateBody = Type.Object(
  { name: RoleName, channels: Type.Optional(ChannelRefs), clients: Type.Optional(ClientRefs) },
  { additionalProperties: false },
);
export type RoleCreateBody = Static<typeof RoleCreateBody>;

export const RoleUpdateBody = Type.Object(
  { name: Type.Optional(RoleName), channels: Type.Optional(ChannelRefs), clients: Type.Optional(ClientRefs) },
  { additionalProperties: false, minProperties: 1 },
);
export type RoleUpdateBody = Static<typeof RoleUpdateBody>;

// Any text: a name that cannot be a role is simply not found.
export const RoleParams = Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }) }, { additionalProperties: false });

export const RoleSchema = Type.Object({
  name: Type.String(),
  channels: Type.Array(Type.Object({ _id: Type.String(), name: Type.String() })),
  clients: Type.Array(Type.Object({ _id: Type.String(), clientID: Type.String() })),
});
