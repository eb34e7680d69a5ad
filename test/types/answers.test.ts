/**
 * The answers of the management API have one shape each: the contract (service/contracts/, what the console reads)
 * and the response schema (service/api/schemas/, what the serializer writes, dropping anything it does not list)
 * must describe the same fields with the same types. These checks run at compile time (`npm run typecheck`):
 * a field added to one side only fails the build, before the serializer can silently drop it.
 */
import { describe, expectTypeOf, it } from 'vitest';
import type { AboutAnswer, ApiErrorBody, MessageAnswer, PublicUser, ServicePort } from '../../service/contracts/api.js';
import type { Channel, ChannelStatusAnswer, RouteCheckAnswer, TestMessageAnswer, TestMessageBody } from '../../service/contracts/channels.js';
import type { ClientNameAnswer, PublicClient } from '../../service/contracts/clients.js';
import type { ContactGroup } from '../../service/contracts/contact-groups.js';
import type { MetricItem } from '../../service/contracts/metrics.js';
import type { MetricItemSchema } from '../../service/api/schemas/metrics.js';
import type { MediatorConfigDef, PublicMediator } from '../../service/contracts/mediators.js';
import type { Role } from '../../service/contracts/roles.js';
import type { TaskDetail, TaskTransactionView, TaskView } from '../../service/contracts/tasks.js';
import type { BulkRerunAnswer, BulkRerunPreview, CreatedTask, SearchIndexStatus, TransactionCount, TransactionRerunView, TransactionView } from '../../service/contracts/transactions.js';
import type { ChannelStatusAnswerSchema, PublicChannelSchema, RouteCheckAnswerSchema, TestMessageAnswerSchema, TestMessageBodySchema } from '../../service/api/schemas/channels.js';
import type { ClientNameSchema, PublicClientSchema } from '../../service/api/schemas/clients.js';
import type { ContactGroupSchema } from '../../service/api/schemas/contact-groups.js';
import type { NotificationSchema } from '../../service/api/schemas/notifications.js';
import type { Notification } from '../../service/contracts/notifications.js';
import type { ErrorResponse, MessageAnswerSchema } from '../../service/api/schemas/common.js';
import type { PublicMediatorSchema } from '../../service/api/schemas/mediators.js';
import type { RoleSchema } from '../../service/api/schemas/roles.js';
import type { AboutAnswerSchema, ServicePortSchema } from '../../service/api/schemas/service.js';
import type { BulkRerunAnswerSchema, BulkRerunPreviewSchema, CreatedTaskSchema, TaskDetailSchema, TaskListAnswer, TaskTransactionViewSchema, TaskViewSchema } from '../../service/api/schemas/tasks.js';
import type {
  SearchIndexStatusSchema,
  TransactionAnswer,
  TransactionCountSchema,
  TransactionListAnswer,
  TransactionRerunViewSchema,
  TransactionViewSchema,
} from '../../service/api/schemas/transactions.js';
import type { LoginAnswerSchema, PasswordTokenAnswerSchema, PublicUserSchema, SessionAnswerSchema, TokenUserAnswerSchema } from '../../service/api/schemas/users.js';
import type { LoginAnswer, PasswordTokenAnswer, SessionAnswer, TokenUserAnswer } from '../../service/contracts/users.js';
import type { Plain, SchemaShape } from './plain.js';
import type { BackupStatusSchema } from '../../service/api/schemas/backup.js';
import type { AttentionListSchema } from '../../service/api/schemas/attention.js';
import type { AttentionList } from '../../service/contracts/attention.js';
import type { BackupStatus } from '../../service/contracts/backup.js';

