/**
 * The audits routes' schemas and the contracts the console reads describe the same fields with the same types
 * (compile-time checks, as test/types/ does for the other resources).
 */
import { describe, expectTypeOf, it } from 'vitest';
import type { Audit, AuditFilterOptions, AuditSummary } from '../../service/contracts/audits.js';
import type { AuditCreateBody, AuditFilterOptionsSchema, AuditSchema, AuditSummarySchema } from '../../service/api/schemas/audits.js';
import type { Plain, SchemaShape } from '../types/plain.js';

/** What POST /audits accepts: an audit without its id, the lists optional (stored empty when left out). */
type AuditInput = Omit<Audit, '_id' | 'activeParticipant' | 'participantObjectIdentification' | 'eventIdentification'> &
  Partial<Pick<Audit, 'activeParticipant' | 'participantObjectIdentification'>> & {
    eventIdentification: Omit<Audit['eventIdentification'], 'eventID'> & { eventID: NonNullable<Audit['eventIdentification']['eventID']> };
  };

describe('audit schemas and contracts', () => {
  it('describe the answers alike', () => {
    expectTypeOf<SchemaShape<typeof AuditSchema>>().toEqualTypeOf<Plain<Audit>>();
    expectTypeOf<SchemaShape<typeof AuditSummarySchema>>().toEqualTypeOf<Plain<AuditSummary>>();
    expectTypeOf<SchemaShape<typeof AuditFilterOptionsSchema>>().toEqualTypeOf<Plain<AuditFilterOptions>>();
  });

  it('describe the body of POST /audits alike', () => {
    expectTypeOf<SchemaShape<typeof AuditCreateBody>>().toEqualTypeOf<Plain<AuditInput>>();
  });
});
