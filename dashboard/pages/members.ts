/** The team's members and their sessions; one's own password. Removing a member and another's sessions are an owner's. */
import type { MemberSession, TeamMember } from '../../client/index';
import { api } from '../lib/api';
import { when } from '../lib/format';
import { html, useState } from '../lib/html';
import { Action, Confirm, Field, Form, Page, Table, Td, Time, useLoad, valueOf, type PageProps, type Question } from '../lib/ui';

export function MembersPage({ app, notice: arrived }: PageProps) {
  const [open, setOpen] = useState<string | undefined>(undefined);
  const data = useLoad(
    app,
    async () => {
      const { members } = (await api.session.members()).data;
      const shown = members.find((m) => m.memberId === open);
      const sessions = shown ? (await api.session.sessions(shown.memberId)).data.sessions : [];
      return { members, shown, sessions };
    },
    [open],
  );
  const [question, setQuestion] = useState<Question | null>(null);
  const [notice, setNotice] = useState(arrived);
  const done = async (text: string) => {
    await data.reload();
    setNotice(text);
  };
  const owner = app.me?.role === 'owner';

  const remove = (m: TeamMember) =>
    setQuestion({
      title: `Remove ${m.email}?`,
      text: 'Their sessions end at once, the API keys they hold are revoked and their invitation links stop working. The operator can invite them again.',
      button: 'Remove member',
      act: async () => {
        const { keys } = (await api.session.removeMember(m.memberId)).data;
        if (open === m.memberId) setOpen(undefined);
        await done(`${m.email} is removed: their sessions have ended${keys.revoked.length ? ` and their ${keys.revoked.length === 1 ? 'key is' : `${keys.revoked.length} keys are`} revoked` : ''}.`);
      },
    });
  const row = (m: TeamMember) => html`<tr data-member=${m.memberId}>
    <${Td} label="E-mail"><span>${m.email}${m.you ? html`<span class="hint"> (you)</span>` : null}</span><//>
    <${Td} label="Status">${`${m.role === 'owner' ? 'Owner. ' : ''}${m.status === 'active' ? `Active since ${when(m.passwordSetAt)}` : 'Invited, no password yet'}`}<//>
    <${Td} label="Invited"><${Time} iso=${m.invitedAt} /><//>
    <${Td} label="Actions" cls="actions">
      ${owner || m.you
        ? html`<button type="button" class="secondary" aria-label=${`Sessions of ${m.email}`} aria-expanded=${String(open === m.memberId)}
            onClick=${() => setOpen(open === m.memberId ? undefined : m.memberId)}>Sessions</button>`
        : null}
      ${owner && !m.you ? html`<button type="button" class="danger" aria-label=${`Remove ${m.email}`} onClick=${() => remove(m)}>Remove</button>` : null}
    <//>
  </tr>`;

  const d = data.data;
  return html`<${Page} title="Members" notice=${notice} error=${data.error}>
    <p class="hint">The operator invites new members and names the team's owners (admin CLI). Owners remove members: their sessions end at once and the API keys they hold are revoked.</p>
    <section aria-label="Members">
      ${d ? html`<${Table} caption=${`Members of ${app.me?.team.name || 'your team'}`} columns=${['E-mail', 'Status', 'Invited', 'Actions']}>${d.members.map(row)}<//>` : null}
    </section>
    ${d?.shown ? html`<${Sessions} m=${d.shown} sessions=${d.sessions} ask=${setQuestion} done=${done} fail=${data.fail} />` : null}
    <${PasswordForm} done=${done} />
    <${Confirm} question=${question} close=${() => setQuestion(null)} />
  <//>`;
}

function Sessions({ m, sessions, ask, done, fail }: { m: TeamMember; sessions: MemberSession[]; ask: (q: Question) => void; done: (notice: string) => Promise<void>; fail: (err: unknown) => void }) {
  const endAll = () =>
    ask({
      title: m.you ? 'End your other sessions?' : `End every session of ${m.email}?`,
      text: m.you ? 'Every session of yours except this one ends at once.' : 'Every session of this member ends at once; they can sign in again.',
      button: 'End sessions',
      act: async () => {
        await api.session.endSessions(m.memberId);
        await done(m.you ? 'Your other sessions have ended.' : `Every session of ${m.email} has ended.`);
      },
    });
  const row = (s: MemberSession) => html`<tr data-session=${s.sessionId}>
    <${Td} label="Signed in"><${Time} iso=${s.createdAt} /><//>
    <${Td} label="Until"><${Time} iso=${s.expiresAt} /><//>
    <${Td} label="From">${s.address ?? 'unknown'}<//>
    <${Td} label="Browser">${s.userAgent ?? 'unknown'}<//>
    <${Td} label="Actions" cls="actions">
      ${s.current
        ? 'This session'
        : html`<${Action} text="End" cls="danger" label=${`End the session of ${m.email} signed in ${when(s.createdAt)}`} fail=${fail}
            run=${async () => {
              await api.session.endSession(m.memberId, s.sessionId);
              await done('The session has ended.');
            }} />`}
    <//>
  </tr>`;
  return html`<section aria-labelledby="sessions-heading">
    <h2 id="sessions-heading">Sessions of ${m.email}</h2>
    ${sessions.length
      ? html`<${Table} caption=${`Live sessions of ${m.email}`} columns=${['Signed in', 'Until', 'From', 'Browser', 'Actions']}>${sessions.map(row)}<//>`
      : html`<p>No live sessions.</p>`}
    ${sessions.some((s) => !s.current) ? html`<button type="button" class="danger" onClick=${endAll}>${m.you ? 'End all other sessions' : 'End all sessions'}</button>` : null}
  </section>`;
}

function PasswordForm({ done }: { done: (notice: string) => Promise<void> }) {
  const submit = async (f: HTMLFormElement) => {
    const password = valueOf(f, 'changed-password');
    if (password !== valueOf(f, 'changed-repeat')) throw new Error('The two passwords differ');
    await api.session.changePassword(valueOf(f, 'current-password'), password);
    f.reset();
    await done('Your password is changed; your other sessions have ended.');
  };
  return html`<section aria-labelledby="password-heading">
    <h2 id="password-heading">Your password</h2>
    <${Form} label="Change your password" submit="Change password" onSubmit=${submit}>
      <${Field} id="current-password" label="Current password" attrs=${{ type: 'password', autocomplete: 'current-password', required: true }} />
      <${Field} id="changed-password" label="New password" hint="At least 12 characters. Your other sessions end." attrs=${{ type: 'password', autocomplete: 'new-password', required: true, minlength: 12, maxlength: 200 }} />
      <${Field} id="changed-repeat" label="Repeat the new password" attrs=${{ type: 'password', autocomplete: 'new-password', required: true }} />
    <//>
  </section>`;
}
