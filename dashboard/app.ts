/**
 * The account dashboard: one small single-page app over the account API (/v1/account/*).
 * Pages: sign-in, set-password (from the invitation link), keys, credits, usage. Plain DOM, no
 * framework; chart.js draws the usage charts. The session is an HttpOnly cookie the page never sees.
 */
import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, Tooltip } from 'chart.js';
import type { UsageReport } from '../shared/usage';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Legend, Tooltip);

// ---- plumbing ---------------------------------------------------------------------------------

/** Where the service is mounted: the path before /dashboard (an API Gateway stage such as /prod). */
const BASE = location.pathname.slice(0, Math.max(0, location.pathname.indexOf('/dashboard')));
const PAGE_ROOT = `${BASE}/dashboard`;

interface Me {
  email: string;
  memberId: string;
  team: { teamId: string; name: string };
  sessionExpiresAt: string;
}
interface Key {
  keyId: string;
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
  status: 'active' | 'revoked';
  secret?: string;
}
interface Charge {
  time: string;
  operation: string;
  requestId: string;
  credits: number;
}

class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(`${BASE}/v1/account${path}`, {
      method,
      credentials: 'same-origin',
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiFailure(0, 'NETWORK', 'The service could not be reached; check the connection and try again');
  }
  const json = (await res.json().catch(() => null)) as { data?: T; error?: { code: string; message: string; details?: { message: string }[] } } | null;
  if (!res.ok || !json || json.data === undefined) {
    const e = json?.error;
    const detail = e?.details?.[0]?.message;
    throw new ApiFailure(res.status, e?.code ?? 'UNKNOWN', detail ?? e?.message ?? `The service answered ${res.status}`);
  }
  return json.data;
}

type Child = Node | string | null | undefined | false;
function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string | boolean | number | ((e: Event) => void) | undefined> = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') el.addEventListener(name.replace(/^on/, ''), value as EventListener);
    else if (value === true) el.setAttribute(name, '');
    else el.setAttribute(name, String(value));
  }
  for (const c of children) if (c !== null && c !== undefined && c !== false) el.append(c);
  return el;
}

const when = (iso: string | null) => (iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : 'never');
const time = (iso: string | null) => (iso ? h('time', { datetime: iso }, when(iso)) : 'never');
const percent = (share: number | null) => (share === null ? '–' : `${Math.round(share * 100)} %`);

// ---- routing and layout -----------------------------------------------------------------------

let me: Me | null | undefined; // undefined: not asked yet
let notice: string | undefined;

const top = document.getElementById('top')!;
const main = document.getElementById('main')!;

