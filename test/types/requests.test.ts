/**
 * The bodies the console sends have one shape each: the contract (service/contracts/) and the request schema
 * (service/api/schemas/, which refuses unknown fields) must describe the same fields with the same types, so a field
 * the console starts sending cannot be refused by a schema that was not told. Checked at compile time.
 */
import { describe, expectTypeOf, it } from 'vitest';
import type { ChannelCreate, ChannelUpdate } from '../../service/contracts/channels.js';
import type { ClientCreateInput, ClientUpdateInput } from '../../service/contracts/clients.js';
import type { ContactGroupCreateInput, ContactGroupUpdateInput } from '../../service/contracts/contact-groups.js';
import type { RoleCreateInput, RoleUpdateInput } from '../../service/contracts/roles.js';
import type { TaskChange } from '../../service/contracts/tasks.js';
import type { TransactionCreate, TransactionUpdate } from '../../service/contracts/transactions.js';
import type { TokenPasswordInput, UserCreateInput, UserUpdateInput } from '../../service/contracts/users.js';
import type { ChannelCreateBody, ChannelUpdateBody } from '../../service/api/schemas/channels.js';
import type { ClientCreateBody, ClientUpdateBody } from '../../service/api/schemas/clients.js';
import type { ContactGroupCreateBody, ContactGroupUpdateBody } from '../../service/api/schemas/contact-groups.js';
import type { NotificationTestBody } from '../../service/api/schemas/notifications.js';
import type { NotificationTestInput } from '../../service/contracts/notifications.js';
import type { RoleCreateBody, RoleUpdateBody } from '../../service/api/schemas/roles.js';
import type { TaskUpdateBody } from '../../service/api/schemas/tasks.js';
import type { TransactionCreateBody, TransactionUpdateBody } from '../../service/api/schemas/transactions.js';
import type { TokenPasswordBody, UserCreateBody, UserUpdateBody } from '../../service/api/schemas/users.js';
import type { Plain, SchemaShape } from './plain.js';

describe('request schemas and contracts', () => {
  it('describe the bodies of channels, clients, roles and users alike', () => {
    expectTypeOf<SchemaShape<typeof ChannelCreateBody>>().toEqualTypeOf<Plain<ChannelCreate>>();
    expectTypeOf<SchemaShape<typeof ChannelUpdateBody>>().toEqualTypeOf<Plain<ChannelUpdate>>();
    expectTypeOf<SchemaShape<typeof ClientCreateBody>>().toEqualTypeOf<Plain<ClientCreateInput>>();
    expectTypeOf<SchemaShape<typeof ClientUpdateBody>>().toEqualTypeOf<Plain<ClientUpdateInput>>();
    expectTypeOf<SchemaShape<typeof RoleCreateBody>>().toEqualTypeOf<Plain<RoleCreateInput>>();
    expectTypeOf<SchemaShape<typeof RoleUpdateBody>>().toEqualTypeOf<Plain<RoleUpdateInput>>();
    expectTypeOf<SchemaShape<typeof UserCreateBody>>().toEqualTypeOf<Plain<UserCreateInput>>();
    expectTypeOf<SchemaShape<typeof UserUpdateBody>>().toEqualTypeOf<Plain<UserUpdateInput>>();
    expectTypeOf<SchemaShape<typeof TokenPasswordBody>>().toEqualTypeOf<Plain<TokenPasswordInput>>();
  });

  it('describe the bodies of contact groups alike', () => {
    expectTypeOf<SchemaShape<typeof ContactGroupCreateBody>>().toEqualTypeOf<Plain<ContactGroupCreateInput>>();
    expectTypeOf<SchemaShape<typeof ContactGroupUpdateBody>>().toEqualTypeOf<Plain<ContactGroupUpdateInput>>();
  });

  it('describe the test message alike', () => {
    expectTypeOf<SchemaShape<typeof NotificationTestBody>>().toEqualTypeOf<Plain<NotificationTestInput>>();
  });

  it('describe the transaction writes alike (POST /transactions, PUT /transactions/:id)', () => {
    expectTypeOf<SchemaShape<typeof TransactionCreateBody>>().toEqualTypeOf<Plain<TransactionCreate>>();
    expectTypeOf<SchemaShape<typeof TransactionUpdateBody>>().toEqualTypeOf<Plain<TransactionUpdate>>();
  });

  it('accept every task change the contract offers; the schema takes any status so the refusal can say why', () => {
    expectTypeOf<keyof SchemaShape<typeof TaskUpdateBody>>().toEqualTypeOf<keyof TaskChange>();
    expectTypeOf<Plain<TaskChange>>().toExtend<SchemaShape<typeof TaskUpdateBody>>();
  });
});
