import * as v from 'valibot';
import { calendarDate, string } from '../../scrape/resource';

/**
 * citygame: the spec's resources as valibot schemas (see shared/scrape/resource.ts for the
 * conventions). The operation table names each operation's `data` schema from here; mappers return
 * their output types, and the contract tests validate every response against them.
 */
export const DailyData = v.object({ date: calendarDate, weekday: string, weather: string, headline: string, tip: string });
export type DailyData = v.InferOutput<typeof DailyData>;