function navigate(page: string, query = '', replace = false) {
  const url = `${PAGE_ROOT}${page ? `/${page}` : ''}${query}`;
  if (replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  void render();
}

function link(page: string, text: string, current: string) {
  return h(
    'a',
    {
      href: `${PAGE_ROOT}/${page}`,
      'aria-current': page === current ? 'page' : undefined,
      onclick: (e: Event) => {
        const m = e as MouseEvent;
        if (m.ctrlKey || m.metaKey || m.shiftKey || m.button !== 0) return;
        e.preventDefault();
        navigate(page);
      },
    },
    text,
  );
}

function header(current: string) {
  top.replaceChildren(
    h(
      'div',
      { class: 'bar' },
      h('p', { class: 'brand' }, 'Social data API', h('span', {}, ' · dashboard')),
      me
        ? h(
            'nav',
            { 'aria-label': 'Dashboard' },
            h('ul', {}, h('li', {}, link('keys', 'Keys', current)), h('li', {}, link('credits', 'Credits', current)), h('li', {}, link('usage', 'Usage', current))),
          )
        : null,
      me
        ? h(
            'div',
            { class: 'who' },
            h('span', { class: 'team' }, me.team.name || me.team.teamId),
            h('span', { class: 'email' }, me.email),
            h('button', { type: 'button', class: 'secondary', onclick: () => void signOut() }, 'Sign out'),
          )
        : null,
    ),
  );
}

/** Puts a page in place and moves focus to its heading, so screen readers announce the change. */
function show(title: string, ...content: Child[]) {
  const heading = h('h1', { tabindex: '-1' }, title);
  const shown = notice ? h('p', { class: 'notice', role: 'status' }, notice) : null;
  notice = undefined;
  main.replaceChildren(heading, shown ?? '', ...content.filter((c): c is Node | string => !!c));
  document.title = `${title} · Social data API`;
  heading.focus();
}

async function render() {
  const page = location.pathname.slice(PAGE_ROOT.length).replace(/^\/+|\/+$/g, '');
  const params = new URLSearchParams(location.search);
  if (page === 'set-password') {
    header(page);
    return setPasswordPage(params.get('token') ?? '');
  }
  if (me === undefined) {
    try {
      me = await api<Me>('GET', '/me');
    } catch {
      me = null;
    }
  }
  if (page === 'sign-in' || !me) {
    if (me && page === 'sign-in') return navigate('keys', '', true);
    if (page !== 'sign-in') return navigate('sign-in', '', true);
    header(page);
    return signInPage(params.get('email') ?? '');
  }
  header(page || 'keys');
  try {
    if (page === 'credits') return await creditsPage();
    if (page === 'usage') return await usagePage();
    if (page !== 'keys') return navigate('keys', '', true);
    return await keysPage();
  } catch (err) {
    if (err instanceof ApiFailure && err.status === 401) {
      me = null;
      notice = 'Your session has ended; sign in again.';
      return navigate('sign-in', '', true);
    }
    show('Something went wrong', h('p', { role: 'alert' }, (err as Error).message));
  }
}

window.addEventListener('popstate', () => void render());

/** A form whose submit handler shows its failure in the form's alert line and re-enables it. */
function form(label: string, fields: Child[], submitText: string, onSubmit: (f: HTMLFormElement) => Promise<void>) {
  const alert = h('p', { class: 'error', role: 'alert' });
  const button = h('button', { type: 'submit' }, submitText);
  const f = h('form', { 'aria-label': label, novalidate: true }, ...fields, button, alert);
  f.addEventListener('submit', (e) => {
    e.preventDefault();
    if (!f.reportValidity()) return;
    alert.textContent = '';
    button.disabled = true;
    onSubmit(f)
      .catch((err: Error) => {
        alert.textContent = err.message;
      })
      .finally(() => {
        button.disabled = false;
      });
  });
  return f;
}

function field(id: string, label: string, input: Record<string, string | boolean | number | undefined>, hint?: string) {
  return h(
    'div',
    { class: 'field' },
    h('label', { for: id }, label),
    h('input', { id, name: id, ...input, 'aria-describedby': hint ? `${id}-hint` : undefined }),
    hint ? h('p', { class: 'hint', id: `${id}-hint` }, hint) : null,
  );
}

const value = (f: HTMLFormElement, name: string) => (f.elements.namedItem(name) as HTMLInputElement).value;

// ---- pages ------------------------------------------------------------------------------------

function signInPage(email: string) {
  show(
    'Sign in',
    h('p', {}, 'Members of a team sign in with the e-mail address they were invited with.'),
    form(
      'Sign in',
      [
        field('email', 'E-mail', { type: 'email', autocomplete: 'username', required: true, value: email }),
        field('password', 'Password', { type: 'password', autocomplete: 'current-password', required: true }),
      ],
      'Sign in',
      async (f) => {
        me = await api<Me>('POST', '/sign-in', { email: value(f, 'email'), password: value(f, 'password') });
        navigate('keys', '', true);
      },
    ),
  );
}

function setPasswordPage(token: string) {
  show(
    'Set your password',
    h('p', {}, 'This link from your invitation works once, for 24 hours.'),
    form(
      'Set your password',
      [
        field('new-password', 'New password', { type: 'password', autocomplete: 'new-password', required: true, minlength: 12, maxlength: 200 }, 'At least 12 characters.'),
        field('repeat-password', 'Repeat the password', { type: 'password', autocomplete: 'new-password', required: true }),
      ],
      'Set password',
      async (f) => {
        const password = value(f, 'new-password');
        if (password !== value(f, 'repeat-password')) throw new Error('The two passwords differ');
        const { email } = await api<{ email: string }>('POST', '/password', { token, password });
        me = undefined;
        notice = 'Your password is set. Sign in with it.';
        navigate('sign-in', `?email=${encodeURIComponent(email)}`, true);
      },
    ),
  );
}

async function signOut() {
  try {
    await api('POST', '/sign-out', {});
  } finally {
    me = null;
    notice = 'You are signed out.';
    navigate('sign-in', '', true);
  }
}

let freshKey: Key | undefined;

async function keysPage() {
  const { keys } = await api<{ keys: Key[] }>('GET', '/keys');
  const create = form(
    'Create a key',
    [field('key-name', 'Name of the new key', { type: 'text', required: true, maxlength: 64, autocomplete: 'off', placeholder: 'e.g. production, ci' })],
    'Create key',
    async (f) => {
      const { key } = await api<{ key: Key }>('POST', '/keys', { name: value(f, 'key-name') });
      freshKey = key;
      await keysPage();
    },
  );
  create.classList.add('inline');

  const rows = keys.map((k) => keyRow(k));
  const table = keys.length
    ? h(
        'table',
        { class: 'stack' },
        h('caption', {}, `Keys of ${me?.team.name || 'your team'}`),
        h('thead', {}, h('tr', {}, ...['Name', 'Created', 'Last used', 'Status', 'Actions'].map((t) => h('th', { scope: 'col' }, t)))),
        h('tbody', {}, ...rows),
      )
    : h('p', {}, 'No keys yet: create one above.');

  show('API keys', h('section', { 'aria-labelledby': 'create-heading' }, h('h2', { id: 'create-heading' }, 'Create a key'), create), secretPanel(), h('section', { 'aria-label': 'Keys' }, table), revokeDialog);
  if (freshKey) (document.getElementById('new-secret') as HTMLInputElement | null)?.focus();
}

function secretPanel() {
  const key = freshKey;
  if (!key?.secret) return null;
  const status = h('p', { class: 'copied', role: 'status' });
  const input = h('input', { id: 'new-secret', type: 'text', readonly: true, value: key.secret, spellcheck: 'false', autocomplete: 'off' });
  return h(
    'section',
    { class: 'secret', 'aria-labelledby': 'secret-heading' },
    h('h2', { id: 'secret-heading' }, `Your new key “${key.name}”`),
    h('p', { class: 'warning' }, h('strong', {}, 'Copy it now. '), 'This secret is shown once and cannot be shown again; only its hash is stored.'),
    h('div', { class: 'field' }, h('label', { for: 'new-secret' }, `Secret of key ${key.name}`), h('div', { class: 'copy-row' }, input, h('button', { type: 'button', onclick: () => void copy(input, status) }, 'Copy'))),
    status,
    h(
      'button',
      {
        type: 'button',
        class: 'secondary',
        onclick: () => {
          freshKey = undefined;
          void keysPage();
        },
      },
      'I have stored it',
    ),
  );
}

async function copy(input: HTMLInputElement, status: HTMLElement) {
  try {
    await navigator.clipboard.writeText(input.value);
    status.textContent = 'Copied to the clipboard.';
  } catch {
    input.select();
    status.textContent = 'Select the text and copy it (Ctrl+C / ⌘C).';
  }
}

function keyRow(k: Key): HTMLTableRowElement {
  const nameCell = h('td', { 'data-label': 'Name' }, k.name);
  const actions = h('td', { 'data-label': 'Actions', class: 'actions' });
  if (k.status === 'active') {
    actions.append(
      h('button', { type: 'button', class: 'secondary', 'aria-label': `Rename key ${k.name}`, onclick: () => startRename(k, nameCell) }, 'Rename'),
      h('button', { type: 'button', class: 'danger', 'aria-label': `Revoke key ${k.name}`, onclick: () => confirmRevoke(k) }, 'Revoke'),
    );
  } else actions.append('–');
  return h(
    'tr',
    { 'data-key': k.keyId },
    nameCell,
    h('td', { 'data-label': 'Created' }, time(k.createdAt)),
    h('td', { 'data-label': 'Last used' }, time(k.lastUsedAt)),
    h('td', { 'data-label': 'Status' }, h('span', { class: `status ${k.status}` }, k.status === 'active' ? 'Active' : `Revoked ${when(k.revokedAt)}`)),
    actions,
  );
}

function startRename(k: Key, cell: HTMLTableCellElement) {
  const id = `rename-${k.keyId}`;
  const f = form(`Rename key ${k.name}`, [field(id, `New name for key ${k.name}`, { type: 'text', required: true, maxlength: 64, value: k.name, autocomplete: 'off' })], 'Save', async (form) => {
    await api('PATCH', `/keys/${encodeURIComponent(k.keyId)}`, { name: value(form, id) });
    await keysPage();
  });
  f.classList.add('rename');
  const cancel = h('button', { type: 'button', class: 'secondary', onclick: () => void keysPage() }, 'Cancel');
  f.insertBefore(cancel, f.querySelector('.error'));
  f.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') void keysPage();
  });
  cell.replaceChildren(f);
  (document.getElementById(id) as HTMLInputElement).select();
}

