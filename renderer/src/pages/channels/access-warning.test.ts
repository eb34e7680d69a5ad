import { describe, expect, it } from 'vitest';
import { nobodyAdmitted } from './access-warning';

const form = (fields: Partial<Parameters<typeof nobodyAdmitted>[0]> = {}) => ({ type: 'http' as const, authType: 'private' as const, allowClients: [], allowRoles: [], whitelist: [], ...fields });
const lab = { clientID: 'lab', roles: ['labs'] };

describe('nobodyAdmitted (the channel editor)', () => {
  it('is null when someone may use the channel', () => {
    expect(nobodyAdmitted(form({ authType: 'public' }), [])).toBeNull();
    expect(nobodyAdmitted(form({ whitelist: ['10.0.0.9'] }), [])).toBeNull();
    expect(nobodyAdmitted(form({ allowClients: ['lab'] }), [lab])).toBeNull();
    expect(nobodyAdmitted(form({ allowRoles: ['labs'] }), [lab])).toBeNull();
    expect(nobodyAdmitted(form({ type: 'polling' }), [])).toBeNull();
  });

  it('says why nobody may', () => {
    expect(nobodyAdmitted(form(), [lab])).toMatch(/allows no client, role or IP address/);
    expect(nobodyAdmitted(form({ type: 'tcp', allowClients: ['lab'] }), [lab])).toMatch(/tcp channel cannot identify clients/);
    expect(nobodyAdmitted(form({ allowClients: ['pharmacy'] }), [lab])).toMatch(/name no existing client/);
    expect(nobodyAdmitted(form({ allowClients: ['*'] }), [])).toMatch(/no client exists/);
  });
});
