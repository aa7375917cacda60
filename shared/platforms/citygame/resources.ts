import * as v from 'valibot';
import { type RequiredValues, calendarDate, omitted, required, string } from '../../scrape/resource';

/**
 * citygame: the spec's resources as valibot schemas (see shared/scrape/resource.ts for the
 * conventions). The operation table names each operation's `data` schema from here; mappers return
 * their output types, and the contract tests validate every response against them.
 */
export const DailyData = v.object({ date: calendarDate, weekday: omitted(string), weather: omitted(string), headline: omitted(string), tip: omitted(string) });

/**
 * What operation 4 cannot build without (issue 31): the date, which names the day the bulletin is
 * for ("the in-game bulletin for today", the spec). Where the source carries it is the deployment's
 * to say (CITYGAME_FIELDS; /date by default): the service names no game, and invents none.
 */
export const REQUIRED: readonly RequiredValues[] = [
  required('bulletin', '(data)', { date: '(where CITYGAME_FIELDS points: /date by default)' }, 'the spec (operation 4: "the in-game bulletin for today") and the deployment\'s CITYGAME_FIELDS'),
];
export type DailyData = v.InferOutput<typeof DailyData>;
