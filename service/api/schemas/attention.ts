/** Response schema of `GET /attention`: the contract's `AttentionList` (test/types/ keeps them equal). */
import { Type } from 'typebox';
import { ATTENTION_KINDS, ATTENTION_SEVERITIES } from '../../contracts/attention.js';

export const AttentionItemSchema = Type.Object({
  kind: Type.Enum([...ATTENTION_KINDS]),
  severity: Type.Enum([...ATTENTION_SEVERITIES]),
  message: Type.String(),
  fix: Type.Object({ path: Type.Optional(Type.String()), setting: Type.Optional(Type.String()) }),
  channel: Type.Optional(Type.Object({ _id: Type.String(), name: Type.String() })),
  count: Type.Optional(Type.Integer()),
});

export const AttentionListSchema = Type.Object({
  items: Type.Array(AttentionItemSchema),
  checkedAt: Type.String(),
  messaging: Type.Optional(Type.Object({ email: Type.Optional(Type.String()), sms: Type.Optional(Type.String()) })),
});
