/**
 * Schemathesis (the property-based OpenAPI fuzzer, from PyPI) in a virtual environment kept in the per-user cache,
 * so CI and developers install it once per machine and never inside the repository. Created on first use.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { CACHE_DIR, log } from './paths';
import { refuseInUnitLane } from './test-lanes';

/** Pinned: a new Schemathesis release adds checks, and a new check must be a deliberate upgrade, not a surprise. */
export const SCHEMATHESIS_VERSION = '4.32.5';

export const SCHEMATHESIS_VENV = path.join(CACHE_DIR, 'schemathesis-venv');

function run(command: string, args: string[]): void {
  const result = spawnSync(command, args, { stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (exit ${result.status})`);
}

/** The path of the `schemathesis` executable, installing the pinned version into the cached venv when needed. */
export function resolveSchemathesis(): string {
  refuseInUnitLane('Resolving Schemathesis');
  const bin = path.join(SCHEMATHESIS_VENV, 'bin', 'schemathesis');
  if (fs.existsSync(bin)) {
    const version = spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout ?? '';
    if (version.includes(SCHEMATHESIS_VERSION)) return bin;
  }
  log(`installing schemathesis ${SCHEMATHESIS_VERSION} into ${SCHEMATHESIS_VENV}`);
  const python = process.env.PYTHON ?? 'python3';
  if (!fs.existsSync(path.join(SCHEMATHESIS_VENV, 'bin', 'pip'))) run(python, ['-m', 'venv', SCHEMATHESIS_VENV]);
  run(path.join(SCHEMATHESIS_VENV, 'bin', 'pip'), ['install', '--quiet', `schemathesis==${SCHEMATHESIS_VERSION}`]);
  return bin;
}
