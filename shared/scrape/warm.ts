/**
 * What a warm function keeps in memory between requests (a session and its cookies, a shared
 * credential, names resolved to ids), each registered with how it is forgotten, so that a test or
 * the bench can run a platform as a cold container: `startCold('shortvideo')`. The one reset hook
 * of every platform; what a module holds is forgotten only once that module is loaded.
 */
const forgetters = new Map<string, (() => void)[]>();

/** Registers, for `platform`, something its warm function remembers and how to forget it. */
export function keptWarm(platform: string, forget: () => void): void {
  forgetters.set(platform, [...(forgetters.get(platform) ?? []), forget]);
}

/** Forget everything `platform` keeps in memory: the next request runs as on a new container. */
export function startCold(platform: string): void {
  for (const forget of forgetters.get(platform) ?? []) forget();
}
