import { createHash } from 'node:crypto';
import { seal, unsealJson } from '../../http/cursor-seal';

/**
 * The cursor of operation 13 (hashtag videos): opaque to callers, authenticated, and carrying what
 * the next page needs so that one cursor chain never returns a video twice:
 *   - the hashtag and region it belongs to (a cursor of another chain is refused),
 *   - the hashtag's upstream id (later pages skip the hashtag lookup: one round trip),
 *   - the upstream offset,
 *   - a compact set of the videos already returned: 4-byte fingerprints (sha256 of the id), so
 *     the MAX_SEEN (600) videos of a whole chain take 2.4 KB (a cursor stays under MAX_CURSOR_CHARS,
 *     4.6 KB, whatever the hashtag); a false match (a new video taken for a returned one) has odds
 *     of about 1 in 14 million per video.
 * Sealed (HMAC with CURSOR_SECRET) by shared/http/cursor-seal.ts.
 */
export interface HashtagCursor {
  hashtag: string;
  region: string;
  challengeId: string;
  offset: number;
  /** Fingerprints of every video returned so far in the chain. */
  seen: Set<number>;
}

/** The chain ends when it has returned exactly this many videos (the spec: the list ends after a few hundred). */
export const MAX_SEEN = 600;
/** The longest cursor: MAX_SEEN fingerprints, a 100-character hashtag, a 20-digit id, a large offset. */
export const MAX_CURSOR_CHARS = 4_600;

export const fingerprint = (videoId: string): number => createHash('sha256').update(videoId).digest().readUInt32BE(0);

export function encodeHashtagCursor(c: HashtagCursor): string {
  const seen = Buffer.alloc(c.seen.size * 4);
  [...c.seen].sort((a, b) => a - b).forEach((f, i) => seen.writeUInt32BE(f, i * 4));
  const payload = JSON.stringify({ v: 1, h: c.hashtag, r: c.region, c: c.challengeId, o: c.offset, s: seen.toString('base64url') });
  return seal(payload);
}

/** The cursor, or null when it is malformed, tampered with, or signed with another secret. */
export function decodeHashtagCursor(raw: string): HashtagCursor | null {
  const p = unsealJson(raw, MAX_CURSOR_CHARS);
  if (!p) return null;
  const o = p as { v?: unknown; h?: unknown; r?: unknown; c?: unknown; o?: unknown; s?: unknown };
  if (o.v !== 1 || typeof o.h !== 'string' || typeof o.r !== 'string' || typeof o.c !== 'string' || !/^\d{1,20}$/.test(o.c)) return null;
  if (typeof o.o !== 'number' || !Number.isSafeInteger(o.o) || o.o < 0 || typeof o.s !== 'string') return null;
  const bytes = Buffer.from(o.s, 'base64url');
  if (bytes.length % 4 !== 0 || bytes.length / 4 > MAX_SEEN) return null;
  const seen = new Set<number>();
  for (let i = 0; i < bytes.length; i += 4) seen.add(bytes.readUInt32BE(i));
  return { hashtag: o.h, region: o.r, challengeId: o.c, offset: o.o, seen };
}
