import type { Log } from '../runtime/log';
import type { ScrapeContext } from './context';

/**
 * What a platform implements for one operation: validated parameters in, the operation's `data`
 * out (without `fetchedAt`, which the pipeline adds). `P` is the output of the operation's
 * parameter schemas and `R` the output of its resource schema (`shared/operations.ts` derives both
 * from the table), so the type checker holds every mapper to the contract.
 */
export type Scraper<P, R> = (params: P, ctx: ScrapeContext, log: Log) => Promise<R>;
