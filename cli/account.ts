import { writeFileSync } from 'node:fs';
import { SocialDataClient, type RequestsFilter } from '../client';
import { creditsView, renderView, requestsView, usageView, type View, type ViewFormat } from './view';

/**
 * `social-data credits | usage | requests | status`: the team's own account (free, with the key) and the
 * public status page. The first three print a table at a terminal and JSON otherwise (view.ts);
 * `status` prints JSON. In JSON, `requests --all` is one history record a line, every page.
 */
export type AccountRead = 'credits' | 'usage' | 'requests' | 'status';

export interface AccountOptions {
  apiUrl: string;
  apiKey?: string;
  out?: string;
  days?: number;
  filter?: RequestsFilter;
  all?: boolean;
  /** table or JSON (credits, usage, requests); default JSON. */
  format?: ViewFormat;
  /** --columns: the table's columns. */
  columns?: string[];
  fetch?: typeof fetch;
}

export async function accountRead(read: AccountRead, opts: AccountOptions): Promise<void> {
  const api = new SocialDataClient({ baseUrl: opts.apiUrl, apiKey: opts.apiKey ?? '', fetch: opts.fetch });
  const print = (text: string): void => {
    if (opts.out) writeFileSync(opts.out, text);
    else process.stdout.write(text);
  };
  const json = (value: unknown) => print(`${JSON.stringify(value, null, 2)}\n`);
  const table = opts.format === 'table';
  const show = <T>(data: T, view: (data: T) => View) => (table ? print(renderView(view(data), opts.columns)) : json(data));
  switch (read) {
    case 'credits':
      return show((await api.account.credits()).data, creditsView);
    case 'usage':
      return show((await api.account.usage(opts.days === undefined ? {} : { days: opts.days })).data, usageView);
    case 'status':
      return json(await api.status());
    case 'requests': {
      if (!opts.all) return show((await api.account.requests(opts.filter)).data, (d) => requestsView(d.requests, d));
      const records: object[] = [];
      const { cursor: _ignored, ...filter } = opts.filter ?? {};
      for await (const page of api.account.requestPages(filter)) records.push(...page.data.requests);
      if (table) return print(renderView(requestsView(records as Parameters<typeof requestsView>[0]), opts.columns));
      return print(records.map((r) => `${JSON.stringify(r)}\n`).join(''));
    }
  }
}