const revokeDialog = h('dialog', { 'aria-labelledby': 'revoke-heading', class: 'confirm' });

function confirmRevoke(k: Key) {
  const alert = h('p', { class: 'error', role: 'alert' });
  const revoke = h('button', { type: 'button', class: 'danger' }, 'Revoke key');
  revoke.addEventListener('click', () => {
    revoke.disabled = true;
    api('DELETE', `/keys/${encodeURIComponent(k.keyId)}`)
      .then(() => {
        revokeDialog.close();
        notice = `Key “${k.name}” is revoked: requests with it are refused from now on.`;
        return keysPage();
      })
      .catch((err: Error) => {
        alert.textContent = err.message;
        revoke.disabled = false;
      });
  });
  revokeDialog.replaceChildren(
    h('h2', { id: 'revoke-heading' }, `Revoke key “${k.name}”?`),
    h('p', {}, 'The very next request with this key is refused (401). This cannot be undone.'),
    alert,
    h('div', { class: 'buttons' }, h('button', { type: 'button', class: 'secondary', onclick: () => revokeDialog.close() }, 'Cancel'), revoke),
  );
  revokeDialog.showModal();
}

async function creditsPage() {
  const { balance, charges } = await api<{ balance: number; charges: Charge[] }>('GET', '/credits');
  show(
    'Credits',
    h('p', { class: 'balance' }, h('span', { class: 'big' }, balance.toLocaleString('en')), ` credit${balance === 1 ? '' : 's'} left`),
    h('p', { class: 'hint' }, 'A live request costs 1 credit; cached answers and errors cost nothing.'),
    charges.length
      ? h(
          'table',
          { class: 'stack' },
          h('caption', {}, `Recent charges (the latest ${charges.length})`),
          h('thead', {}, h('tr', {}, ...['Time', 'Operation', 'Request ID', 'Credits'].map((t) => h('th', { scope: 'col' }, t)))),
          h(
            'tbody',
            {},
            ...charges.map((c) =>
              h(
                'tr',
                {},
                h('td', { 'data-label': 'Time' }, time(c.time)),
                h('td', { 'data-label': 'Operation' }, c.operation),
                h('td', { 'data-label': 'Request ID' }, h('code', {}, c.requestId)),
                h('td', { 'data-label': 'Credits', class: 'num' }, String(c.credits)),
              ),
            ),
          ),
        )
      : h('p', {}, 'No charges yet.'),
  );
}