describe('answer schemas and contracts', () => {
  it('describe the backup status alike', () => {
    expectTypeOf<SchemaShape<typeof BackupStatusSchema>>().toEqualTypeOf<Plain<BackupStatus>>();
    expectTypeOf<SchemaShape<typeof AttentionListSchema>>().toEqualTypeOf<Plain<AttentionList>>();
  });

  it('describe metric items alike', () => {
    expectTypeOf<SchemaShape<typeof MetricItemSchema>>().toEqualTypeOf<Plain<MetricItem>>();
  });

  it('describe transactions alike', () => {
    expectTypeOf<SchemaShape<typeof TransactionViewSchema>>().toEqualTypeOf<Plain<TransactionView>>();
    expectTypeOf<SchemaShape<typeof TransactionRerunViewSchema>>().toEqualTypeOf<Plain<TransactionRerunView>>();
    expectTypeOf<SchemaShape<typeof TransactionCountSchema>>().toEqualTypeOf<Plain<TransactionCount>>();
    expectTypeOf<SchemaShape<typeof TransactionListAnswer>>().toEqualTypeOf<Plain<TransactionView[] | TransactionCount>>();
    expectTypeOf<SchemaShape<typeof TransactionAnswer>>().toEqualTypeOf<Plain<TransactionView | TransactionRerunView>>();
    expectTypeOf<SchemaShape<typeof SearchIndexStatusSchema>>().toEqualTypeOf<Plain<SearchIndexStatus>>();
  });

  it('describe tasks alike', () => {
    expectTypeOf<SchemaShape<typeof TaskViewSchema>>().toEqualTypeOf<Plain<TaskView>>();
    expectTypeOf<SchemaShape<typeof TaskListAnswer>>().toEqualTypeOf<Plain<TaskView[]>>();
    expectTypeOf<SchemaShape<typeof TaskTransactionViewSchema>>().toEqualTypeOf<Plain<TaskTransactionView>>();
    expectTypeOf<SchemaShape<typeof TaskDetailSchema>>().toEqualTypeOf<Plain<TaskDetail>>();
    expectTypeOf<SchemaShape<typeof CreatedTaskSchema>>().toEqualTypeOf<Plain<CreatedTask>>();
    expectTypeOf<SchemaShape<typeof BulkRerunAnswerSchema>>().toEqualTypeOf<Plain<BulkRerunAnswer>>();
    expectTypeOf<SchemaShape<typeof BulkRerunPreviewSchema>>().toEqualTypeOf<Plain<BulkRerunPreview>>();
  });

  it('describe users, clients, channels and roles alike', () => {
    expectTypeOf<SchemaShape<typeof PublicUserSchema>>().toEqualTypeOf<Plain<PublicUser>>();
    expectTypeOf<SchemaShape<typeof SessionAnswerSchema>>().toEqualTypeOf<Plain<SessionAnswer>>();
    expectTypeOf<SchemaShape<typeof LoginAnswerSchema>>().toEqualTypeOf<Plain<LoginAnswer>>();
    expectTypeOf<SchemaShape<typeof PasswordTokenAnswerSchema>>().toEqualTypeOf<Plain<PasswordTokenAnswer>>();
    expectTypeOf<SchemaShape<typeof TokenUserAnswerSchema>>().toEqualTypeOf<Plain<TokenUserAnswer>>();
    expectTypeOf<SchemaShape<typeof PublicClientSchema>>().toEqualTypeOf<Plain<PublicClient>>();
    expectTypeOf<SchemaShape<typeof ClientNameSchema>>().toEqualTypeOf<Plain<ClientNameAnswer>>();
    expectTypeOf<SchemaShape<typeof PublicChannelSchema>>().toEqualTypeOf<Plain<Channel>>();
    expectTypeOf<SchemaShape<typeof RoleSchema>>().toEqualTypeOf<Plain<Role>>();
  });

  it('describe contact groups alike', () => {
    expectTypeOf<SchemaShape<typeof ContactGroupSchema>>().toEqualTypeOf<Plain<ContactGroup>>();
  });

  it('describe message records alike', () => {
    expectTypeOf<SchemaShape<typeof NotificationSchema>>().toEqualTypeOf<Plain<Notification>>();
  });

  it('describe mediators alike, the schema spelling out the one level of struct templates that exists', () => {
    type Schema = SchemaShape<typeof PublicMediatorSchema>;
    type Def = Omit<MediatorConfigDef, 'template'>;
    expectTypeOf<Plain<Omit<Schema, 'configDefs'>>>().toEqualTypeOf<Plain<Omit<PublicMediator, 'configDefs'>>>();
    expectTypeOf<Plain<Omit<Schema['configDefs'][number], 'template'>>>().toEqualTypeOf<Plain<Def>>();
    expectTypeOf<Plain<NonNullable<Schema['configDefs'][number]['template']>[number]>>().toEqualTypeOf<Plain<Def>>();
  });

  it('describe the service answers and errors alike', () => {
    expectTypeOf<SchemaShape<typeof AboutAnswerSchema>>().toEqualTypeOf<Plain<AboutAnswer>>();
    expectTypeOf<SchemaShape<typeof ServicePortSchema>>().toEqualTypeOf<Plain<ServicePort>>();
    expectTypeOf<SchemaShape<typeof ErrorResponse>>().toEqualTypeOf<Plain<ApiErrorBody>>();
    expectTypeOf<SchemaShape<typeof MessageAnswerSchema>>().toEqualTypeOf<Plain<MessageAnswer>>();
  });
});

describe('the channel status, route check and test message answers (issue 36)', () => {
  it('describe them alike in contract and schema', () => {
    expectTypeOf<SchemaShape<typeof ChannelStatusAnswerSchema>>().toEqualTypeOf<Plain<ChannelStatusAnswer>>();
    expectTypeOf<SchemaShape<typeof RouteCheckAnswerSchema>>().toEqualTypeOf<Plain<RouteCheckAnswer>>();
    expectTypeOf<SchemaShape<typeof TestMessageAnswerSchema>>().toEqualTypeOf<Plain<TestMessageAnswer>>();
    expectTypeOf<SchemaShape<typeof TestMessageBodySchema>>().toEqualTypeOf<Plain<TestMessageBody>>();
  });
});
