import * as resources from '../platforms/livestream/resources';
import * as site from '../platforms/livestream/site';
import { NO_400, type Operation } from './entry';

/** The table's entries of livestream (shared/operations.ts lists them; shared/operations/entry.ts says what an entry holds). */
export const clip = {
  id: 'livestream-clip',
  path: '/v1/livestream/clip',
  params: {
    url: { schema: site.urlParam, required: true, description: 'Public clip URL: https://kick.com/<channel>/clips/clip_<id> or https://kick.com/<channel>?clip=clip_<id>', example: 'https://kick.com/somechannel/clips/clip_01JQ7ZK3M8W4TYV5R2N6P9XBCD' },
  },
  number: 2,
  platform: 'livestream',
  summary: 'A clip: title, counts, duration, thumbnail, HLS playlist, source stream/VOD, category, channel and creator.',
  data: resources.ClipData,
  required: resources.REQUIRED,
  responses: NO_400,
  status: 'live',
  parsesHtml: false,
} as const satisfies Operation;
