/**
 * The form that creates a monitor: the operation (the monitorable ones), that operation's own query
 * parameters (built into the page from the operation table: shared/monitors/forms.ts), a pair of
 * which a request gives one (handle / userId) as one choice and one input, the interval with the
 * floor this deployment applies and what it may cost a day, and the webhook URL. Every problem of
 * a 422 shows under the field it names.
 */
import type { MonitorableId, MonitorWithSecret } from '../../client/index';
import type { MonitorForm } from '../../shared/monitors/forms';
import { api, type Detail } from '../lib/api';
import { upToCredits } from '../lib/format';
import { html, useState } from '../lib/html';
import { Choice, Field, Form, valueOf } from '../lib/ui';

/** The monitorable operations and their query parameters, built into the page (dashboard/build.ts). */
declare const MONITOR_FORMS: MonitorForm[];
export const MAX_INTERVAL = 86_400;
/** The floor of the interval the monitors API applies here, told by the dashboard function (index.html). */
export const MIN_INTERVAL = Number(document.querySelector('meta[name="monitor-min-interval"]')?.getAttribute('content')) || 60;

type Param = MonitorForm['params'][number];

/** A parameter's input (a choice when the operation lists its values), labelled by its name, its description as hint. */
function ParamField({ p, label, required, error }: { p: Param; label: string; required: boolean; error?: string }) {
  const id = `mon-param-${p.name}`;
  const values = p.schema.enum as string[] | undefined;
  if (values) return html`<${Choice} id=${id} label=${label} options=${[['', 'default'], ...values.map((v) => [v, v])]} hint=${p.description} error=${error} />`;
  return html`<${Field} id=${id} label=${label} hint=${p.description} error=${error}
    attrs=${{ type: 'text', required, autocomplete: 'off', spellcheck: 'false', placeholder: p.example, maxlength: p.schema.maxLength as number | undefined }} />`;
}

/** Two parameters of which one is given: which one (radio buttons), then its input. */
function EitherOr({ pair, params, chosen, choose, errors }: { pair: [string, string]; params: Param[]; chosen: string; choose: (name: string) => void; errors: Record<string, string> }) {
  const p = params.find((x) => x.name === chosen)!;
  const group = `mon-either-${pair.join('-')}`;
  return html`<fieldset class="either">
    <legend>${pair[0]} or ${pair[1]}: give one</legend>
    <div class="radios">
      ${pair.map(
        (name) => html`<label class="radio"><input type="radio" name=${group} value=${name} checked=${name === chosen} onChange=${() => choose(name)} /> By ${name}</label>`,
      )}
    </div>
    <${ParamField} key=${p.name} p=${p} label=${p.name} required=${true} error=${errors[`params.${p.name}`] ?? errors.params} />
  </fieldset>`;
}

export function MonitorCreateForm({ created }: { created: (m: MonitorWithSecret) => Promise<void> }) {
  const [operation, setOperation] = useState<string>(MONITOR_FORMS[0]?.id ?? '');
  const [chosen, setChosen] = useState<Record<string, string>>({});
  const [interval, setIntervalValue] = useState(300);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const def = MONITOR_FORMS.find((f) => f.id === operation);
  const params = def?.params ?? [];
  const pairs = def?.oneOf ?? [];
  const pairOf = (name: string) => pairs.find((pair) => pair.includes(name));
  const choiceOf = (pair: [string, string]) => chosen[pair.join()] ?? pair[0];
  /** The parameters the form shows now: each pair as its chosen one. */
  const shown = params.filter((p) => {
    const pair = pairOf(p.name);
    return !pair || choiceOf(pair) === p.name;
  });

  /** The details the fields show; the rest (a path no field has) goes to the form's alert line. */
  const place = (details: Detail[]): Detail[] => {
    const paths = new Set(['operation', 'intervalSeconds', 'webhookUrl', ...shown.map((p) => `params.${p.name}`), ...(pairs.length ? ['params'] : [])]);
    const placed: Record<string, string> = {};
    const unplaced: Detail[] = [];
    for (const d of details) {
      if (!paths.has(d.path)) unplaced.push(d);
      else placed[d.path] = placed[d.path] ? `${placed[d.path]} ${d.message}` : d.message;
    }
    setErrors(placed);
    return unplaced;
  };
  const submit = async (f: HTMLFormElement) => {
    const values = shown.map((p): [string, string] => [p.name, valueOf(f, `mon-param-${p.name}`).trim()]).filter(([, v]) => v !== '');
    const body = { operation: operation as MonitorableId, params: Object.fromEntries(values), intervalSeconds: Number(valueOf(f, 'mon-interval')), webhookUrl: valueOf(f, 'mon-webhook').trim() };
    const { monitor } = (await api.monitors.create(body)).data;
    await created(monitor);
  };

  const floor = MIN_INTERVAL < 60 ? `${MIN_INTERVAL} s (this deployment's floor)` : `${MIN_INTERVAL} s`;
  const cost = Number.isInteger(interval) && interval >= MIN_INTERVAL && interval <= MAX_INTERVAL ? ` At this interval: ${upToCredits(interval)}.` : '';
  return html`<${Form} label="Create a monitor" submit="Create monitor" cls="monitor" onSubmit=${submit} onDetails=${place}>
    <${Choice} id="mon-operation" label="Operation" options=${MONITOR_FORMS.map((x) => [x.id, x.id])} value=${operation} hint=${def?.summary} error=${errors.operation}
      onChange=${(v: string) => {
        setOperation(v);
        setErrors({});
      }} />
    <div class="params">
      ${shown.map((p) => {
        const pair = pairOf(p.name);
        if (pair) return html`<${EitherOr} key=${pair.join()} pair=${pair} params=${params} chosen=${p.name} choose=${(name: string) => setChosen({ ...chosen, [pair.join()]: name })} errors=${errors} />`;
        return html`<${ParamField} key=${p.name} p=${p} label=${`${p.name}${p.required ? '' : ' (optional)'}`} required=${p.required} error=${errors[`params.${p.name}`]} />`;
      })}
      ${def && !params.length ? html`<p class="hint">This operation takes no parameters.</p>` : null}
    </div>
    <${Field} id="mon-interval" label="Interval in seconds" error=${errors.intervalSeconds}
      hint=${`From ${floor} to ${MAX_INTERVAL.toLocaleString('en')} s (a day). Each poll costs at most 1 credit (none when a cached answer serves).${cost}`}
      attrs=${{ type: 'number', required: true, min: MIN_INTERVAL, max: MAX_INTERVAL, step: 1, defaultValue: '300', inputmode: 'numeric', onInput: (e: Event) => setIntervalValue(Number((e.target as HTMLInputElement).value)) }} />
    <${Field} id="mon-webhook" label="Webhook URL" error=${errors.webhookUrl} hint="https on a public address; each event is POSTed there, signed."
      attrs=${{ type: 'url', required: true, autocomplete: 'off', placeholder: 'https://example.com/hooks/social' }} />
  <//>`;
}
