/**
 * `npm run lint:openapi`: Redocly's recommended ruleset (redocly.yaml) over the OpenAPI documents the API publishes
 * at GET /api/v1/openapi.json and /api/v1/openapi/integration.json, built from the same route table into
 * test-output/openapi.json and test-output/openapi-integration.json; errors fail, warnings are printed. Offline: the document is a local file, and Redocly's usage data and update check, which would call
 * out, are switched off.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { apiRoutesAndDocument } from '../api/app';
import { REPO_ROOT } from './lib/paths';

const { openApi, integration } = apiRoutesAndDocument();
const files = [path.join('test-output', 'openapi.json'), path.join('test-output', 'openapi-integration.json')];
fs.mkdirSync(path.join(REPO_ROOT, 'test-output'), { recursive: true });
fs.writeFileSync(path.join(REPO_ROOT, files[0]), JSON.stringify(openApi, null, 2));
fs.writeFileSync(path.join(REPO_ROOT, files[1]), JSON.stringify(integration, null, 2));
const result = spawnSync(process.execPath, [require.resolve('@redocly/cli/bin/cli.js'), 'lint', ...files], {
  cwd: REPO_ROOT,
  stdio: 'inherit',
  env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_NOTIFICATIONS: 'true' },
});
process.exitCode = result.status ?? 1;
