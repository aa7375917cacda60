import * as v from 'valibot';
import { NO_VALUE, boolean, deviation, digits, omitted, required, string } from '../../../scrape/resource';

/** What the resource modules of shortvideo's operations share (resources/<operation>.ts; see ../resources.ts). */

/** A field the spec names without a type, null when the upstream leaves it out. */
export const orNull = <S extends v.GenericSchema>(s: S, why = NO_VALUE) => deviation(v.nullable(s), why);

/** The account fields the live user and a video's author share, as the spec lists them. */
export const ACCOUNT = {
  id: digits,
  secUid: omitted(string),
  handle: string,
  nickname: omitted(string),
  bio: string,
  avatarUrl: orNull(string, `${NO_VALUE}: an account without a picture`),
  verified: omitted(boolean),
};

// ---- required values (issue 31) --------------------------------------------------------------------

export const NOTE = 'research note upstream-shortvideo.md';
/**
 * Every answer of the web API says how it went in its status code (0 = OK; statusCode or
 * status_code): an object without one is not the API answering as itself (an interstitial, a changed
 * shape), so it is EXTRACTION_FAILED naming it, never read as an empty success. Research note §0.5.
 */
export const ANSWER = required('answer', '(every answer of the web API)', { '(its status code)': 'statusCode | status_code' }, `${NOTE} §0.5 (status codes)`);
