/**
 * Builds the merchant Dashboard web app (web/dashboard/src, Preact + TSX) into web/dashboard/dist with esbuild:
 * one hashed script, one hashed stylesheet and the index.html naming them. Run by `npm start`, the test harness
 * and `npm run build:dashboard` (the Docker image); it takes well under a second.
 */
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const WEB = path.join(__dirname, '..', '..', 'web', 'dashboard');
export const DASHBOARD_DIST = path.join(WEB, 'dist');

export async function buildDashboard(options: { minify?: boolean } = {}): Promise<void> {
  fs.rmSync(DASHBOARD_DIST, { recursive: true, force: true });
  const result = await build({
    entryPoints: [path.join(WEB, 'src', 'main.tsx'), path.join(WEB, 'src', 'styles.css')],
    outdir: path.join(DASHBOARD_DIST, 'assets'),
    entryNames: '[name]-[hash]',
    bundle: true,
    format: 'esm',
    target: ['es2020'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: options.minify ?? true,
    sourcemap: false,
    metafile: true,
    tsconfig: path.join(WEB, 'tsconfig.json'),
    logLevel: 'warning',
  });
  const outputs = Object.keys(result.metafile.outputs).map((file) => path.basename(file));
  const script = outputs.find((file) => file.endsWith('.js'));
  const style = outputs.find((file) => file.endsWith('.css'));
  if (!script || !style) throw new Error(`The Dashboard build produced ${outputs.join(', ')}`);
  const html = fs
    .readFileSync(path.join(WEB, 'index.html'), 'utf8')
    .replace('%SCRIPT%', `/dashboard/assets/${script}`)
    .replace('%STYLE%', `/dashboard/assets/${style}`);
  fs.writeFileSync(path.join(DASHBOARD_DIST, 'index.html'), html);
}
