/**
 * The pieces every page is made of: a page (its heading takes the focus, its notice), labelled fields
 * and choices, a form that shows its failure and each 422 detail at its field, a secret shown once,
 * a modal confirmation, a row's action button, tables that become one card per row below 640 px,
 * and the loading of a page's data (a lost session goes to sign-in).
 */
import type { Member } from '../../client/index';
import { detailsOf, isSignedOut, messageOf, type Detail } from './api';
import { whenExact, when } from './format';
import { html, useEffect, useRef, useState, type Children } from './html';

/** What the shell gives every page. */
export interface App {
  me: Member | null | undefined;
  /** Another page (`page` below /dashboard, `query` with its "?"), with a notice to show there. */
  navigate(page: string, query?: string, opts?: { replace?: boolean; notice?: string }): void;
  signedIn(me: Member): void;
  sessionEnded(): void;
  signOut(): void;
}
export interface PageProps {
  app: App;
  query: URLSearchParams;
  /** A notice the previous page left (e.g. "You are signed out."). */
  notice?: string;
}

/** A page: its heading takes the focus when it appears (screen readers announce the change). */
export function Page({ title, notice, error, children }: { title: string; notice?: string | null; error?: string | null; children?: Children }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · Social data API`;
    heading.current?.focus();
  }, [title]);
  return html`<h1 tabindex="-1" ref=${heading}>${title}</h1>
    ${notice ? html`<p class="notice" role="status">${notice}</p>` : null}
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    ${children}`;
}

/** A page's data: loaded when its inputs change, `reload` after a change; 401 ends the session. Only the latest load's answer is kept. */
export function useLoad<T>(app: App, load: () => Promise<T>, inputs: unknown[] = []) {
  const [state, setState] = useState<{ data?: T; error?: string }>({});
  const latest = useRef(load);
  latest.current = load;
  const seq = useRef(0);
  const fail = (err: unknown) => (isSignedOut(err) ? app.sessionEnded() : setState((s) => ({ ...s, error: messageOf(err) })));
  const run = async (f: () => Promise<T>) => {
    const mine = ++seq.current;
    const data = await f();
    if (mine === seq.current) setState({ data });
  };
  useEffect(() => {
    run(load).catch(fail);
    // An answer that comes after the page is gone is dropped.
    return () => void seq.current++;
  }, inputs);
  const reload = () => run(() => latest.current());
  return { ...state, reload, fail };
}

/** A time in UTC; where it must wrap, only between its date and its time of day. */
export function Time({ iso, exact = false }: { iso: string | null | undefined; exact?: boolean }) {
  if (!iso) return 'never';
  const text = exact ? whenExact(iso) : when(iso);
  const space = text.indexOf(' ');
  return html`<time datetime=${iso}><span class="nowrap">${text.slice(0, space)}</span> <span class="nowrap">${text.slice(space + 1)}</span></time>`;
}

type Attrs = Record<string, unknown>;

/** A labelled input with its hint and its 422 problem (`error`), described by both. */
export function Field({ id, label, hint, error, attrs = {} }: { id: string; label: string; hint?: Children; error?: string; attrs?: Attrs }) {
  const describedBy = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  return html`<div class="field">
    <label for=${id}>${label}</label>
    <input id=${id} name=${id} ...${attrs} aria-describedby=${describedBy} aria-invalid=${error ? 'true' : undefined} />
    ${hint ? html`<p class="hint" id=${`${id}-hint`}>${hint}</p>` : null}
    ${error ? html`<p class="error field-error" id=${`${id}-error`}>${error}</p>` : null}
  </div>`;
}

/** A labelled select. */
export function Choice(props: { id: string; label: string; options: [string, string][]; value?: string | null; hint?: Children; error?: string; attrs?: Attrs; onChange?: (value: string) => void }) {
  const { id, label, options, value, hint, error, attrs = {}, onChange } = props;
  const describedBy = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  return html`<div class="field">
    <label for=${id}>${label}</label>
    <select id=${id} name=${id} ...${attrs} aria-describedby=${describedBy} aria-invalid=${error ? 'true' : undefined}
      onChange=${onChange ? (e: Event) => onChange((e.target as HTMLSelectElement).value) : undefined}>
      ${options.map(([v, text]) => html`<option value=${v} selected=${v === (value ?? '')}>${text}</option>`)}
    </select>
    ${hint ? html`<p class="hint" id=${`${id}-hint`}>${hint}</p>` : null}
    ${error ? html`<p class="error field-error" id=${`${id}-error`}>${error}</p>` : null}
  </div>`;
}

export const valueOf = (f: HTMLFormElement, name: string) => (f.elements.namedItem(name) as HTMLInputElement).value;

/** Thrown by a submit handler: the 422's details go to their fields, the rest to the form's alert line. */
export class FieldProblems extends Error {
  constructor(readonly details: Detail[], message: string) {
    super(message);
  }
}

/**
 * A form: checked by the browser first, its button disabled while it runs, its failure in its alert
 * line. `onDetails` receives a 422's details (the page shows each at its field) and returns the
 * ones no field shows.
 */
export function Form(props: { label: string; submit: string; cls?: string; onSubmit: (f: HTMLFormElement) => Promise<void>; onDetails?: (d: Detail[]) => Detail[]; children?: Children; extra?: Children }) {
  const { label, submit, cls, onSubmit, onDetails, children, extra } = props;
  const [busy, setBusy] = useState(false);
  const [alert, setAlert] = useState('');
  const run = async (e: Event) => {
    e.preventDefault();
    const f = e.currentTarget as HTMLFormElement;
    if (!f.reportValidity()) return;
    setAlert('');
    onDetails?.([]);
    setBusy(true);
    try {
      await onSubmit(f);
    } catch (err) {
      const details = detailsOf(err);
      if (onDetails && details.length) {
        const unplaced = onDetails(details);
        setAlert(['Check the marked fields.', ...unplaced.map((d) => `${d.path}: ${d.message}`)].join(' '));
        // The first marked field takes the focus once the page shows the problems.
        setTimeout(() => (f.querySelector('[aria-invalid="true"]') as HTMLElement | null)?.focus());
      } else setAlert(messageOf(err));
    } finally {
      setBusy(false);
    }
  };
  return html`<form aria-label=${label} novalidate class=${cls} onSubmit=${run}>
    ${children}
    <button type="submit" disabled=${busy}>${submit}</button>
    ${extra}
    <p class="error" role="alert">${alert}</p>
  </form>`;
}

/** A secret shown once (a new key, a monitor's signing secret), with Copy and "I have stored it". */
export function SecretPanel({ title, label, secret, kept, done }: { title: string; label: string; secret: string; kept: string; done: () => void }) {
  const [copied, setCopied] = useState('');
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), []);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied('Copied to the clipboard.');
    } catch {
      input.current?.select();
      setCopied('Select the text and copy it (Ctrl+C / ⌘C).');
    }
  };
  return html`<section class="secret" aria-labelledby="secret-heading">
    <h2 id="secret-heading">${title}</h2>
    <p class="warning"><strong>Copy it now. </strong>This secret is shown once and cannot be shown again; ${kept}.</p>
    <div class="field">
      <label for="new-secret">${label}</label>
      <div class="copy-row">
        <input id="new-secret" ref=${input} type="text" readonly value=${secret} spellcheck="false" autocomplete="off" />
        <button type="button" onClick=${() => void copy()}>Copy</button>
      </div>
    </div>
    <p class="copied" role="status">${copied}</p>
    <button type="button" class="secondary" onClick=${done}>I have stored it</button>
  </section>`;
}

/** A modal question with a danger button (Escape cancels); `act` runs on confirmation, and the dialog closes when it succeeds. */
export interface Question {
  title: string;
  text: string;
  button: string;
  act: () => Promise<void>;
}
export function Confirm({ question, close }: { question: Question | null; close: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [busy, setBusy] = useState(false);
  const [alert, setAlert] = useState('');
  useEffect(() => {
    const d = dialog.current;
    if (question && d && !d.open) d.showModal();
    if (!question && d?.open) d.close();
    setAlert('');
  }, [question]);
  const go = async () => {
    setBusy(true);
    try {
      await question!.act();
      close();
    } catch (err) {
      setAlert(messageOf(err));
    } finally {
      setBusy(false);
    }
  };
  return html`<dialog ref=${dialog} class="confirm" aria-labelledby="confirm-heading" onClose=${close}>
    ${question
      ? html`<h2 id="confirm-heading">${question.title}</h2>
          <p>${question.text}</p>
          <p class="error" role="alert">${alert}</p>
          <div class="buttons">
            <button type="button" class="secondary" onClick=${close}>Cancel</button>
            <button type="button" class="danger" disabled=${busy} onClick=${() => void go()}>${question.button}</button>
          </div>`
      : null}
  </dialog>`;
}

/** A row's button: disabled while it runs; its failure goes to `fail` (the page's alert line). */
export function Action({ text, label, run, fail, cls = 'secondary', attrs = {} }: { text: string; label: string; run: () => Promise<void>; fail: (err: unknown) => void; cls?: string; attrs?: Attrs }) {
  const [busy, setBusy] = useState(false);
  const click = () => {
    setBusy(true);
    run()
      .catch(fail)
      .finally(() => setBusy(false));
  };
  return html`<button type="button" class=${cls} aria-label=${label} disabled=${busy} onClick=${click} ...${attrs}>${text}</button>`;
}

/** A table that becomes one card per row below 640 px (each cell labelled by its column: `data-label`). */
export function Table({ cls = '', caption, columns, children }: { cls?: string; caption: string; columns: string[]; children: Children }) {
  return html`<table class=${`stack ${cls}`.trim()}>
    <caption>${caption}</caption>
    <thead><tr>${columns.map((c) => html`<th scope="col">${c}</th>`)}</tr></thead>
    <tbody>${children}</tbody>
  </table>`;
}
export const Td = ({ label, cls, children }: { label: string; cls?: string; children?: Children }) => html`<td data-label=${label} class=${cls}>${children}</td>`;
