import type * as v from 'valibot';
import * as citygame from './operations/citygame';
import * as linkpage from './operations/linkpage';
import * as livestream from './operations/livestream';
import * as microblogA from './operations/microblog-a';
import * as microblogB from './operations/microblog-b';
import * as microblogC from './operations/microblog-c';
import * as professional from './operations/professional';
import { searchHashtag as shortvideoSearchHashtag } from './operations/shortvideo/search-hashtag';
import { userFollowing as shortvideoUserFollowing } from './operations/shortvideo/user-following';
import { userLive as shortvideoUserLive } from './operations/shortvideo/user-live';
import { videoComments as shortvideoVideoComments } from './operations/shortvideo/video-comments';
import type { Operation, Status } from './operations/entry';
import type { ParamValues } from './http/validation';
import type { Scraper } from './scrape/scraper';

/**
 * THE table of the thirteen operations. The CDK stack, the local gateway, the docs and the contract
 * tests all read it; nothing here is listed anywhere else. Each entry is written beside its
 * platform's others in shared/operations/<platform>.ts (what an entry holds: shared/operations/entry.ts),
 * so that an operation's function imports its own entry and evaluates no other platform's schemas
 * at cold start (shared/pipeline.ts createHandler); shortvideo, whose four resources are the
 * largest, has one module per operation (shared/operations/shortvideo/<operation>.ts), so that each
 * of its functions builds only its own. This table lists them all, in the spec's order. `status: 'planned'` operations have their
 * parameters validated already but are neither deployed nor routed until their scraper exists.
 *
 * Each entry is a typed contract: `params` (valibot schemas from the platform's site.ts) and `data`
 * (the resource schema from the platform's resources.ts). `ScraperOf<id>` derives the scraper's
 * type from both, so a function file's scraper, and every mapper under it, is checked against the
 * contract by the compiler. The query rules (`params`, `oneOf`) are what the operation's function
 * validates a request by (shared/http/validation.ts).
 */
export type { Operation, OperationQuery, Platform, Status } from './operations/entry';

export const operations = [
  microblogA.userPosts,
  livestream.clip,
  microblogB.profile,
  citygame.daily,
  shortvideoUserFollowing,
  linkpage.page,
  shortvideoVideoComments,
  professional.post,
  microblogC.userPosts,
  microblogB.userNotes,
  shortvideoUserLive,
  microblogB.note,
  shortvideoSearchHashtag,
] as const satisfies readonly Operation[];

export type OperationId = (typeof operations)[number]['id'];
export type OperationEntry<Id extends OperationId> = Extract<(typeof operations)[number], { id: Id }>;

/** The validated parameters of an operation, as its scraper receives them. */
export type ParamsOf<Id extends OperationId> = ParamValues<OperationEntry<Id>['params']>;
/** The `data` an operation's scraper returns (the pipeline adds `fetchedAt`). */
export type DataOf<Id extends OperationId> = v.InferOutput<OperationEntry<Id>['data']>;
export type ScraperOf<Id extends OperationId> = Scraper<ParamsOf<Id>, DataOf<Id>>;

export function operation<Id extends OperationId>(id: Id): OperationEntry<Id> {
  const op = operations.find((o): o is OperationEntry<Id> => o.id === id);
  if (!op) throw new Error(`unknown operation ${id}`);
  return op;
}

export const routedOperations = (): Operation[] => operations.filter((o) => o.status === 'live');

/** functions/<id>.ts is the Lambda entry of each routed operation. */
export const handlerFile = (op: Operation) => `functions/${op.id}.ts`;

/** Every status an operation may answer: the spec's list plus `alsoAnswers`. */
export const answeredStatuses = (op: Operation): Status[] => [...new Set([...op.responses, ...(op.alsoAnswers ?? [])])].sort((a, b) => a - b);
