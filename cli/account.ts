import { writeFileSync } from 'node:fs';
import { SocialDataClient, type RequestsFilter } from '../client';

/**
 * `social-data credits | usage | requests | status`: the team's own account (free, with the key) and the
 * public status page, printed as JSON (`requests --all`: one history record a line, every page).
 */
export type AccountRead = 'credits' | 'usage' | 'requests' | 'status';

export interface AccountOptions {
  apiUrl: string;
  apiKey?: string;
  out?: string;
  days?: number;
  filter?: RequestsFilter;
  all?: boolean;
  fetch?: typeof fetch;
}

export async function accountRead(read: AccountRead, opts: AccountOptions): Promise<void> {
  const api = new SocialDataClient({ baseUrl: opts.apiUrl, apiKey: opts.apiKey ?? '', fetch: opts.fetch });
  const print = (text: string): void => {
    if (opts.out) writeFileSync(opts.out, text);
    else process.stdout.write(text);
  };
  const json = (value: unknown) => print(`${JSON.stringify(value, null, 2)}\n`);
  switch (read) {
    case 'credits':
      return json((await api.account.credits()).data);
    case 'usage':
      return json((await api.account.usage(opts.days === undefined ? {} : { days: opts.days })).data);
    case 'status':
      return json(await api.status());
    case 'requests': {
      if (!opts.all) return json((await api.account.requests(opts.filter)).data);
      const lines: string[] = [];
      const { cursor: _ignored, ...filter } = opts.filter ?? {};
      for await (const page of api.account.requestPages(filter)) for (const r of page.data.requests) lines.push(JSON.stringify(r));
      return print(lines.length ? `${lines.join('\n')}\n` : '');
    }
  }
}
