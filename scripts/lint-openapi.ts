/**
 * `npm run lint:openapi`: Redocly's recommended ruleset (redocly.yaml) over the OpenAPI document the API publishes
 * at GET /api/v1/openapi.json, built from the same route table into test-output/openapi.json; errors fail, warnings
 * are printed. Offline: the document is a local file, and Redocly's usage data and update check, which would call
 * out, are switched off.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { apiRoutesAndDocument } from '../api/app';
import { REPO_ROOT } from './lib/paths';

const file = path.join('test-output', 'openapi.json');
fs.mkdirSync(path.join(REPO_ROOT, 'test-output'), { recursive: true });
fs.writeFileSync(path.join(REPO_ROOT, file), JSON.stringify(apiRoutesAndDocument().openApi, null, 2));
const result = spawnSync(process.execPath, [require.resolve('@redocly/cli/bin/cli.js'), 'lint', file], {
  cwd: REPO_ROOT,
  stdio: 'inherit',
  env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_NOTIFICATIONS: 'true' },
});
process.exitCode = result.status ?? 1;
