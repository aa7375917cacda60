/**
 * Secrets that must never sit in a function's configuration (issue 18.8): the function's environment
 * carries only where each one is (a Secrets Manager secret's ARN, or its name); the value is read
 * once per cold start, before the first request, and kept in this module's memory.
 *
 *   CURSOR_SECRET_ARN         -> cursorSecret (the HMAC key of the cursors the service issues)
 *   SCRAPER_PROXY_SECRET_ARN  -> the scraper proxy URL, credentials included (a secret the deployer created)
 *   KEY_PEPPER_SECRET_ARN     -> keyPepper (the HMAC key API keys, session ids and invitation tokens are hashed with: shared/auth/hashing.ts)
 *
 * Locally and in tests the plain variables (CURSOR_SECRET, SCRAPER_PROXY_URL[_...], KEY_PEPPER) still win: no AWS call
 * is made when no location is set. Every read goes through Powertools Parameters with the AWS SDK's
 * Secrets Manager client, the one secrets client of the service, imported only when a location is
 * set (so local runs never evaluate it); `npm run bench` prints what it adds to a cold start.
 */
export interface SecretClients {
  /** A Secrets Manager secret's value, by its ARN or name. */
  secret(arnOrName: string): Promise<string>;
}

/** Where the scraper proxy URL is (set by the stack on every function that scrapes, when the deployment names a proxy secret). */
export const PROXY_SECRET_VARIABLE = 'SCRAPER_PROXY_SECRET_ARN';
/** Where the key pepper is (set by the stack on the authorizer and the account function). */
export const KEY_PEPPER_VARIABLE = 'KEY_PEPPER_SECRET_ARN';
/** The KMS key the monitors' signing secrets are sealed under on AWS (set by the stack on the monitors API and the delivery worker only). */
export const MONITOR_KMS_KEY_VARIABLE = 'MONITOR_KMS_KEY_ID';

/** The loaded values; empty until `loadSecrets` resolves (or when nothing is configured). */
export const loaded: { cursorSecret?: string; proxyUrl?: string; keyPepper?: string } = {};

let loading: Promise<void> | undefined;

/** Once per process: concurrent first requests share the one load; a failed load is retried next time. */
export function loadSecrets(clients: () => Promise<SecretClients> = awsClients): Promise<void> {
  const cursorArn = process.env.CURSOR_SECRET_ARN;
  const proxySecret = process.env[PROXY_SECRET_VARIABLE];
  const pepperArn = process.env[KEY_PEPPER_VARIABLE];
  if (!cursorArn && !proxySecret && !pepperArn) return Promise.resolve();
  loading ??= (async () => {
    const c = await clients();
    const [cursorSecret, proxyUrl, keyPepper] = await Promise.all([
      cursorArn ? c.secret(cursorArn) : undefined,
      proxySecret ? c.secret(proxySecret) : undefined,
      pepperArn ? c.secret(pepperArn) : undefined,
    ]);
    if (cursorSecret) loaded.cursorSecret = cursorSecret;
    if (proxyUrl) loaded.proxyUrl = proxyUrl;
    if (keyPepper) loaded.keyPepper = keyPepper;
  })().catch((err: unknown) => {
    loading = undefined;
    // Never the value; the SDK's errors carry the name of the secret at most.
    throw new Error(`secrets could not be read at cold start: ${(err as Error).name}`);
  });
  return loading;
}

/** For tests: forget what was loaded. */
export function resetSecrets() {
  loading = undefined;
  delete loaded.cursorSecret;
  delete loaded.proxyUrl;
  delete loaded.keyPepper;
}

/**
 * The reads, through Powertools Parameters and the SDK's Secrets Manager client (a secret in its
 * ARN's region; one named without an ARN in the function's own). The provider and client are
 * imported on the first read, so a cold start with no location evaluates neither.
 */
async function awsClients(): Promise<SecretClients> {
  const secretsIn = new Map<string | undefined, Promise<{ get(name: string): Promise<unknown> }>>();
  const secrets = (region: string | undefined) => {
    let provider = secretsIn.get(region);
    if (!provider) {
      provider = Promise.all([import('@aws-lambda-powertools/parameters/secrets'), import('@aws-sdk/client-secrets-manager')]).then(
        ([{ SecretsProvider }, { SecretsManagerClient }]) => new SecretsProvider({ awsSdkV3Client: new SecretsManagerClient(region ? { region } : {}) }),
      );
      secretsIn.set(region, provider);
    }
    return provider;
  };
  return {
    async secret(arnOrName) {
      // A name is in the function's region: the same client as an ARN of that region (one connection, not two).
      const value = await (await secrets(regionOf(arnOrName) ?? process.env.AWS_REGION)).get(arnOrName);
      if (typeof value !== 'string' || !value) throw Object.assign(new Error('empty secret'), { name: 'EmptySecret' });
      return value;
    },
  };
}

/** A secret's ARN names its region (the stack's secrets are in the function's own); a bare name does not. */
function regionOf(arnOrName: string): string | undefined {
  const region = arnOrName.startsWith('arn:') ? arnOrName.split(':')[3] : undefined;
  return region || undefined;
}
