import * as resources from '../platforms/citygame/resources';
import { SOURCE_URL_VARIABLE } from '../platforms/citygame/source';
import { type Operation } from './entry';

/** The table's entries of citygame (shared/operations.ts lists them; shared/operations/entry.ts says what an entry holds). */
export const daily = {
  id: 'citygame-daily',
  path: '/v1/citygame/daily',
  params: {},
  number: 4,
  platform: 'citygame',
  sourceVariable: SOURCE_URL_VARIABLE,
  summary: "Today's in-game bulletin, read from the source the deployment names (CITYGAME_SOURCE_URL).",
  data: resources.DailyData,
  required: resources.REQUIRED,
  responses: [200, 401, 402, 429, 503],
  // The Errors table's 422 (invalid query parameters) applies: a malformed cache_max_age, an
  // unknown or a repeated parameter. The spec's list for op 4 omits it (the operation takes none).
  alsoAnswers: [422],
  status: 'live',
  // The deployer's source may be an HTML page (CITYGAME_FIELDS as CSS selectors).
  parsesHtml: true,
} as const satisfies Operation;
