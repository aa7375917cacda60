/** The team's API keys: create (the secret shown once), rename, revoke behind a confirmation. */
import type { AccountKey } from '../../client/index';
import { api } from '../lib/api';
import { when } from '../lib/format';
import { html, useEffect, useState } from '../lib/html';
import { Confirm, Field, Form, Page, SecretPanel, Table, Td, Time, useLoad, valueOf, type PageProps, type Question } from '../lib/ui';

export function KeysPage({ app, notice: arrived }: PageProps) {
  const keys = useLoad(app, async () => (await api.session.keys()).data.keys);
  const [fresh, setFresh] = useState<AccountKey | null>(null);
  const [renaming, setRenaming] = useState<string | null>(null);
  const [question, setQuestion] = useState<Question | null>(null);
  const [notice, setNotice] = useState(arrived);

  const create = async (f: HTMLFormElement) => {
    const { key } = (await api.session.createKey(valueOf(f, 'key-name'))).data;
    f.reset();
    await keys.reload();
    setFresh(key);
  };
  const revoke = (k: AccountKey) =>
    setQuestion({
      title: `Revoke key “${k.name}”?`,
      text: 'The very next request with this key is refused (401). This cannot be undone.',
      button: 'Revoke key',
      act: async () => {
        await api.session.revokeKey(k.keyId);
        await keys.reload();
        setNotice(`Key “${k.name}” is revoked: requests with it are refused from now on.`);
      },
    });

  const row = (k: AccountKey) => html`<tr data-key=${k.keyId}>
    <${Td} label="Name">${renaming === k.keyId ? html`<${Rename} k=${k} done=${() => setRenaming(null)} saved=${() => keys.reload().then(() => setRenaming(null))} />` : k.name}<//>
    <${Td} label="Created"><${Time} iso=${k.createdAt} /><//>
    <${Td} label="Created by">${!k.createdBy ? 'unknown' : k.createdBy.kind === 'cli' ? 'the operator (admin CLI)' : k.createdBy.email}<//>
    <${Td} label="Last used"><${Time} iso=${k.lastUsedAt} /><//>
    <${Td} label="Status"><span class=${`status ${k.status}`}>${k.status === 'active' ? 'Active' : `Revoked ${when(k.revokedAt)}`}</span><//>
    <${Td} label="Actions" cls="actions">
      ${k.status === 'active'
        ? html`<button type="button" class="secondary" aria-label=${`Rename key ${k.name}`} onClick=${() => setRenaming(k.keyId)}>Rename</button>
            <button type="button" class="danger" aria-label=${`Revoke key ${k.name}`} onClick=${() => revoke(k)}>Revoke</button>`
        : '–'}
    <//>
  </tr>`;

  return html`<${Page} title="API keys" notice=${notice} error=${keys.error}>
    <section aria-labelledby="create-heading">
      <h2 id="create-heading">Create a key</h2>
      <${Form} label="Create a key" submit="Create key" cls="inline" onSubmit=${create}>
        <${Field} id="key-name" label="Name of the new key" attrs=${{ type: 'text', required: true, maxlength: 64, autocomplete: 'off', placeholder: 'e.g. production, ci' }} />
      <//>
    </section>
    ${fresh?.secret
      ? html`<${SecretPanel} title=${`Your new key “${fresh.name}”`} label=${`Secret of key ${fresh.name}`} secret=${fresh.secret} kept="only its hash is stored" done=${() => setFresh(null)} />`
      : null}
    <section aria-label="Keys">
      ${keys.data === undefined
        ? null
        : keys.data.length
          ? html`<${Table} caption=${`Keys of ${app.me?.team.name || 'your team'}`} columns=${['Name', 'Created', 'Created by', 'Last used', 'Status', 'Actions']}>${keys.data.map(row)}<//>`
          : html`<p>No keys yet: create one above.</p>`}
    </section>
    <${Confirm} question=${question} close=${() => setQuestion(null)} />
  <//>`;
}

/** A key's name edited in its cell: Enter saves, Escape cancels. */
function Rename({ k, done, saved }: { k: AccountKey; done: () => void; saved: () => Promise<void> }) {
  const id = `rename-${k.keyId}`;
  useEffect(() => (document.getElementById(id) as HTMLInputElement | null)?.select(), []);
  const save = async (f: HTMLFormElement) => {
    await api.session.renameKey(k.keyId, valueOf(f, id));
    await saved();
  };
  return html`<div onKeyDown=${(e: KeyboardEvent) => e.key === 'Escape' && done()}>
    <${Form} label=${`Rename key ${k.name}`} submit="Save" cls="rename" onSubmit=${save} extra=${html`<button type="button" class="secondary" onClick=${done}>Cancel</button>`}>
      <${Field} id=${id} label=${`New name for key ${k.name}`} attrs=${{ type: 'text', required: true, maxlength: 64, defaultValue: k.name, autocomplete: 'off' }} />
    <//>
  </div>`;
}
