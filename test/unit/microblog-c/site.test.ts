import * as v from 'valibot';
import { operation } from '../../../shared/operations';
import { cursorParam, handleParam, isPlausibleCursor, parseUsername, userIdParam } from '../../../shared/platforms/microblog-c/site';
import { validateQuery } from '../../../shared/http/validation';
import { rejection } from '../../support/rejection';

/** microblog-c parameters: usernames, account ids and cursors (operation 9). */
const PAGE1_NEXT = '116710362316800024'; // the last id of the crafted page 1 (a post of June 2026)

describe('microblog-c handle', () => {
  it.each([
    ['HarborLight', 'HarborLight'],
    ['@HarborLight', 'HarborLight'],
    ['https://truthsocial.com/@HarborLight', 'HarborLight'],
    ['https://truthsocial.com/@HarborLight/posts/116710362316800024', 'HarborLight'],
  ])('reads %s as %s, and the parameter lowercases it (one cache entry for every spelling)', (raw, name) => {
    expect(parseUsername(raw)).toBe(name);
    expect(v.parse(handleParam, raw)).toBe(name.toLowerCase());
  });

  it.each(['https://evil.example/@harborlight', 'https://truthsocial.com.evil.example/@harborlight', 'harbor light', 'a'.repeat(31), ''])('refuses %p', (raw) => {
    expect(v.safeParse(handleParam, raw).success).toBe(false);
  });

  it('takes only digits as a user id', () => {
    expect(v.safeParse(userIdParam, '107830692512534674').success).toBe(true);
    expect(v.safeParse(userIdParam, '12ab').success).toBe(false);
  });
});

describe('microblog-c cursor', () => {
  it('accepts only cursors that are post ids of this platform', () => {
    expect(isPlausibleCursor(PAGE1_NEXT)).toBe(true);
    expect(isPlausibleCursor('107814993046697416')).toBe(true);
    expect(isPlausibleCursor('12345')).toBe(false);
    expect(isPlausibleCursor('99999999999999999999')).toBe(false);
    expect(v.safeParse(cursorParam, 'abc').success).toBe(false);
  });

  it('a cursor that is no post id -> BAD_REQUEST from parameter validation, before any credit or upstream call', async () => {
    const op = operation('microblog-c-user-posts');
    await rejection(Promise.resolve().then(() => validateQuery(op, { handle: 'harborlight', cursor: '12345' })), 'BAD_REQUEST');
    expect(validateQuery(op, { handle: 'harborlight', cursor: PAGE1_NEXT }).values.cursor).toBe(PAGE1_NEXT);
  });
});
