import { operation, type Operation } from '../operations';
import { parameter, type ParameterObject } from '../api/parameter-schema';
import { MONITORABLE_IDS, type MonitorableId } from '../api/monitor-kinds';

/**
 * What the dashboard's Monitors page asks for each monitorable operation: its query parameters as
 * the OpenAPI document describes them (parameter-schema.ts), without the cursor (a monitor watches
 * the first page) and `cache_max_age` (it follows the interval). dashboard/build.ts builds them into
 * the page; the monitors API checks what is sent by the operation's own rules.
 */
export interface MonitorForm {
  id: MonitorableId;
  summary: string;
  params: Omit<ParameterObject, 'in'>[];
  /** Pairs of parameters of which a request gives exactly one (the operation table's `oneOf`, e.g. handle / userId). */
  oneOf: [string, string][];
}

export const monitorForms = (): MonitorForm[] =>
  MONITORABLE_IDS.map((id) => {
    const op = operation(id) as Operation;
    const params = Object.entries(op.params)
      .filter(([, def]) => !def.cursor)
      .map(([name, def]) => {
        const { in: _query, ...p } = parameter(name, def, op); // eslint-disable-line @typescript-eslint/no-unused-vars
        return p;
      });
    return { id, summary: op.summary, params, oneOf: (op.oneOf ?? []).map(([a, b]): [string, string] => [a, b]) };
  });
