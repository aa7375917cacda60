/** Sign-in, and setting one's password from the invitation link (no session needed for either). */
import { api } from '../lib/api';
import { html } from '../lib/html';
import { Field, Form, Page, valueOf, type PageProps } from '../lib/ui';

export function SignInPage({ app, query, notice }: PageProps) {
  const submit = async (f: HTMLFormElement) => {
    const { data } = await api.session.signIn(valueOf(f, 'email'), valueOf(f, 'password'));
    app.signedIn(data);
  };
  return html`<${Page} title="Sign in" notice=${notice}>
    <p>Members of a team sign in with the e-mail address they were invited with.</p>
    <${Form} label="Sign in" submit="Sign in" onSubmit=${submit}>
      <${Field} id="email" label="E-mail" attrs=${{ type: 'email', autocomplete: 'username', required: true, defaultValue: query.get('email') ?? '' }} />
      <${Field} id="password" label="Password" attrs=${{ type: 'password', autocomplete: 'current-password', required: true }} />
    <//>
  <//>`;
}

export function SetPasswordPage({ app, query }: PageProps) {
  const submit = async (f: HTMLFormElement) => {
    const password = valueOf(f, 'new-password');
    if (password !== valueOf(f, 'repeat-password')) throw new Error('The two passwords differ');
    const { data } = await api.session.setPassword(query.get('token') ?? '', password);
    app.navigate('sign-in', `?email=${encodeURIComponent(data.email)}`, { replace: true, notice: 'Your password is set. Sign in with it.' });
  };
  return html`<${Page} title="Set your password">
    <p>This link from your invitation works once, for 24 hours.</p>
    <${Form} label="Set your password" submit="Set password" onSubmit=${submit}>
      <${Field} id="new-password" label="New password" hint="At least 12 characters." attrs=${{ type: 'password', autocomplete: 'new-password', required: true, minlength: 12, maxlength: 200 }} />
      <${Field} id="repeat-password" label="Repeat the password" attrs=${{ type: 'password', autocomplete: 'new-password', required: true }} />
    <//>
  <//>`;
}
