/**
 * The reliability suite's artefacts directory: every part drops what the leak grep (part 6) must scan here —
 * captured logs, received webhook bodies, fuzzer reports — and the secrets registry lives here too, so a part
 * that runs a child process (a worker, a receiver) can hand its files over as well.
 * `npm run test:reliability` sets RELIABILITY_ARTIFACTS_DIR; a single file run gets a fresh temporary directory.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

let dir: string | undefined;

export function artifactsDir(): string {
  if (dir) return dir;
  dir = process.env.RELIABILITY_ARTIFACTS_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), 'switchyard-reliability-'));
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/** Writes (or appends to) a file under the artefacts directory; returns its path. */
export function saveArtifact(relativePath: string, content: string, options: { append?: boolean } = {}): string {
  const file = path.join(artifactsDir(), relativePath);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  if (options.append) fs.appendFileSync(file, content);
  else fs.writeFileSync(file, content);
  return file;
}

/** Every regular file under the artefacts directory (recursively). */
export function listArtifacts(): string[] {
  const out: string[] = [];
  const walk = (folder: string) => {
    for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) out.push(full);
    }
  };
  walk(artifactsDir());
  return out;
}
