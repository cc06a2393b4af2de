/**
 * The layer rule of docs/architecture.md, as a checker over source files:
 *   api → domain → db,   activities → domain → db,   worker → activities, workflows, domain, db,
 *   workflows → workflows/lib (pure) and types only.
 * Nothing imports from a layer above it, and only api/temporal/ reaches Temporal for the API.
 */
import fs from 'node:fs';
import path from 'node:path';

export const LAYERS = ['api', 'domain', 'db', 'activities', 'workflows', 'worker'] as const;
type Layer = (typeof LAYERS)[number];

export interface SourceImport {
  /** Repo-relative path of the imported file (or bare package name). */
  target: string;
  typeOnly: boolean;
}

export interface Violation {
  file: string;
  target: string;
  rule: string;
}

/** Stands for every `workflows/<name>.shared.ts`: a workflow's ids, start options, messages and registered name. */
const WORKFLOW_SHARED = 'workflows/*.shared';

/** Runtime imports each layer may make (type-only imports are free downward and sideways, never upward into api). */
const RUNTIME_ALLOWED: Record<Layer, readonly string[]> = {
  api: ['api', 'domain', 'db', 'workflows/lib', 'workflows/definitions'],
  domain: ['domain', 'db', 'workflows/lib', 'workflows/definitions'],
  db: ['db'],
  // Activities start workflows (deliveries, settlements) by the ids, options and names in workflows/<name>.shared.ts;
  // a workflow module itself would close a circle (workflows import the activities' types).
  activities: ['activities', 'domain', 'db', 'workflows/lib', 'workflows/definitions', WORKFLOW_SHARED],
  workflows: ['workflows'],
  worker: ['worker', 'activities', 'workflows', 'domain', 'db'],
};

/** Only the gateway's files may import workflow definitions or the Temporal client at runtime. */
const TEMPORAL_GATEWAY = 'api/temporal';

const under = (file: string, prefix: string) =>
  prefix === WORKFLOW_SHARED
    ? /^workflows\/[a-z-]+\.shared\.ts$/.test(file)
    : file === `${prefix}.ts` || file.startsWith(`${prefix}/`);
const layerOf = (file: string): Layer | undefined => LAYERS.find((layer) => under(file, layer));

export function violationsOf(file: string, imports: readonly SourceImport[]): Violation[] {
  const layer = layerOf(file);
  if (!layer) return [];
  const found: Violation[] = [];
  for (const { target, typeOnly } of imports) {
    const targetLayer = layerOf(target);
    if (targetLayer === 'api' && layer !== 'api') {
      found.push({ file, target, rule: `${layer}/ must not import api/ (not even types)` });
      continue;
    }
    if (layer === 'api' && !under(file, TEMPORAL_GATEWAY) && !typeOnly && target === '@temporalio/client') {
      found.push({ file, target, rule: 'the API reaches Temporal only through api/temporal/' });
      continue;
    }
    if (!targetLayer || typeOnly) continue;
    if (layer === 'api' && under(file, TEMPORAL_GATEWAY) && targetLayer === 'workflows') continue;
    if (!RUNTIME_ALLOWED[layer].some((prefix) => under(target, prefix))) {
      found.push({ file, target, rule: `${layer}/ may import at runtime only ${RUNTIME_ALLOWED[layer].join(', ')}` });
    }
  }
  return found;
}

const IMPORT =
  /^\s*(import|export)\s+(type\s+)?(?:[^'"]*?\s+from\s+)?['"]([^'"]+)['"]|\b(?:import|require)\(\s*['"]([^'"]+)['"]\s*\)/gm;

function resolveSpecifier(root: string, fromFile: string, spec: string): string {
  if (!spec.startsWith('.'))
    return spec.startsWith('node:')
      ? spec
      : spec
          .split('/')
          .slice(0, spec.startsWith('@') ? 2 : 1)
          .join('/');
  const base = path.resolve(root, path.dirname(fromFile), spec);
  for (const candidate of [`${base}.ts`, path.join(base, 'index.ts'), base]) {
    if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return path.relative(root, candidate);
  }
  return path.relative(root, base);
}

/** Every import of a source file, resolved to a repo-relative path (type-only when written `import type`). */
export function importsOf(root: string, file: string, source: string): SourceImport[] {
  const found: SourceImport[] = [];
  for (const match of source.matchAll(IMPORT)) {
    const spec = match[3] ?? match[4];
    found.push({ target: resolveSpecifier(root, file, spec), typeOnly: Boolean(match[2]) });
  }
  return found;
}

export function sourceFiles(root: string, dir: string): string[] {
  const entries = fs.readdirSync(path.join(root, dir), { withFileTypes: true });
  return entries.flatMap((entry) => {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(root, rel);
    return entry.name.endsWith('.ts') ? [rel] : [];
  });
}

export function layerViolations(root: string): Violation[] {
  return LAYERS.flatMap((layer) => sourceFiles(root, layer)).flatMap((file) =>
    violationsOf(file, importsOf(root, file, fs.readFileSync(path.join(root, file), 'utf8'))),
  );
}

/** The server's folders, whose files form one import graph (web/ is checked on its own: it imports nothing here). */
export const SERVER_DIRS = [...LAYERS, 'scripts', 'bench', 'sandbox'] as const;

/** file → the server files it imports; type-only imports count too unless `runtimeOnly`. */
export function importGraph(root: string, runtimeOnly = false): Map<string, string[]> {
  const files = SERVER_DIRS.flatMap((dir) => sourceFiles(root, dir));
  const known = new Set(files);
  return new Map(
    files.map((file) => [
      file,
      importsOf(root, file, fs.readFileSync(path.join(root, file), 'utf8'))
        .filter(({ target, typeOnly }) => known.has(target) && !(runtimeOnly && typeOnly))
        .map(({ target }) => target),
    ]),
  );
}

/** The same graph between top-level folders (a file at the root counts as its own folder). */
export function folderGraph(files: Map<string, string[]>): Map<string, string[]> {
  const folder = (file: string) => file.split('/')[0];
  const folders = new Map<string, Set<string>>();
  for (const [file, targets] of files) {
    const edges = folders.get(folder(file)) ?? new Set<string>();
    for (const target of targets) if (folder(target) !== folder(file)) edges.add(folder(target));
    folders.set(folder(file), edges);
  }
  return new Map([...folders].map(([name, edges]) => [name, [...edges]]));
}

/**
 * The import cycles a depth-first walk meets, each as the path that closes it (`a → b → a`): none when the graph
 * has no cycle, at least one for every group of files that import each other round.
 */
export function importCycles(graph: Map<string, string[]>): string[] {
  const done = new Set<string>();
  const onPath: string[] = [];
  const cycles: string[] = [];
  const visit = (node: string) => {
    onPath.push(node);
    for (const next of graph.get(node) ?? []) {
      const at = onPath.indexOf(next);
      if (at >= 0) cycles.push([...onPath.slice(at), next].join(' → '));
      else if (!done.has(next)) visit(next);
    }
    onPath.pop();
    done.add(node);
  };
  for (const node of graph.keys()) if (!done.has(node)) visit(node);
  return cycles;
}
