/**
 * The account dashboard: a small single-page app over the account, monitors and jobs APIs, every call
 * through the typed client (client/index.ts, session mode). This module is the shell: the router
 * (paths below /dashboard, as the dashboard function serves them), the header and the session;
 * each page is its own module under pages/. The status page needs no session.
 */
import type { Member } from '../client/index';
import { BASE, PAGE_ROOT, api } from './lib/api';
import { html, render, useEffect, useState } from './lib/html';
import type { App, PageProps } from './lib/ui';
import { CreditsPage } from './pages/credits';
import { KeysPage } from './pages/keys';
import { MembersPage } from './pages/members';
import { MonitorsPage } from './pages/monitors';
import { JobsPage } from './pages/jobs';
import { RequestsPage } from './pages/requests';
import { SetPasswordPage, SignInPage } from './pages/sign-in';
import { StatusPage } from './pages/status';
import { UsagePage } from './pages/usage';
import { WebhooksPage } from './pages/webhooks';

type PageComponent = (props: PageProps) => unknown;

/** The pages a member reaches from the header, in its order; the public ones need no session. */
const NAV: { page: string; text: string; component: PageComponent }[] = [
  { page: 'keys', text: 'Keys', component: KeysPage },
  { page: 'credits', text: 'Credits', component: CreditsPage },
  { page: 'usage', text: 'Usage', component: UsagePage },
  { page: 'requests', text: 'Requests', component: RequestsPage },
  { page: 'monitors', text: 'Monitors', component: MonitorsPage },
  { page: 'jobs', text: 'Jobs', component: JobsPage },
  { page: 'webhooks', text: 'Webhooks', component: WebhooksPage },
  { page: 'members', text: 'Members', component: MembersPage },
];
const PUBLIC: Record<string, PageComponent> = { status: StatusPage, 'set-password': SetPasswordPage, 'sign-in': SignInPage };

interface Location {
  page: string;
  query: URLSearchParams;
  notice?: string;
}
const here = (notice?: string): Location => ({
  page: location.pathname.slice(PAGE_ROOT.length).replace(/^\/+|\/+$/g, ''),
  query: new URLSearchParams(location.search),
  notice,
});

const ROUTE_EVENT = 'dashboard:route';
function navigate(page: string, query = '', opts: { replace?: boolean; notice?: string } = {}) {
  const url = `${PAGE_ROOT}${page ? `/${page}` : ''}${query}`;
  if (opts.replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  window.dispatchEvent(new CustomEvent(ROUTE_EVENT, { detail: opts.notice }));
}

/** A link to a page, followed without reloading (a modified click opens it as the browser does). */
function PageLink({ page, text, current }: { page: string; text: string; current: string }) {
  const click = (e: MouseEvent) => {
    if (e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return;
    e.preventDefault();
    navigate(page);
  };
  return html`<li><a href=${`${PAGE_ROOT}/${page}`} aria-current=${page === current ? 'page' : undefined} onClick=${click}>${text}</a></li>`;
}

function Header({ me, current, signOut }: { me: Member | null | undefined; current: string; signOut: () => void }) {
  return html`<div class="bar">
    <p class="brand">Social data API<span> · dashboard</span></p>
    <nav aria-label=${me ? 'Dashboard' : 'Public'}>
      <ul>
        ${me ? NAV.map((n) => html`<${PageLink} page=${n.page} text=${n.text} current=${current} />`) : null}
        <${PageLink} page="status" text="Status" current=${current} />
        <li><a href=${`${BASE}/docs`}>API reference</a></li>
      </ul>
    </nav>
    ${me
      ? html`<div class="who">
          <span class="team">${me.team.name || me.team.teamId}</span>
          <span class="email" title=${me.email}>${me.email}</span>
          <button type="button" class="secondary" onClick=${signOut}>Sign out</button>
        </div>`
      : null}
  </div>`;
}

function Dashboard() {
  const [loc, setLoc] = useState(here());
  // undefined: not asked yet; null: no session.
  const [me, setMe] = useState<Member | null | undefined>(undefined);
  useEffect(() => {
    const popped = () => setLoc(here());
    const routed = (e: Event) => setLoc(here((e as CustomEvent<string | undefined>).detail));
    window.addEventListener('popstate', popped);
    window.addEventListener(ROUTE_EVENT, routed);
    return () => {
      window.removeEventListener('popstate', popped);
      window.removeEventListener(ROUTE_EVENT, routed);
    };
  }, []);
  const isPublic = loc.page === 'status' || loc.page === 'set-password';
  useEffect(() => {
    if (me !== undefined || isPublic) return;
    api.session.me().then(
      ({ data }) => setMe(data),
      () => setMe(null),
    );
  }, [me, isPublic]);

  const app: App = {
    me,
    navigate,
    signedIn: (member) => {
      setMe(member);
      navigate('keys', '', { replace: true });
    },
    sessionEnded: () => {
      setMe(null);
      navigate('sign-in', '', { replace: true, notice: 'Your session has ended; sign in again.' });
    },
    signOut: () => {
      void api.session
        .signOut()
        .catch(() => undefined)
        .then(() => {
          setMe(null);
          navigate('sign-in', '', { replace: true, notice: 'You are signed out.' });
        });
    },
  };

  let Page: PageComponent | undefined = PUBLIC[loc.page];
  let redirect: string | undefined;
  if (!isPublic) {
    if (me === undefined) Page = undefined; // asking who is signed in
    else if (!me && loc.page !== 'sign-in') redirect = 'sign-in';
    else if (me && loc.page === 'sign-in') redirect = 'keys';
    else if (me) {
      Page = NAV.find((n) => n.page === loc.page)?.component;
      if (!Page) redirect = 'keys';
    }
  }
  useEffect(() => {
    if (redirect) navigate(redirect, '', { replace: true, notice: loc.notice });
  }, [redirect]);
  const current = loc.page || 'keys';
  return html`<a class="skip" href="#main">Skip to content</a>
    <header class="top"><${Header} me=${me} current=${current} signOut=${app.signOut} /></header>
    <main id="main" tabindex="-1">
      ${Page && !redirect ? html`<${Page} key=${`${loc.page}?${loc.query.toString()}`} app=${app} query=${loc.query} notice=${loc.notice} />` : null}
    </main>`;
}

render(html`<${Dashboard} />`, document.getElementById('app')!);
