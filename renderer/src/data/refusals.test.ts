import { describe, expect, it } from 'vitest';
import { REFUSAL_KINDS } from '../../../service/contracts/refusals';
import { REFUSAL_WORDS, listenerWords, refusalLabel } from './refusals';

describe('refusal words', () => {
  it('has words for every reason the API names, and keeps an unknown one as it is', () => {
    expect(Object.keys(REFUSAL_WORDS).sort()).toEqual([...REFUSAL_KINDS].sort());
    expect(refusalLabel('not_allowed')).toBe('Not allowed on the channel');
    expect(refusalLabel('something_new')).toBe('something_new');
  });

  it('says where a refusal came in', () => {
    expect(listenerWords('channel:Lab feed', 2575)).toBe('Channel listener port 2575');
    expect(listenerWords('http', 5001)).toBe('HTTP port 5001');
    expect(listenerWords('https', null)).toBe('HTTPS');
    expect(listenerWords('audit-tcp', 5052)).toBe('audit-tcp port 5052');
  });
});
