/**
 * The account dashboard: one small single-page app over the account API (/v1/account/*).
 * Pages: sign-in, set-password (from the invitation link), keys, credits, usage (results, cache
 * hits and errors), requests (the last 7 days, filtered and paged), monitors (over /v1/monitors/*,
 * with the same session), members (the team's members and their sessions; one's own password), and
 * the public status page (GET /v1/status: no session needed). Plain DOM, no framework; chart.js
 * draws the usage charts. The session is an HttpOnly cookie the page never sees.
 */
import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, Tooltip } from 'chart.js';
import { OPERATIONS } from '../client/operations.gen';
import type { RequestsReport } from '../shared/account/reads';
import type { StatusDocument } from '../shared/status/page';
import { ERROR_STATUS } from '../shared/http/error-status';
import type { UsageCounts, UsageReport } from '../shared/accounting/usage';
import type { publicDelivery, publicMonitor } from '../shared/monitors/api';
import type { MonitorForm } from '../shared/monitors/forms';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Legend, Tooltip);

// ---- plumbing ---------------------------------------------------------------------------------

/** Where the service is mounted: the path before /dashboard (an API Gateway stage such as /prod). */
const BASE = location.pathname.slice(0, Math.max(0, location.pathname.indexOf('/dashboard')));
const PAGE_ROOT = `${BASE}/dashboard`;

interface Me {
  email: string;
  memberId: string;
  role: 'owner' | 'member';
  team: { teamId: string; name: string };
  sessionExpiresAt: string;
}
interface Key {
  keyId: string;
  name: string;
  createdAt: string;
  createdBy: { kind: 'member'; memberId: string; email: string } | { kind: 'cli' } | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
  status: 'active' | 'revoked';
  secret?: string;
}
interface TeamMember {
  memberId: string;
  email: string;
  role: 'owner' | 'member';
  invitedAt: string;
  passwordSetAt: string | null;
  status: 'invited' | 'active';
  you: boolean;
}
interface MemberSession {
  sessionId: string;
  createdAt: string;
  expiresAt: string;
  address: string | null;
  userAgent: string | null;
  current: boolean;
}
interface Charge {
  time: string;
  operation: string;
  requestId: string;
  credits: number;
}

/** A field's problem in a 422 VALIDATION_ERROR (`path`: the body's field, e.g. `params.handle`). */
type Detail = { path: string; message: string };

class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Detail[] = [],
  ) {
    super(message);
  }
}

/** The account API (/v1/account/*). */
const api = <T>(method: string, path: string, body?: unknown) => call<T>(method, `/v1/account${path}`, body);
/** The monitors API (/v1/monitors/*): the same session cookie, the same error envelope. */
const monitorsApi = <T>(method: string, path: string, body?: unknown) => call<T>(method, `/v1/monitors${path}`, body);

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(`${BASE}${path}`, {
      method,
      credentials: 'same-origin',
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiFailure(0, 'NETWORK', 'The service could not be reached; check the connection and try again');
  }
  const json = (await res.json().catch(() => null)) as { data?: T; error?: { code: string; message: string; details?: Detail[] } } | null;
  if (!res.ok || !json || json.data === undefined) {
    const e = json?.error;
    const detail = e?.details?.[0]?.message;
    const wait = Number(res.headers.get('retry-after'));
    if (res.status === 429 && wait > 0) throw new ApiFailure(429, e?.code ?? 'RATE_LIMITED', `Too many attempts. Try again in ${duration(wait)}.`);
    throw new ApiFailure(res.status, e?.code ?? 'UNKNOWN', detail ?? e?.message ?? `The service answered ${res.status}`, e?.details ?? []);
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

const duration = (seconds: number) => (seconds < 90 ? `${seconds} seconds` : `${Math.ceil(seconds / 60)} minutes`);
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
            h(
              'ul',
              {},
              h('li', {}, link('keys', 'Keys', current)),
              h('li', {}, link('credits', 'Credits', current)),
              h('li', {}, link('usage', 'Usage', current)),
              h('li', {}, link('requests', 'Requests', current)),
              h('li', {}, link('monitors', 'Monitors', current)),
              h('li', {}, link('members', 'Members', current)),
              h('li', {}, link('status', 'Status', current)),
            ),
          )
        : h('nav', { 'aria-label': 'Public' }, h('ul', {}, h('li', {}, link('status', 'Status', current)))),
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
  if (page === 'status') {
    header(page);
    return statusPage().catch((err: Error) => show('Status', h('p', { role: 'alert' }, err.message)));
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
    if (page === 'requests') return await requestsPage(params);
    if (page === 'members') return await membersPage();
    if (page === 'monitors') return await monitorsPage();
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
        h('thead', {}, h('tr', {}, ...['Name', 'Created', 'Created by', 'Last used', 'Status', 'Actions'].map((t) => h('th', { scope: 'col' }, t)))),
        h('tbody', {}, ...rows),
      )
    : h('p', {}, 'No keys yet: create one above.');

  show('API keys', h('section', { 'aria-labelledby': 'create-heading' }, h('h2', { id: 'create-heading' }, 'Create a key'), create), keySecretPanel(), h('section', { 'aria-label': 'Keys' }, table), confirmDialog);
  if (freshKey) (document.getElementById('new-secret') as HTMLInputElement | null)?.focus();
}

