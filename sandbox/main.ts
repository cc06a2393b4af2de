/**
 * Runs the sandbox PSP on its own: `npm run sandbox` (SANDBOX_PORT, default 4010; SANDBOX_HOST, default
 * 127.0.0.1; SANDBOX_WEBHOOK_DELAY_MS, default 0). `npm start` starts it in-process instead.
 */
import { startSandbox } from './server';

const port = Number(process.env.SANDBOX_PORT ?? 4010);
const host = process.env.SANDBOX_HOST ?? '127.0.0.1';
const webhookDelayMs = Number(process.env.SANDBOX_WEBHOOK_DELAY_MS ?? 0);

startSandbox({ port, host, webhookDelayMs, log: (line) => process.stderr.write(`[sandbox] ${line}\n`) })
  .then((sandbox) => {
    process.stderr.write(`[sandbox] listening on ${sandbox.url} (control API: ${sandbox.url}/_sandbox/test-cards)\n`);
    const stop = () => void sandbox.stop().then(() => process.exit(0));
    process.once('SIGINT', stop).once('SIGTERM', stop);
  })
  .catch((error) => {
    console.error(error);
    process.exit(1);
  });
