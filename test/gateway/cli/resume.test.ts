import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fixtureText } from '../../../dev/upstream/fake';
import { RECORDED, SHORTVIDEO, replayAll } from '../../../dev/upstream/replay';
import { creditsReport } from '../../../shared/api/account-reads';
import { balance } from '../../../shared/accounting/teams';
import { startHarness, type Harness } from '../../support/harness';
import { cliEnv, readJsonLines, runCli, spawnCli, tempDir, until } from './support';

/**
 * A long run stopped in the middle, then continued with --resume, in child processes against the
 * local gateway on the recorded hashtag (three pages). The source is made slow on page 2, so that the
 * run is stopped while that page's request is in flight: the gateway goes on, scrapes it and charges
 * for it, as API Gateway and Lambda would after a client went away.
 */
let h: Harness;
const dir = tempDir();
const HASHTAG = RECORDED['shortvideo-search-hashtag']!.hashtag!;
const IDS = ['7500000000000000001', '7500000000000000002', '7500000000000000003', '7500000000000000004', '7500000000000000005', '7500000000000000006'];

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.stop());
beforeEach(() => {
  h.fake.reset();
  replayAll(h.fake);
  // Page 2 of the recording (upstream cursor 30), answered slowly.
  h.fake.intercept = (req) =>
    req.path === SHORTVIDEO.hashtagVideos && req.query.cursor === '30'
      ? { delayMs: 2500, body: fixtureText('shortvideo/hashtag-items-page2.json'), headers: { 'content-type': 'application/json; charset=utf-8', 'set-cookie': 'tt_chain_token=replay; Path=/' } }
      : undefined;
});

const pageTwoAsked = () => h.fake.requests.some((r) => r.path === SHORTVIDEO.hashtagVideos && r.query.cursor === '30');

test('killed mid-run, --resume finishes the run without charging a page twice or writing an item twice', async () => {
  const { key, teamId } = await h.team(100);
  const out = path.join(dir, 'killed.jsonl');
  const before = await balance(teamId);
  const first = spawnCli(['shortvideo-search-hashtag', '--hashtag', HASHTAG, '--all', '--out', out], cliEnv(h.gateway.url, key));
  await until(pageTwoAsked, 'the request of page 2 to reach the source');
  first.child.kill('SIGKILL');
  expect((await first.result).signal).toBe('SIGKILL');
  // Page 1 is written and the state says where to go on; the gateway still charges for page 2.
  expect(readJsonLines(out).map((r) => r.id)).toEqual(IDS.slice(0, 3));
  expect(existsSync(`${out}.state.json`)).toBe(true);
  // Settled (charged, and its result in the cache): the ledger records a charge for each of pages 1 and 2.
  await until(async () => (await creditsReport(teamId)).charges.length === 2, 'page 2 to be charged');
  expect(await balance(teamId)).toBe(before - 2);

  const resumed = await runCli(['shortvideo-search-hashtag', '--hashtag', HASHTAG, '--all', '--out', out, '--resume'], cliEnv(h.gateway.url, key));
  expect(resumed.code).toBe(0);
  expect(readJsonLines(out).map((r) => r.id)).toEqual(IDS);
  // Three pages, three credits: page 2, paid by the killed run, came from the cache for free.
  expect(await balance(teamId)).toBe(before - 3);
  // The summary counts what the answers said: the killed run never saw page 2's answer (1 credit).
  expect(resumed.stderr).toMatch(/6 items, 3 pages, 2 credits charged, 1 cache hit, 0 of 1 input failed/);
  expect(existsSync(`${out}.state.json`)).toBe(false);

  // A finished run has nothing to resume, and a new run does not overwrite a stopped one.
  const nothing = await runCli(['shortvideo-search-hashtag', '--hashtag', HASHTAG, '--all', '--out', out, '--resume'], cliEnv(h.gateway.url, key));
  expect(nothing.code).toBe(2);
  expect(nothing.stderr).toMatch(/has no state file/);
});

test('Ctrl-C stops after the page in flight, with the state saved (exit 130); --resume goes on from there', async () => {
  const { key, teamId } = await h.team(100);
  const out = path.join(dir, 'interrupted.csv');
  const before = await balance(teamId);
  const first = spawnCli(['shortvideo-search-hashtag', '--hashtag', HASHTAG, '--all', '--out', out], cliEnv(h.gateway.url, key));
  await until(pageTwoAsked, 'the request of page 2 to reach the source');
  first.child.kill('SIGINT');
  const stopped = await first.result;
  expect(stopped.code).toBe(130);
  expect(stopped.stderr).toMatch(/5 items, 2 pages, 2 credits charged.*interrupted: run again with --resume/);
  const state = JSON.parse(readFileSync(`${out}.state.json`, 'utf8'));
  expect(state.inProgress['0']).toMatchObject({ pages: 2, items: 5, cursor: expect.any(String) });
  // Only the source's page 3 is left to ask.
  expect(h.fake.requestsTo(SHORTVIDEO.hashtagVideos)).toHaveLength(2);

  // A new run would lose the stopped one: refused, nothing sent.
  const fresh = await runCli(['shortvideo-search-hashtag', '--hashtag', HASHTAG, '--all', '--out', out], cliEnv(h.gateway.url, key));
  expect(fresh.code).toBe(2);
  expect(fresh.stderr).toMatch(/interrupted run: add --resume/);
  // Another run's state is not taken for this one's.
  const other = await runCli(['shortvideo-search-hashtag', '--hashtag', 'othertag', '--all', '--out', out, '--resume'], cliEnv(h.gateway.url, key));
  expect(other.code).toBe(2);
  expect(other.stderr).toMatch(/the state of another run/);

  const resumed = await runCli(['shortvideo-search-hashtag', '--hashtag', HASHTAG, '--all', '--out', out, '--resume'], cliEnv(h.gateway.url, key));
  expect(resumed.code).toBe(0);
  const ids = readFileSync(out, 'utf8').split('\r\n').slice(1, -1).map((line) => line.split(',')[0]);
  expect(ids).toEqual(IDS);
  expect(await balance(teamId)).toBe(before - 3);
  expect(h.fake.requestsTo(SHORTVIDEO.hashtagVideos)).toHaveLength(3);
});
