import { readFileSync } from 'node:fs';
import path from 'node:path';
import { classify, parseAnswer } from '../../../shared/scrape/answers';
import { RULES } from '../../../shared/platforms/microblog-c/client';

/**
 * microblog-c's answer rules (shared/platforms/microblog-c/client.ts): gone or hidden only where the
 * platform says so; a refusal that says nothing more is a block, not a 404.
 */
const fixture = (name: string) => readFileSync(path.join(__dirname, '../../fixtures/microblog-c', name), 'utf8');
const classified = (status: number, body: string) =>
  classify(RULES, parseAnswer(RULES, { status, headers: { 'content-type': 'application/json' }, body, url: 'https://truthsocial.com/api/v1/accounts/lookup?acct=x' }), { what: 'account lookup x' });

test('401 "This method requires an authenticated user": the account hides itself from logged-out viewers -> 404 saying so', () => {
  expect(classified(401, fixture('error-unauthenticated.json'))).toMatchObject({ code: 'NOT_FOUND', message: 'The account is hidden from logged-out viewers' });
});

test('404 "Record not found" -> 404', () => {
  expect(classified(404, fixture('error-not-found.json'))).toMatchObject({ code: 'NOT_FOUND' });
});

test.each([
  ['a 401 with another message', '{"error":"The access token is invalid"}'],
  ['a 401 without a body', ''],
])('%s is a refusal, not a statement about the account: UPSTREAM_BLOCKED', (_what, body) => {
  expect(classified(401, body)).toMatchObject({ code: 'UPSTREAM_BLOCKED' });
});
