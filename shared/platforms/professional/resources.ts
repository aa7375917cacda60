import * as v from 'valibot';
import { obj } from '../../scrape/resource';

/**
 * professional: the spec's resources as valibot schemas (see shared/scrape/resource.ts for the
 * conventions). The operation table names each operation's `data` schema from here; mappers return
 * their output types, and the contract tests validate every response against them.
 */
// Field names inside `content`: not shown.
export const PostData = v.looseObject({ content: obj });
