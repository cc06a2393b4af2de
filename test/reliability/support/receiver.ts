/**
 * The suite's one webhook receiver (a real HTTP server): every body it receives is appended to the artefacts
 * directory, where the leak grep (part 6) searches it.
 */
import { startReceiver, type Receiver } from '../../helpers/webhooks';
import { saveArtifact } from './artifacts';

let receiver: Promise<Receiver> | undefined;

export function webhookReceiver(): Promise<Receiver> {
  receiver ??= startReceiver().then((started) => {
    const push = started.requests.push.bind(started.requests);
    // Record as each request arrives, so the file is complete whenever the leak grep reads it.
    started.requests.push = (...items) => {
      for (const item of items)
        saveArtifact(
          'webhooks/received.jsonl',
          JSON.stringify({ path: item.path, headers: item.headers, body: item.body }) + '\n',
          {
            append: true,
          },
        );
      return push(...items);
    };
    return started;
  });
  return receiver;
}
