/** How the pages write times, shares and intervals (UTC, as the API answers). */
export const when = (iso: string | null | undefined) => (iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : 'never');
/** To the second: a poll, a delivery, a request. */
export const whenExact = (iso: string | null | undefined) => (iso ? `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC` : 'never');
export const percent = (share: number | null) => (share === null ? '–' : `${Math.round(share * 100)} %`);
export const every = (s: number) => (s % 3600 === 0 ? `every ${s / 3600} h` : s % 60 === 0 ? `every ${s / 60} min` : `every ${s} s`);
/** A monitor polls at most 86,400 / interval times a day, each poll at most 1 credit (a cached answer costs none). */
export const creditsPerDay = (intervalSeconds: number) => Math.floor(86_400 / intervalSeconds);
export const upToCredits = (intervalSeconds: number) => `up to ${creditsPerDay(intervalSeconds).toLocaleString('en')} credit${creditsPerDay(intervalSeconds) === 1 ? '' : 's'}/day`;
export const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en')} ${n === 1 ? one : many}`;