const COLORS = ['#1f6feb', '#d4760a', '#1a7f37', '#a40e26', '#8250df', '#0a7d8c', '#9a6700', '#bf3989', '#57606a', '#2da44e', '#cf222e', '#0969da', '#6639ba'];
let charts: Chart[] = [];

async function usagePage() {
  const u = await api<UsageReport>('GET', '/usage?days=30');
  const ops = Object.keys(u.byOperation).sort();
  const labels = u.days.map((d) => d.day.slice(5));
  const dataset = (pick: (o: { live: number; hits: number; credits: number }) => number) =>
    ops.map((op, i) => ({ label: op, data: u.days.map((d) => (d.operations[op] ? pick(d.operations[op]!) : 0)), backgroundColor: COLORS[i % COLORS.length] }));
  const requestsCanvas = h('canvas', { role: 'img', 'aria-label': `Requests per day over the last 30 days, by operation: ${u.totals.requests} in all` });
  const creditsCanvas = h('canvas', { role: 'img', 'aria-label': `Credits used per day over the last 30 days, by operation: ${u.totals.credits} in all` });
  show(
    'Usage',
    h(
      'dl',
      { class: 'totals' },
      h('div', {}, h('dt', {}, 'Requests, 30 days'), h('dd', {}, String(u.totals.requests))),
      h('div', {}, h('dt', {}, 'Credits used'), h('dd', {}, String(u.totals.credits))),
      h('div', {}, h('dt', {}, 'Cache-hit share'), h('dd', {}, percent(u.totals.cacheHitShare))),
    ),
    h('section', { 'aria-labelledby': 'req-heading' }, h('h2', { id: 'req-heading' }, 'Requests per day'), h('div', { class: 'chart' }, requestsCanvas)),
    h('section', { 'aria-labelledby': 'cred-heading' }, h('h2', { id: 'cred-heading' }, 'Credits per day'), h('div', { class: 'chart' }, creditsCanvas)),
    h(
      'section',
      { 'aria-labelledby': 'ops-heading' },
      h('h2', { id: 'ops-heading' }, 'By operation'),
      ops.length
        ? h(
            'table',
            { class: 'stack' },
            h('caption', {}, 'Requests, cache hits and credits per operation over the last 30 days'),
            h('thead', {}, h('tr', {}, ...['Operation', 'Requests', 'Cache hits', 'Cache-hit share', 'Credits'].map((t) => h('th', { scope: 'col' }, t)))),
            h(
              'tbody',
              {},
              ...ops.map((op) => {
                const o = u.byOperation[op]!;
                return h(
                  'tr',
                  {},
                  h('td', { 'data-label': 'Operation' }, op),
                  h('td', { 'data-label': 'Requests', class: 'num' }, String(o.requests)),
                  h('td', { 'data-label': 'Cache hits', class: 'num' }, String(o.hits)),
                  h('td', { 'data-label': 'Cache-hit share', class: 'num' }, percent(o.cacheHitShare)),
                  h('td', { 'data-label': 'Credits', class: 'num' }, String(o.credits)),
                );
              }),
            ),
          )
        : h('p', {}, 'No requests in the last 30 days.'),
    ),
  );
  for (const c of charts) c.destroy();
  const options = {
    responsive: true,
    maintainAspectRatio: false,
    animation: false as const,
    plugins: { legend: { position: 'bottom' as const, labels: { boxWidth: 12 } } },
    scales: { x: { stacked: true, ticks: { maxRotation: 0, autoSkipPadding: 8 } }, y: { stacked: true, beginAtZero: true, ticks: { precision: 0 } } },
  };
  charts = [
    new Chart(requestsCanvas, { type: 'bar', data: { labels, datasets: dataset((o) => o.live + o.hits) }, options }),
    new Chart(creditsCanvas, { type: 'bar', data: { labels, datasets: dataset((o) => o.credits) }, options }),
  ];
}

void render();
