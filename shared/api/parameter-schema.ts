import { toJsonSchema } from '@valibot/to-json-schema';
import type { Operation } from '../operations';
import { CACHE_MAX_AGE_SECONDS, type ParamDef } from '../http/validation';

/**
 * An operation's query parameters as OpenAPI parameter objects with JSON Schemas, from the operation
 * table's valibot schemas: the OpenAPI document (scripts/openapi.ts), the MCP tools' input schemas
 * (shared/api/mcp-tools.ts, which both MCP transports serve) and llms.txt are all built from these.
 */
export interface ParameterObject {
  name: string;
  in: 'query';
  required: boolean;
  description: string;
  schema: Record<string, unknown>;
  example?: string;
}

export function parameter(name: string, def: ParamDef, op: Pick<Operation, 'oneOf'>): ParameterObject {
  // Parameters arrive as strings; the input side of the schema (before any normalisation) is what a caller sends.
  const schema = toJsonSchema(def.schema, { target: 'draft-2020-12', errorMode: 'ignore', typeMode: 'input' }) as Record<string, unknown>;
  delete schema.$schema;
  const either = (op.oneOf ?? []).find((pair) => pair.includes(name));
  const sentence = (t: string) => (/[.!?)]$/.test(t) ? t : `${t}.`);
  const description = [
    def.description,
    either ? `Exactly one of \`${either[0]}\` or \`${either[1]}\`.` : '',
    def.cursor ? 'An invalid or expired cursor gives 400 BAD_REQUEST.' : '',
  ]
    .filter(Boolean)
    .map(sentence)
    .join(' ');
  return {
    name,
    in: 'query',
    required: def.required === true,
    description,
    schema: { type: 'string', ...schema, ...(def.default !== undefined ? { default: def.default } : {}) },
    ...(def.example !== undefined ? { example: def.example } : {}),
  };
}

export const CACHE_MAX_AGE_PARAMETER: ParameterObject = {
  name: 'cache_max_age',
  in: 'query',
  required: false,
  description: 'Serve a cached result at most this old, for 0 credits; otherwise a live scrape (1 credit) runs and refreshes the cache.',
  schema: { type: 'string', enum: Object.keys(CACHE_MAX_AGE_SECONDS) },
  example: '1d',
};

/** Every query parameter of an operation, `cache_max_age` included. */
export const parameters = (op: Pick<Operation, 'params' | 'oneOf'>): ParameterObject[] => [
  ...Object.entries(op.params).map(([name, def]) => parameter(name, def, op)),
  CACHE_MAX_AGE_PARAMETER,
];
