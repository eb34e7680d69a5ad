/** Request and response schemas of the contact group routes (`/groups`), in OpenHIM's field names. */
import { Type } from 'typebox';
import type { Static } from 'typebox';

const Id = Type.String({ minLength: 1, maxLength: 100 });
const GroupName = Type.String({ minLength: 1, maxLength: 200 });
const Method = Type.Enum(['email', 'sms']);
const MaxAlerts = Type.Enum(['no max', '1 per hour', '1 per day']);

/** One recipient as sent: the same user text as a channel alert's recipient; `maxAlerts` may be left to its default. */
const GroupUserBody = Type.Object(
  {
    user: Type.String({ minLength: 1, maxLength: 254, description: "the user's email" }),
    method: Method,
    maxAlerts: Type.Optional(MaxAlerts),
    _id: Type.Optional(Id),
  },
  { additionalProperties: false },
);
const GroupUsers = Type.Array(GroupUserBody, { maxItems: 1000 });

/** A recipient who is not a user (issue 35): an email address, or a phone number for SMS. */
const ExternalBody = Type.Object(
  {
    address: Type.String({ minLength: 1, maxLength: 254, description: 'an email address (email) or a phone number, 6 to 15 digits with an optional leading + (sms)' }),
    method: Method,
    maxAlerts: Type.Optional(MaxAlerts),
    _id: Type.Optional(Id),
  },
  { additionalProperties: false },
);
const GroupExternal = Type.Array(ExternalBody, { maxItems: 1000 });

/** What an answer (or a group fetched from OpenHIM) carries and a caller may send back as it came: accepted and ignored. */
const readOnly = {
  _id: Type.Optional(Id),
  __v: Type.Optional(Type.Integer({ minimum: 0 })),
};

export const ContactGroupCreateBody = Type.Object({ group: GroupName, users: Type.Optional(GroupUsers), external: Type.Optional(GroupExternal), ...readOnly }, { additionalProperties: false });
export type ContactGroupCreateBody = Static<typeof ContactGroupCreateBody>;

// An empty body changes nothing and is answered 200, as by OpenHIM (whose tests send {} to see the 403 first).
export const ContactGroupUpdateBody = Type.Object(
  { group: Type.Optional(GroupName), users: Type.Optional(GroupUsers), external: Type.Optional(GroupExternal), ...readOnly },
  { additionalProperties: false },
);
export type ContactGroupUpdateBody = Static<typeof ContactGroupUpdateBody>;

export const ContactGroupParams = Type.Object({ id: Id }, { additionalProperties: false });

export const ContactGroupSchema = Type.Object({
  _id: Type.String(),
  group: Type.String(),
  users: Type.Array(Type.Object({ user: Type.String(), method: Method, maxAlerts: MaxAlerts })),
  external: Type.Optional(Type.Array(Type.Object({ address: Type.String(), method: Method, maxAlerts: MaxAlerts }))),
});
