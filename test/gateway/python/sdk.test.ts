import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { routedOperations } from '../../../shared/operations';
import { MONITOR_ROUTES } from '../../../shared/api/monitor-routes';
import { ACCOUNT_ROUTES, KEY_READABLE } from '../../../shared/api/account-routes';
import { OPENAPI_FILE } from '../../../scripts/openapi';
import { PYTHON_OPERATIONS_PATH, pythonMethod, pythonNamespace, renderPythonOperations, snake } from '../../../scripts/python-sdk';
import { startSdkStack, type SdkStack } from './stack';

/**
 * The Python SDK (python/, docs/python.md): its generated module is what `npm run docs` writes from
 * the operation table; every method's parameters are the OpenAPI document's; and its own tests
 * (`python3 -m unittest` in python/) pass against the local gateway on this run's DynamoDB Local
 * with the replay upstream, started here (test/gateway/python/stack.ts).
 */
const ROOT = path.join(__dirname, '..', '..', '..');
const PYTHON_DIR = path.join(ROOT, 'python');
const PYTHON = process.env.PYTHON || 'python3';

function run(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, args, { cwd: PYTHON_DIR, env: { ...env, PYTHONDONTWRITEBYTECODE: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

test('python/social_data/_operations.py is up to date with the operation table (run `npm run docs`)', () => {
  if (readFileSync(PYTHON_OPERATIONS_PATH, 'utf8') !== renderPythonOperations()) throw new Error('stale: python/social_data/_operations.py: run `npm run docs` and commit the result');
});

interface PyParam {
  name: string;
  required: boolean;
  annotation: string;
}
type Signatures = Record<string, PyParam[]>;

/** Every method's keyword parameters, as Python itself reads them from the committed package. */
async function pythonSignatures(): Promise<Signatures> {
  const script = `
import inspect, json, social_data
c = social_data.Client(api_key="k", base_url="http://127.0.0.1:9")
out = {}
def params(f):
    return [{"name": p.name, "required": p.default is inspect.Parameter.empty, "annotation": str(p.annotation)} for p in inspect.signature(f).parameters.values()]
for op_id, (ns, name) in social_data.OPERATIONS.items():
    op = getattr(getattr(c, ns), name)
    out[op_id] = params(op.__call__)
    for extra in ("pages", "items"):
        if hasattr(op, extra):
            out[op_id + " " + extra] = params(getattr(op, extra))
for group in ("account", "monitors"):
    for name, f in inspect.getmembers(getattr(c, group), inspect.ismethod):
        if not name.startswith("_"):
            out[group + "." + name] = params(f)
print(json.dumps(out))
`;
  const { code, out, err } = await run(['-c', script]);
  if (code !== 0) throw new Error(`python failed:\n${err}`);
  return JSON.parse(out) as Signatures;
}

test("every method's parameters are the OpenAPI document's (names in snake_case, required the same)", async () => {
  const doc = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')) as { paths: Record<string, Record<string, { parameters?: { name: string; in: string; required?: boolean }[]; requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown>; required?: string[] } }> } }>> };
  const sigs = await pythonSignatures();
  const shape = (params: { name: string; required: boolean }[]) => params.map((p) => ({ name: p.name, required: p.required })).sort((a, b) => a.name.localeCompare(b.name));
  for (const op of routedOperations()) {
    const api = doc.paths[op.path]!.get!.parameters!.filter((p) => p.in === 'query');
    const expected = api.map((p) => ({ name: snake(p.name), required: p.required === true }));
    expect({ op: op.id, params: shape(sigs[op.id]!) }).toEqual({ op: op.id, params: shape(expected) });
    // The client names the operation by its platform and its id.
    expect(sigs[op.id]).toBeDefined();
    expect(`${pythonNamespace(op.platform)}.${pythonMethod(op)}`).toMatch(/^[a-z0-9_]+\.[a-z0-9_]+$/);
    const cursor = Object.entries(op.params).find(([, d]) => d.cursor)?.[0];
    if (cursor) {
      const pages = expected.filter((p) => p.name !== snake(cursor));
      expect({ op: op.id, pages: shape(sigs[`${op.id} pages`]!) }).toEqual({ op: op.id, pages: shape([...pages, { name: 'max_pages', required: false }]) });
      expect({ op: op.id, items: shape(sigs[`${op.id} items`]!) }).toEqual({ op: op.id, items: shape([...pages, { name: 'max_pages', required: false }, { name: 'max_items', required: false }]) });
    } else {
      expect(sigs[`${op.id} pages`]).toBeUndefined();
    }
    // A parameter the table types as true/false is a bool in Python.
    for (const p of sigs[op.id]!) if (p.name === 'trim') expect(p.annotation).toBe('Optional[bool]');
  }
  expect(Object.keys(sigs).filter((k) => !k.includes('.') && !k.includes(' ')).sort()).toEqual(routedOperations().map((o) => o.id).sort());

  // The account reads a key may make, and every monitors route: path parameters, then the query's and the body's.
  const routes = [
    ...ACCOUNT_ROUTES.filter((r) => (KEY_READABLE as readonly string[]).includes(r.name)).map((r) => ({ key: `account.${snake(r.name)}`, ...r })),
    ...MONITOR_ROUTES.map((r) => ({ key: `monitors.${r.name === 'remove' ? 'delete' : snake(r.name)}`, ...r })),
  ];
  for (const r of routes) {
    const o = doc.paths[r.path]![r.method.toLowerCase()]!;
    const body = o.requestBody?.content['application/json']?.schema;
    const expected = [
      ...(o.parameters ?? []).map((p) => ({ name: snake(p.name), required: p.in === 'path' || p.required === true })),
      ...Object.keys(body?.properties ?? {}).map((name) => ({ name: snake(name), required: (body?.required ?? []).includes(name) })),
    ];
    expect({ route: r.key, params: shape(sigs[r.key] ?? []) }).toEqual({ route: r.key, params: shape(expected) });
  }
  // The request history's pages: its query without the cursor.
  const history = sigs['account.requests']!.filter((p) => p.name !== 'cursor');
  expect(shape(sigs['account.requests_pages'] ?? [])).toEqual(shape(history));
  expect(Object.keys(sigs).filter((k) => k.includes('.')).sort()).toEqual([...routes.map((r) => r.key), 'account.requests_pages'].sort());
});

describe('the Python tests against the local gateway', () => {
  let stack: SdkStack;
  beforeAll(async () => {
    stack = await startSdkStack();
  });
  afterAll(async () => stack?.stop());

  test('`python3 -m unittest` in python/ passes', async () => {
    const { code, out, err } = await run(['-m', 'unittest', 'discover', '-v', '-s', 'tests', '-t', '.'], { ...process.env, ...stack.env });
    // Python's report, whatever the outcome (unittest writes it to stderr).
    const report = `${out}${err}`;
    if (code !== 0) throw new Error(`python3 -m unittest failed (exit ${code}):\n${report}`);
    expect(report).toMatch(/^OK/m);
    const ran = Number(/Ran (\d+) tests?/.exec(report)?.[1]);
    expect(ran).toBeGreaterThanOrEqual(20);
    // Nothing skipped silently but pandas' DataFrame (pandas is not a dependency).
    const skipped = [...report.matchAll(/^(\S+) \(.*\) \.\.\. skipped/gm)].map((m) => m[1]);
    expect(skipped.filter((name) => !/dataframe/.test(name!))).toEqual([]);
  });
});