/** A secret shown once (a new key, a monitor's signing secret), with Copy and "I have stored it". */
function secretPanel(title: string, label: string, secret: string, kept: string, done: () => void) {
  const status = h('p', { class: 'copied', role: 'status' });
  const input = h('input', { id: 'new-secret', type: 'text', readonly: true, value: secret, spellcheck: 'false', autocomplete: 'off' });
  return h(
    'section',
    { class: 'secret', 'aria-labelledby': 'secret-heading' },
    h('h2', { id: 'secret-heading' }, title),
    h('p', { class: 'warning' }, h('strong', {}, 'Copy it now. '), `This secret is shown once and cannot be shown again; ${kept}.`),
    h('div', { class: 'field' }, h('label', { for: 'new-secret' }, label), h('div', { class: 'copy-row' }, input, h('button', { type: 'button', onclick: () => void copy(input, status) }, 'Copy'))),
    status,
    h('button', { type: 'button', class: 'secondary', onclick: done }, 'I have stored it'),
  );
}

function keySecretPanel() {
  const key = freshKey;
  if (!key?.secret) return null;
  return secretPanel(`Your new key “${key.name}”`, `Secret of key ${key.name}`, key.secret, 'only its hash is stored', () => {
    freshKey = undefined;
    void keysPage();
  });
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
    h('td', { 'data-label': 'Created by' }, !k.createdBy ? 'unknown' : k.createdBy.kind === 'cli' ? 'the operator (admin CLI)' : k.createdBy.email),
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

const confirmDialog = h('dialog', { 'aria-labelledby': 'confirm-heading', class: 'confirm' });

/** A modal question with a danger button; `act` runs on confirmation and the dialog closes when it succeeds. */
function confirmDanger(title: string, text: string, button: string, act: () => Promise<void>) {
  const alert = h('p', { class: 'error', role: 'alert' });
  const go = h('button', { type: 'button', class: 'danger' }, button);
  go.addEventListener('click', () => {
    go.disabled = true;
    act()
      .then(() => confirmDialog.close())
      .catch((err: Error) => {
        alert.textContent = err.message;
        go.disabled = false;
      });
  });
  confirmDialog.replaceChildren(
    h('h2', { id: 'confirm-heading' }, title),
    h('p', {}, text),
    alert,
    h('div', { class: 'buttons' }, h('button', { type: 'button', class: 'secondary', onclick: () => confirmDialog.close() }, 'Cancel'), go),
  );
  confirmDialog.showModal();
}

function confirmRevoke(k: Key) {
  confirmDanger(`Revoke key “${k.name}”?`, 'The very next request with this key is refused (401). This cannot be undone.', 'Revoke key', async () => {
    await api('DELETE', `/keys/${encodeURIComponent(k.keyId)}`);
    notice = `Key “${k.name}” is revoked: requests with it are refused from now on.`;
    await keysPage();
  });
}

/** Whose sessions the members page shows (memberId), if any. */
let sessionsOf: string | undefined;

async function membersPage() {
  const { members } = await api<{ members: TeamMember[] }>('GET', '/members');
  if (sessionsOf && !members.some((m) => m.memberId === sessionsOf)) sessionsOf = undefined;
  const shown = members.find((m) => m.memberId === sessionsOf);
  const sessions = shown ? (await api<{ sessions: MemberSession[] }>('GET', `/members/${encodeURIComponent(shown.memberId)}/sessions`)).sessions : [];
  const table = h(
    'table',
    { class: 'stack' },
    h('caption', {}, `Members of ${me?.team.name || 'your team'}`),
    h('thead', {}, h('tr', {}, ...['E-mail', 'Status', 'Invited', 'Actions'].map((t) => h('th', { scope: 'col' }, t)))),
    h('tbody', {}, ...members.map((m) => memberRow(m))),
  );
  show(
    'Members',
    h('p', { class: 'hint' }, "The operator invites new members and names the team's owners (admin CLI). Owners remove members: their sessions end at once and the API keys they hold are revoked."),
    h('section', { 'aria-label': 'Members' }, table),
    shown ? sessionsSection(shown, sessions) : null,
    passwordSection(),
    confirmDialog,
  );
}

function memberRow(m: TeamMember): HTMLTableRowElement {
  // Another member's sessions and removal are an owner's (the account API refuses them to members).
  const owner = me?.role === 'owner';
  const actions = h(
    'td',
    { 'data-label': 'Actions', class: 'actions' },
    !owner && !m.you
      ? null
      : h(
      'button',
      {
        type: 'button',
        class: 'secondary',
        'aria-label': `Sessions of ${m.email}`,
        'aria-expanded': String(sessionsOf === m.memberId),
        onclick: () => {
          sessionsOf = sessionsOf === m.memberId ? undefined : m.memberId;
          void membersPage();
        },
      },
      'Sessions',
    ),
    m.you || !owner
      ? null
      : h(
          'button',
          {
            type: 'button',
            class: 'danger',
            'aria-label': `Remove ${m.email}`,
            onclick: () =>
              confirmDanger(`Remove ${m.email}?`, 'Their sessions end at once, the API keys they hold are revoked and their invitation links stop working. The operator can invite them again.', 'Remove member', async () => {
                const { keys } = await api<{ keys: { revoked: string[] } }>('DELETE', `/members/${encodeURIComponent(m.memberId)}`);
                notice = `${m.email} is removed: their sessions have ended${keys.revoked.length ? ` and their ${keys.revoked.length === 1 ? 'key is' : `${keys.revoked.length} keys are`} revoked` : ''}.`;
                await membersPage();
              }),
          },
          'Remove',
        ),
  );
  return h(
    'tr',
    { 'data-member': m.memberId },
    h('td', { 'data-label': 'E-mail' }, h('span', {}, m.email, m.you ? h('span', { class: 'hint' }, ' (you)') : null)),
    h('td', { 'data-label': 'Status' }, `${m.role === 'owner' ? 'Owner. ' : ''}${m.status === 'active' ? `Active since ${when(m.passwordSetAt)}` : 'Invited, no password yet'}`),
    h('td', { 'data-label': 'Invited' }, time(m.invitedAt)),
    actions,
  );
}

function sessionsSection(m: TeamMember, sessions: MemberSession[]) {
  const others = sessions.filter((s) => !s.current);
  const endAll = others.length
    ? h(
        'button',
        {
          type: 'button',
          class: 'danger',
          onclick: () =>
            confirmDanger(
              m.you ? 'End your other sessions?' : `End every session of ${m.email}?`,
              m.you ? 'Every session of yours except this one ends at once.' : 'Every session of this member ends at once; they can sign in again.',
              'End sessions',
              async () => {
                await api('DELETE', `/members/${encodeURIComponent(m.memberId)}/sessions`);
                notice = m.you ? 'Your other sessions have ended.' : `Every session of ${m.email} has ended.`;
                await membersPage();
              },
            ),
        },
        m.you ? 'End all other sessions' : 'End all sessions',
      )
    : null;
  return h(
    'section',
    { 'aria-labelledby': 'sessions-heading' },
    h('h2', { id: 'sessions-heading' }, `Sessions of ${m.email}`),
    sessions.length
      ? h(
          'table',
          { class: 'stack' },
          h('caption', {}, `Live sessions of ${m.email}`),
          h('thead', {}, h('tr', {}, ...['Signed in', 'Until', 'From', 'Browser', 'Actions'].map((t) => h('th', { scope: 'col' }, t)))),
          h(
            'tbody',
            {},
            ...sessions.map((s) =>
              h(
                'tr',
                { 'data-session': s.sessionId },
                h('td', { 'data-label': 'Signed in' }, time(s.createdAt)),
                h('td', { 'data-label': 'Until' }, time(s.expiresAt)),
                h('td', { 'data-label': 'From' }, s.address ?? 'unknown'),
                h('td', { 'data-label': 'Browser' }, s.userAgent ?? 'unknown'),
                h(
                  'td',
                  { 'data-label': 'Actions', class: 'actions' },
                  s.current
                    ? 'This session'
                    : h(
                        'button',
                        {
                          type: 'button',
                          class: 'danger',
                          'aria-label': `End the session of ${m.email} signed in ${when(s.createdAt)}`,
                          onclick: () => {
                            void api('DELETE', `/members/${encodeURIComponent(m.memberId)}/sessions/${encodeURIComponent(s.sessionId)}`)
                              .then(() => {
                                notice = 'The session has ended.';
                                return membersPage();
                              })
                              .catch((err: Error) => show('Something went wrong', h('p', { role: 'alert' }, err.message)));
                          },
                        },
                        'End',
                      ),
                ),
              ),
            ),
          ),
        )
      : h('p', {}, 'No live sessions.'),
    endAll,
  );
}

function passwordSection() {
  const f = form(
    'Change your password',
    [
      field('current-password', 'Current password', { type: 'password', autocomplete: 'current-password', required: true }),
      field('changed-password', 'New password', { type: 'password', autocomplete: 'new-password', required: true, minlength: 12, maxlength: 200 }, 'At least 12 characters. Your other sessions end.'),
      field('changed-repeat', 'Repeat the new password', { type: 'password', autocomplete: 'new-password', required: true }),
    ],
    'Change password',
    async (el) => {
      const password = value(el, 'changed-password');
      if (password !== value(el, 'changed-repeat')) throw new Error('The two passwords differ');
      await api('POST', '/me/password', { currentPassword: value(el, 'current-password'), password });
      notice = 'Your password is changed; your other sessions have ended.';
      await membersPage();
    },
  );
  return h('section', { 'aria-labelledby': 'password-heading' }, h('h2', { id: 'password-heading' }, 'Your password'), f);
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

/** The three kinds of answer, in the order (and colours) the usage page stacks them. */
type Counts = UsageCounts;
const errorsOf = (o: Counts): number => Object.values(o.errors).reduce((a: number, b) => a + (b ?? 0), 0);
const OUTCOMES: { label: string; color: string; pick: (o: Counts) => number }[] = [
  { label: 'Live results', color: '#1f6feb', pick: (o) => o.live },
  { label: 'Cache hits', color: '#1a7f37', pick: (o) => o.hits },
  { label: 'Errors', color: '#cf222e', pick: errorsOf },
];
/** The public status of every operation (GET /v1/status), for anyone: no session is needed. */
async function statusPage() {
  let res: Response;
  try {
    res = await fetch(`${BASE}/v1/status`);
  } catch {
    throw new Error('The service could not be reached; check the connection and try again');
  }
  if (!res.ok) throw new Error(`The status could not be read (the service answered ${res.status})`);
  const doc = (await res.json()) as StatusDocument;
  const ms = (n: number | null) => (n === null ? '–' : `≤ ${n} ms`);
  const codes = (byCode: Record<string, number>) =>
    Object.entries(byCode)
      .map(([code, n]) => `${code} ${n}`)
      .join(', ') || '–';
  const canary = (c: StatusDocument['operations'][number]['canary']) => {
    if (!c) return 'not run';
    const drift = [...c.missing.map((f) => `missing ${f}`), ...c.newlyNull.map((f) => `now null: ${f}`)];
    return `${c.ok ? 'passed' : `failed (${c.code ?? 'error'}${c.consecutiveFailures > 1 ? `, ${c.consecutiveFailures} in a row` : ''})`}${drift.length ? `; drift: ${drift.join(', ')}` : ''}, ${when(c.at)}`;
  };
  const columns = ['Operation', 'State', 'Answers 15 min', 'Success 15 min', 'p50 / p95 15 min', 'Errors 15 min', 'Items dropped 15 min', 'Answers 24 h', 'Success 24 h', 'p95 24 h', 'Last success', 'Last canary'];
  show(
    'Status',
    h('p', {}, `Each operation's state from the answers of the last 15 minutes and its canary; figures as of ${when(doc.generatedAt)}. A 404 or 422 is the caller's answer, not a failure.`),
    h(
      'table',
      { class: 'stack status' },
      h('caption', {}, 'State, answers, success share, latency of live answers and the last canary, per operation'),
      h('thead', {}, h('tr', {}, ...columns.map((t) => h('th', { scope: 'col' }, t)))),
      h(
        'tbody',
        {},
        ...doc.operations.map((o) => {
          const cells: [string, Child][] = [
            ['State', h('span', { class: `state state-${o.state.replace(/\s+/g, '-')}`, title: o.reason }, o.state)],
            ['Answers 15 min', String(o.last15m.answers)],
            ['Success 15 min', percent(o.last15m.successShare)],
            ['p50 / p95 15 min', `${ms(o.last15m.latencyMs.p50)} / ${ms(o.last15m.latencyMs.p95)}`],
            ['Errors 15 min', codes(o.last15m.byCode)],
            ['Items dropped 15 min', String(o.last15m.droppedItems ?? 0)],
            ['Answers 24 h', String(o.last24h.answers)],
            ['Success 24 h', percent(o.last24h.successShare)],
            ['p95 24 h', ms(o.last24h.latencyMs.p95)],
            ['Last success', time(o.lastSuccessAt)],
            ['Last canary', canary(o.canary)],
          ];
          return h('tr', {}, h('th', { scope: 'row', 'data-label': 'Operation' }, h('code', {}, o.path)), ...cells.map(([label, c]) => h('td', { 'data-label': label }, c)));
        }),
      ),
    ),
  );
}

async function usagePage() {
  const u = await api<UsageReport>('GET', '/usage?days=30');
  const ops = Object.keys(u.byOperation).sort();
  const labels = u.days.map((d) => d.day.slice(5));
  const perDay = (pick: (o: Counts) => number): number[] => u.days.map((d) => Object.values(d.operations).reduce((sum: number, o) => sum + pick(o), 0));
  const requestsCanvas = h('canvas', {
    role: 'img',
    'aria-label': `Requests per day over the last 30 days: ${u.totals.live} live results, ${u.totals.hits} cache hits and ${u.totals.errorCount} errors`,
  });
  const creditsCanvas = h('canvas', { role: 'img', 'aria-label': `Credits used per day over the last 30 days, by operation: ${u.totals.credits} in all` });
  const codes = (Object.entries(u.totals.byCode) as [string, number][]).sort(([, a], [, b]) => b - a);
  const codeRow = ([code, n]: [string, number]) => {
    const status = String(ERROR_STATUS[code as keyof typeof ERROR_STATUS] ?? '');
    return h(
      'tr',
      {},
      h('td', { 'data-label': 'Code' }, h('code', {}, code)),
      h('td', { 'data-label': 'Status', class: 'num' }, status),
      h('td', { 'data-label': 'Errors', class: 'num' }, String(n)),
      h('td', { 'data-label': 'Requests' }, h('a', { href: `${PAGE_ROOT}/requests?status=${status}` }, `Show the ${status} answers`)),
    );
  };
  const opRow = (op: string) => {
    const o = u.byOperation[op]!;
    return h(
      'tr',
      {},
      h('td', { 'data-label': 'Operation' }, op),
      h('td', { 'data-label': 'Requests', class: 'num' }, String(o.requests)),
      h('td', { 'data-label': 'Live results', class: 'num' }, String(o.live)),
      h('td', { 'data-label': 'Cache hits', class: 'num' }, String(o.hits)),
      h('td', { 'data-label': 'Errors', class: 'num' }, String(o.errorCount)),
      h('td', { 'data-label': 'Cache-hit share', class: 'num' }, percent(o.cacheHitShare)),
      h('td', { 'data-label': 'Credits', class: 'num' }, String(o.credits)),
    );
  };
  const total = (label: string, value: string, bad = false) => h('div', { class: bad ? 'bad' : undefined }, h('dt', {}, label), h('dd', {}, value));
  show(
    'Usage',
    h(
      'dl',
      { class: 'totals' },
      total('Requests, 30 days', String(u.totals.requests)),
      total('Live results', String(u.totals.live)),
      total('Cache hits', String(u.totals.hits)),
      total('Errors', String(u.totals.errorCount), u.totals.errorCount > 0),
      total('Credits used', String(u.totals.credits)),
      total('Cache-hit share', percent(u.totals.cacheHitShare)),
    ),
    h(
      'p',
      { class: 'hint' },
      'Every answered request is counted: live results (1 credit), cache hits and errors (free). ',
      h('a', { href: `${PAGE_ROOT}/requests?status=error` }, 'The failed requests of the last 7 days'),
      '.',
    ),
    h('section', { 'aria-labelledby': 'req-heading' }, h('h2', { id: 'req-heading' }, 'Requests per day'), h('div', { class: 'chart' }, requestsCanvas)),
    h(
      'section',
      { 'aria-labelledby': 'codes-heading' },
      h('h2', { id: 'codes-heading' }, 'Errors by code'),
      codes.length
        ? h(
            'table',
            { class: 'stack' },
            h('caption', {}, 'Error answers over the last 30 days, by code'),
            h('thead', {}, h('tr', {}, ...['Code', 'Status', 'Errors', 'Requests'].map((t) => h('th', { scope: 'col' }, t)))),
            h('tbody', {}, ...codes.map(codeRow)),
          )
        : h('p', {}, 'No errors in the last 30 days.'),
    ),
    h('section', { 'aria-labelledby': 'cred-heading' }, h('h2', { id: 'cred-heading' }, 'Credits per day'), h('div', { class: 'chart' }, creditsCanvas)),
    h(
      'section',
      { 'aria-labelledby': 'ops-heading' },
      h('h2', { id: 'ops-heading' }, 'By operation'),
      ops.length
        ? h(
            'table',
            { class: 'stack' },
            h('caption', {}, 'Requests, live results, cache hits, errors and credits per operation over the last 30 days'),
            h('thead', {}, h('tr', {}, ...['Operation', 'Requests', 'Live results', 'Cache hits', 'Errors', 'Cache-hit share', 'Credits'].map((t) => h('th', { scope: 'col' }, t)))),
            h('tbody', {}, ...ops.map(opRow)),
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
  const creditsData = ops.map((op, i) => ({ label: op, data: u.days.map((d) => d.operations[op]?.credits ?? 0), backgroundColor: COLORS[i % COLORS.length] }));
  charts = [
    new Chart(requestsCanvas, { type: 'bar', data: { labels, datasets: OUTCOMES.map((o) => ({ label: o.label, data: perDay(o.pick), backgroundColor: o.color })) }, options }),
    new Chart(creditsCanvas, { type: 'bar', data: { labels, datasets: creditsData }, options }),
  ];
}

const OPERATION_IDS: string[] = Object.values(OPERATIONS)
  .filter((o) => o.status === 'live')
  .map((o) => o.id);
const STATUS_CHOICES: [string, string][] = [
  ['', 'All answers'],
  ['error', 'Errors (400 and above)'],
  ...['200', '400', '402', '404', '422', '503'].map((st): [string, string] => [st, st]),
];

/** The query of the requests page without its cursor: the newest page of the same filters. */
function withoutCursor(q: URLSearchParams): string {
  const f = new URLSearchParams(q);
  f.delete('cursor');
  const s = f.toString();
  return s ? `?${s}` : '';
}

function choice(id: string, label: string, options: [string, string][], value: string | null): HTMLDivElement {
  const select = h('select', { id, name: id });
  for (const [v, text] of options) select.append(h('option', { value: v, selected: v === (value ?? '') }, text));
  return h('div', { class: 'field' }, h('label', { for: id }, label), select);
}

function requestRow(q: RequestsReport['requests'][number]): HTMLTableRowElement {
  return h(
    'tr',
    {},
    h('td', { 'data-label': 'Time' }, h('time', { datetime: q.time }, `${q.time.slice(0, 10)} ${q.time.slice(11, 19)} UTC`)),
    h('td', { 'data-label': 'Operation' }, q.operation),
    h('td', { 'data-label': 'Key' }, q.keyName ?? (q.keyId ? h('code', {}, q.keyId) : '–')),
    h('td', { 'data-label': 'Status', class: 'num' }, h('span', { class: `status ${q.status < 400 ? 'active' : 'revoked'}` }, String(q.status))),
    h('td', { 'data-label': 'Error code' }, q.code ? h('code', {}, q.code) : '–'),
    h('td', { 'data-label': 'Credits', class: 'num' }, String(q.credits)),
    h('td', { 'data-label': 'Cached' }, q.cached ? 'yes' : 'no'),
    h('td', { 'data-label': 'Latency', class: 'num' }, `${q.ms} ms`),
    h('td', { 'data-label': 'Request ID' }, h('code', {}, q.requestId)),
  );
}

/** The last 7 days of requests, newest first: the filters in the page's query, one page at a time. */
async function requestsPage(params: URLSearchParams) {
  const query = new URLSearchParams();
  for (const name of ['operation', 'status', 'cursor']) {
    const value = params.get(name);
    if (value) query.set(name, value);
  }
  const r = await api<RequestsReport>('GET', `/requests?${query.toString()}`);
  const filtered = query.has('operation') || query.has('status');
  const filters = h(
    'form',
    {
      class: 'filters',
      onsubmit: (e: Event) => {
        e.preventDefault();
        const f = e.target as HTMLFormElement;
        const next = new URLSearchParams();
        for (const name of ['operation', 'status']) {
          const v = (f.elements.namedItem(name) as HTMLSelectElement).value;
          if (v) next.set(name, v);
        }
        navigate('requests', withoutCursor(next));
      },
    },
    choice('operation', 'Operation', [['', 'All operations'], ...OPERATION_IDS.map((id): [string, string] => [id, id])], query.get('operation')),
    choice('status', 'Status', STATUS_CHOICES, query.get('status')),
    h('button', { type: 'submit' }, 'Show'),
  );
  const older = new URLSearchParams(query);
  if (r.cursor) older.set('cursor', r.cursor);
  const go = (search: string) => (e: Event) => {
    e.preventDefault();
    navigate('requests', search);
  };
  const paging = h('p', { class: 'paging' });
  if (query.has('cursor')) paging.append(h('a', { href: `${PAGE_ROOT}/requests${withoutCursor(query)}`, onclick: go(withoutCursor(query)) }, 'Newest requests'));
  if (r.cursor) paging.append(h('a', { href: `${PAGE_ROOT}/requests?${older.toString()}`, onclick: go(`?${older.toString()}`) }, 'Older requests'));
  const caption = `${r.requests.length} request${r.requests.length === 1 ? '' : 's'}${filtered ? ' matching the filters' : ''}${query.has('cursor') ? ' (an older page)' : ''}`;
  show(
    'Requests',
    h('p', { class: 'hint' }, "Your team's requests of the last 7 days, newest first: every answer, errors included. Reading them costs nothing."),
    filters,
    r.requests.length
      ? h(
          'table',
          { class: 'stack requests' },
          h('caption', {}, caption),
          h('thead', {}, h('tr', {}, ...['Time', 'Operation', 'Key', 'Status', 'Error code', 'Credits', 'Cached', 'Latency', 'Request ID'].map((t) => h('th', { scope: 'col' }, t)))),
          h('tbody', {}, ...r.requests.map(requestRow)),
        )
      : h('p', {}, filtered ? 'No requests match these filters in the last 7 days.' : 'No requests in the last 7 days.'),
    paging,
  );
}

// ---- monitors ---------------------------------------------------------------------------------

/** The monitorable operations and their query parameters, built into the page (dashboard/build.ts). */
declare const MONITOR_FORMS: MonitorForm[];
type Monitor = ReturnType<typeof publicMonitor> & { secret?: string };
type MonitorDelivery = ReturnType<typeof publicDelivery>;

const PAUSED_BECAUSE: Record<string, string> = {
  by_request: 'paused by hand',
  no_credits: 'no credit left: resume it after topping up',
  not_found: 'the watched thing is gone (404)',
  deliveries_failing: 'deliveries failed for 3 days',
};
const every = (s: number) => (s % 3600 === 0 ? `every ${s / 3600} h` : s % 60 === 0 ? `every ${s / 60} min` : `every ${s} s`);
const enc = encodeURIComponent;

/** The monitor whose signing secret is shown once (after create or rotate), whose deliveries are open, and the form's operation. */
let freshMonitor: Monitor | undefined;
let deliveriesOf: string | undefined;
let monitorOperation = MONITOR_FORMS[0]?.id ?? '';
/** What a test or redelivery answered: queued (the delivery worker sends it), or its state when already settled. */
const deliveryOutcome = (d: MonitorDelivery) => (d.state === 'pending' ? 'queued, sent within a minute (Refresh shows it)' : `${d.state}${d.lastStatus ? ` (${d.lastStatus})` : ''}`);

/** A row action's failure (pause, test, redeliver): shown at the top of the page. */
const monitorsAlert = h('p', { class: 'error', role: 'alert' });

async function monitorsPage() {
  const { monitors } = await monitorsApi<{ monitors: Monitor[] }>('GET', '');
  if (deliveriesOf && !monitors.some((m) => m.id === deliveriesOf)) deliveriesOf = undefined;
  const open = monitors.find((m) => m.id === deliveriesOf);
  const deliveries = open ? (await monitorsApi<{ deliveries: MonitorDelivery[] }>('GET', `/${enc(open.id)}/deliveries`)).deliveries : [];
  monitorsAlert.textContent = '';
  const table = monitors.length
    ? h(
        'table',
        { class: 'stack monitors' },
        h('caption', {}, `Monitors of ${me?.team.name || 'your team'}`),
        h('thead', {}, h('tr', {}, ...['Watches', 'Interval', 'Webhook URL', 'Status', 'Polls', 'Actions'].map((t) => h('th', { scope: 'col' }, t)))),
        h('tbody', {}, ...monitors.map(monitorRow)),
      )
    : h('p', {}, 'No monitors yet: create one above.');
  show(
    'Monitors',
    h('p', { class: 'hint' }, 'A monitor repeats one request at its interval and POSTs what is new to your webhook, signed with its secret. A poll costs credits like your own request (0 when a recent cached answer serves); deliveries are free.'),
    h('section', { 'aria-labelledby': 'create-heading' }, h('h2', { id: 'create-heading' }, 'Create a monitor'), monitorForm()),
    monitorSecretPanel(),
    monitorsAlert,
    h('section', { 'aria-label': 'Monitors' }, table),
    open ? deliveriesSection(open, deliveries) : null,
    confirmDialog,
  );
  if (freshMonitor) (document.getElementById('new-secret') as HTMLInputElement | null)?.focus();
}

function monitorSecretPanel() {
  const m = freshMonitor;
  if (!m?.secret) return null;
  return secretPanel(`Signing secret of the ${m.operation} monitor`, `Signing secret of monitor ${m.id}`, m.secret, 'your receiver checks each delivery’s webhook-signature with it', () => {
    freshMonitor = undefined;
    void monitorsPage();
  });
}

/** The form of one operation: its own query parameters, then the interval and the webhook URL. */
function monitorForm() {
  const params = h('div', { class: 'params' });
  const showParams = (id: string) => {
    monitorOperation = id;
    const def = MONITOR_FORMS.find((f) => f.id === id);
    params.replaceChildren(
      h('p', { class: 'hint', id: 'mon-operation-hint' }, def?.summary ?? ''),
      ...(def?.params ?? []).map(paramField),
      ...(def && !def.params.length ? [h('p', { class: 'hint' }, 'This operation takes no parameters.')] : []),
    );
  };
  const operation = choice('mon-operation', 'Operation', MONITOR_FORMS.map((f): [string, string] => [f.id, f.id]), monitorOperation);
  const select = operation.querySelector('select')!;
  select.dataset.path = 'operation';
  select.setAttribute('aria-describedby', 'mon-operation-hint');
  select.addEventListener('change', () => showParams(select.value));
  showParams(monitorOperation);
  const f = form(
    'Create a monitor',
    [
      operation,
      params,
      field('mon-interval', 'Interval in seconds', { type: 'number', required: true, min: 1, max: 86400, step: 1, value: '300', inputmode: 'numeric', 'data-path': 'intervalSeconds' }, 'From 60 (one minute) to 86,400 (a day).'),
      field('mon-webhook', 'Webhook URL', { type: 'url', required: true, autocomplete: 'off', placeholder: 'https://example.com/hooks/social', 'data-path': 'webhookUrl' }, 'https on a public address; each event is POSTed there, signed.'),
    ],
    'Create monitor',
    async (el) => {
      clearFieldErrors(el);
      const def = MONITOR_FORMS.find((x) => x.id === select.value);
      const values = (def?.params ?? []).map((p): [string, string] => [p.name, value(el, `mon-param-${p.name}`).trim()]).filter(([, v]) => v !== '');
      const body = { operation: select.value, params: Object.fromEntries(values), intervalSeconds: Number(value(el, 'mon-interval')), webhookUrl: value(el, 'mon-webhook').trim() };
      try {
        const { monitor } = await monitorsApi<{ monitor: Monitor }>('POST', '', body);
        freshMonitor = monitor;
        notice = `The ${monitor.operation} monitor is created: its first poll sets the baseline and sends monitor.ready.`;
      } catch (err) {
        throw fieldErrors(el, err);
      }
      await monitorsPage();
    },
  );
  f.classList.add('monitor');
  return f;
}

/** A parameter's input (a choice when the operation lists its values), labelled by its name, its description as hint. */
function paramField(p: MonitorForm['params'][number]) {
  const id = `mon-param-${p.name}`;
  const label = `${p.name}${p.required ? '' : ' (optional)'}`;
  const values = p.schema.enum as string[] | undefined;
  if (!values) return field(id, label, { type: 'text', required: p.required, autocomplete: 'off', spellcheck: 'false', placeholder: p.example, maxlength: p.schema.maxLength as number | undefined, 'data-path': `params.${p.name}` }, p.description);
  const el = choice(id, label, [['', 'default'], ...values.map((v): [string, string] => [v, v])], '');
  const select = el.querySelector('select')!;
  select.dataset.path = `params.${p.name}`;
  select.setAttribute('aria-describedby', `${id}-hint`);
  el.append(h('p', { class: 'hint', id: `${id}-hint` }, p.description));
  return el;
}

function clearFieldErrors(f: HTMLFormElement) {
  for (const e of Array.from(f.querySelectorAll('.field-error'))) e.remove();
  for (const c of Array.from(f.querySelectorAll('[aria-invalid]'))) {
    c.removeAttribute('aria-invalid');
    c.setAttribute('aria-describedby', (c.getAttribute('aria-describedby') ?? '').replace(/\s*\S+-error$/, ''));
  }
}

/**
 * A 422's details next to the fields they name (`data-path`), each control marked invalid and
 * described by its message; returns the error for the form's alert line (the details no field shows).
 */
function fieldErrors(f: HTMLFormElement, err: unknown): Error {
  if (!(err instanceof ApiFailure) || !err.details.length) return err as Error;
  const unplaced: string[] = [];
  for (const d of err.details) {
    const control = f.querySelector<HTMLElement>(`[data-path="${CSS.escape(d.path)}"]`);
    if (!control) {
      unplaced.push(`${d.path}: ${d.message}`);
      continue;
    }
    const id = `${control.id}-error`;
    control.closest('.field')!.append(h('p', { class: 'error field-error', id }, d.message));
    control.setAttribute('aria-invalid', 'true');
    control.setAttribute('aria-describedby', `${control.getAttribute('aria-describedby') ?? ''} ${id}`.trim());
  }
  (f.querySelector('[aria-invalid]') as HTMLElement | null)?.focus();
  return new Error(['Check the marked fields.', ...unplaced].join(' '));
}

/** A row's button: disabled while it runs; a failure goes to the page's alert line (a lost session to sign-in). */
function rowAction(text: string, label: string, run: () => Promise<void>, cls = 'secondary', attrs: Record<string, string> = {}) {
  const b = h('button', { type: 'button', class: cls, 'aria-label': label, ...attrs }, text);
  b.addEventListener('click', () => {
    b.disabled = true;
    monitorsAlert.textContent = '';
    run().catch((err: Error) => {
      b.disabled = false;
      if (err instanceof ApiFailure && err.status === 401) return void render();
      monitorsAlert.textContent = err.message;
    });
  });
  return b;
}

function monitorRow(m: Monitor): HTMLTableRowElement {
  const name = `${m.operation} monitor ${m.id}`;
  const params = Object.entries(m.params);
  const paused = m.status === 'paused';
  const setStatus = (status: 'active' | 'paused') => async () => {
    await monitorsApi('PATCH', `/${enc(m.id)}`, { status });
    notice = status === 'paused' ? `The ${m.operation} monitor is paused.` : `The ${m.operation} monitor is active again: it polls now.`;
    await monitorsPage();
  };
  const actions = h(
    'td',
    { 'data-label': 'Actions', class: 'actions' },
    paused ? rowAction('Resume', `Resume ${name}`, setStatus('active')) : rowAction('Pause', `Pause ${name}`, setStatus('paused')),
    rowAction('Send test event', `Send a test event to ${name}`, async () => {
      const { delivery } = await monitorsApi<{ delivery: MonitorDelivery }>('POST', `/${enc(m.id)}/test`, {});
      notice = `Test event ${delivery.eventId}: ${deliveryOutcome(delivery)}.`;
      deliveriesOf = m.id;
      await monitorsPage();
    }),
    rowAction(
      'Deliveries',
      `Deliveries of ${name}`,
      async () => {
        deliveriesOf = deliveriesOf === m.id ? undefined : m.id;
        await monitorsPage();
      },
      'secondary',
      { 'aria-expanded': String(deliveriesOf === m.id) },
    ),
    h('button', { type: 'button', class: 'secondary', 'aria-label': `Rotate the secret of ${name}`, onclick: () => confirmRotate(m) }, 'Rotate secret'),
    h('button', { type: 'button', class: 'danger', 'aria-label': `Delete ${name}`, onclick: () => confirmDelete(m) }, 'Delete'),
  );
  return h(
    'tr',
    { 'data-monitor': m.id },
    // One element per cell: below 640 px each cell is a grid of its label and its content.
    h('td', { 'data-label': 'Watches' }, h('div', {}, h('code', { class: 'operation' }, m.operation), h('div', { class: 'params-list' }, params.length ? params.map(([k, v]) => `${k}=${v}`).join(', ') : 'no parameters'))),
    h('td', { 'data-label': 'Interval', class: 'nowrap' }, every(m.intervalSeconds)),
    h('td', { 'data-label': 'Webhook URL' }, h('code', {}, m.webhookUrl)),
    h('td', { 'data-label': 'Status' }, h('div', {}, h('span', { class: `status ${m.status}` }, paused ? 'Paused' : 'Active'), paused && m.pausedReason ? h('div', { class: 'hint' }, PAUSED_BECAUSE[m.pausedReason] ?? m.pausedReason) : null)),
    h(
      'td',
      { 'data-label': 'Polls' },
      h('div', {}, h('div', {}, 'Last: ', time(m.lastPollAt), m.lastPollStatus ? ` (${m.lastPollStatus})` : ''), h('div', {}, 'Next: ', m.nextPollAt ? time(m.nextPollAt) : '–')),
    ),
    actions,
  );
}

function confirmDelete(m: Monitor) {
  confirmDanger(`Delete the ${m.operation} monitor?`, 'It stops polling and its deliveries are no longer listed. This cannot be undone.', 'Delete monitor', async () => {
    await monitorsApi('DELETE', `/${enc(m.id)}`);
    notice = `The ${m.operation} monitor is deleted.`;
    await monitorsPage();
  });
}

function confirmRotate(m: Monitor) {
  confirmDanger(`Rotate the signing secret of the ${m.operation} monitor?`, 'The new secret is shown once. For 24 h every delivery is signed with both, so receivers can switch; then only the new one signs.', 'Rotate secret', async () => {
    freshMonitor = (await monitorsApi<{ monitor: Monitor }>('POST', `/${enc(m.id)}/rotate-secret`, {})).monitor;
    await monitorsPage();
  });
}

const DELIVERY_STATE: Record<string, string> = { delivered: 'active', pending: 'paused', failed: 'revoked' };

function deliveriesSection(m: Monitor, deliveries: MonitorDelivery[]) {
  const name = `${m.operation} monitor ${m.id}`;
  const row = (d: MonitorDelivery) =>
    h(
      'tr',
      { 'data-event': d.eventId },
      h('td', { 'data-label': 'Event ID' }, h('code', { class: 'event-id' }, d.eventId)),
      h('td', { 'data-label': 'Type' }, d.type),
      h('td', { 'data-label': 'Created' }, time(d.createdAt)),
      h('td', { 'data-label': 'State' }, h('span', { class: `status ${DELIVERY_STATE[d.state] ?? ''}` }, d.state)),
      h('td', { 'data-label': 'Attempts', class: 'num' }, String(d.attempts)),
      h('td', { 'data-label': 'Last status' }, d.lastStatus ? String(d.lastStatus) : (d.lastError ?? '–')),
      h('td', { 'data-label': 'Latency', class: 'num' }, d.latencyMs === null ? '–' : `${d.latencyMs} ms`),
      h('td', { 'data-label': 'Next retry' }, d.nextRetryAt ? time(d.nextRetryAt) : '–'),
      h(
        'td',
        { 'data-label': 'Actions', class: 'actions' },
        rowAction('Redeliver', `Redeliver event ${d.eventId}`, async () => {
          const { delivery } = await monitorsApi<{ delivery: MonitorDelivery }>('POST', `/${enc(m.id)}/deliveries/${enc(d.eventId)}/redeliver`, {});
          notice = `Event ${delivery.eventId} sent again: ${deliveryOutcome(delivery)}.`;
          await monitorsPage();
        }),
      ),
    );
  return h(
    'section',
    { 'aria-labelledby': 'deliveries-heading' },
    h('h2', { id: 'deliveries-heading' }, `Deliveries of the ${m.operation} monitor`),
    h('p', { class: 'hint' }, 'The last 7 days, newest first. A redelivery sends the same event again with the same webhook-id, which receivers de-duplicate on. ', rowAction('Refresh', `Refresh the deliveries of ${name}`, monitorsPage)),
    deliveries.length
      ? h(
          'table',
          { class: 'stack deliveries' },
          h('caption', {}, `Events of ${name}`),
          h('thead', {}, h('tr', {}, ...['Event ID', 'Type', 'Created', 'State', 'Attempts', 'Last status', 'Latency', 'Next retry', 'Actions'].map((t) => h('th', { scope: 'col' }, t)))),
          h('tbody', {}, ...deliveries.map(row)),
        )
      : h('p', {}, 'No events in the last 7 days.'),
  );
}

void render();
