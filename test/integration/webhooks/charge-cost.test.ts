import { ensureTables } from '../../../dev/tables';
import { teamWithKey } from '../../../dev/teams';
import { reserve } from '../../../shared/accounting/reservation';
import { forgetCreditWatches, watchCredits } from '../../../shared/webhooks/credits';
import { dbSends } from '../../support/db-sends';

/**
 * The charge path with credits events on (docs/webhooks.md): a charge that crosses nothing sends the
 * reservation's one UpdateItem and nothing else; the team's threshold is read at most once per
 * container and minute, beside the reservation (not after it); only the crossing charge writes (one
 * transaction). Prints the median reservation time with and without a watched team, for the record.
 */
beforeAll(async () => {
  await ensureTables();
});

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

test('a charge that crosses nothing: one UpdateItem (and one cached GetItem of the watch per minute); the crossing charge one transaction more', async () => {
  const { teamId } = await teamWithKey('charge-cost', 1000, 'test');
  await watchCredits(teamId, 500);
  forgetCreditWatches();
  const first = await dbSends(() => reserve(teamId));
  expect(first.calls.map((c) => c.name).sort()).toEqual(['GetCommand', 'UpdateCommand']);
  const quiet = await dbSends(async () => {
    for (let i = 0; i < 20; i++) await reserve(teamId);
  });
  expect(quiet.calls.map((c) => c.name)).toEqual(Array(20).fill('UpdateCommand'));
  const { teamId: near } = await teamWithKey('charge-cost-near', 11, 'test');
  await watchCredits(near, 10);
  forgetCreditWatches();
  await reserve(near); // 11 -> 10: not below
  const crossing = await dbSends(() => reserve(near)); // 10 -> 9: the crossing
  expect(crossing.calls.map((c) => c.name)).toEqual(['UpdateCommand', 'TransactWriteCommand']);
  const after = await dbSends(() => reserve(near));
  expect(after.calls.map((c) => c.name)).toEqual(['UpdateCommand']);
});

test('the reservation time with and without a watched team (printed; DynamoDB Local)', async () => {
  const { teamId: plain } = await teamWithKey('charge-cost-plain', 1000, 'test');
  const { teamId: watched } = await teamWithKey('charge-cost-watched', 1000, 'test');
  await watchCredits(watched, 1);
  const time = async (teamId: string) => {
    const ms: number[] = [];
    for (let i = 0; i < 100; i++) {
      const t = performance.now();
      await reserve(teamId);
      ms.push(performance.now() - t);
    }
    return median(ms);
  };
  await time(plain);
  await time(watched); // warm both
  const [a, b] = [await time(plain), await time(watched)];
  process.stdout.write(`reserve() median over 100, DynamoDB Local: no watch ${a.toFixed(2)} ms, watched team ${b.toFixed(2)} ms\n`);
  expect(a).toBeGreaterThan(0);
  expect(b).toBeGreaterThan(0);
});
