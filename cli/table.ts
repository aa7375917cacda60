import type * as v from 'valibot';
import { OPERATIONS } from '../client';
import { COST } from '../shared/accounting/teams';
import { routedOperations, type Operation } from '../shared/operations';
import type { ParamDef } from '../shared/http/validation';
import { listOf, recordColumns, type Column } from '../shared/api/columns';

/**
 * What the command line needs to know of each operation, read from THE operation table
 * (shared/operations.ts): one sub-command per routed operation, named by its id, with its
 * parameters, their either-or pairs, its page size and its data schema. Nothing here lists an
 * operation; everything is derived.
 */
export interface Command {
  op: Operation;
  /** The typed client's method for the operation (client/operations.gen.ts, generated from the same table). */
  method: string;
  /** The query parameter that carries the next page's cursor, for a paged operation. */
  cursorParam?: string;
  /** The parameter an --input value fills by default: the required one, else the first of the either-or pair. */
  mainParam?: string;
  /**
   * The operation's list (posts, notes, comments, videos, following): the required top-level array of
   * objects in its `data`. Without one, an answer is one record (the single resource).
   */
  listField?: string;
  /** The CSV columns of one record, in the schema's order. */
  columns: Column[];
}

export { COST };

function mainParamOf(op: Operation): string | undefined {
  const required = Object.entries(op.params as Record<string, ParamDef>).find(([, def]) => def.required)?.[0];
  return required ?? op.oneOf?.[0]?.[0];
}

function commandOf(op: Operation): Command {
  const method = Object.entries(OPERATIONS).find(([, entry]) => entry.id === op.id)?.[0];
  if (!method) throw new Error(`the typed client has no method for ${op.id}: run \`npm run docs\``);
  const entry = OPERATIONS[method as keyof typeof OPERATIONS] as { cursor?: string };
  const list = listOf(op);
  return {
    op,
    method,
    cursorParam: entry.cursor,
    mainParam: mainParamOf(op),
    listField: list?.field,
    // A single resource is the whole `data`, with the fetchedAt the pipeline adds.
    columns: recordColumns(op),
  };
}

let commands: Command[] | undefined;
/** One command per routed operation, in the table's order. */
export const operationCommands = (): Command[] => (commands ??= routedOperations().map(commandOf));

export const commandById = (id: string): Command | undefined => operationCommands().find((c) => c.op.id === id);

/** The cost rule, in the words the help and the docs use. */
export const COST_RULE = `${COST} credit per page answered live; 0 for a cache hit (--cache-max-age) and for an error`;
