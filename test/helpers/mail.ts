/**
 * Reads what the service sent, through the catcher the test stack runs: Mailpit's HTTP API, or the .eml files
 * written instead when the Mailpit binary is absent.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { stack } from './stack';

export interface CaughtMail {
  id: string;
  to: string[];
  subject: string;
  text: string;
  messageId: string;
}

async function fromMailpit(apiUrl: string, to: string): Promise<CaughtMail[]> {
  const search = await fetch(`${apiUrl}/search?query=${encodeURIComponent(`to:"${to}"`)}`);
  const { messages } = (await search.json()) as { messages: { ID: string }[] };
  return Promise.all(
    messages.map(async ({ ID }) => {
      const message = (await (await fetch(`${apiUrl}/message/${ID}`)).json()) as {
        To: { Address: string }[];
        Subject: string;
        Text: string;
        MessageID: string;
      };
      return {
        id: ID,
        to: message.To.map((address) => address.Address),
        subject: message.Subject,
        text: message.Text,
        messageId: message.MessageID,
      };
    }),
  );
}

function fromEmlFiles(dir: string, to: string): CaughtMail[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((name) => name.endsWith('.eml'))
    .map((name) => {
      const raw = fs.readFileSync(path.join(dir, name), 'utf8');
      const [head, ...body] = raw.split(/\r?\n\r?\n/);
      const header = (field: string) => new RegExp(`^${field}: (.*)$`, 'mi').exec(head)?.[1]?.trim() ?? '';
      return {
        id: name,
        to: [header('To')],
        subject: header('Subject'),
        text: body.join('\n\n').replace(/=\r?\n/g, ''),
        messageId: header('Message-ID').replace(/[<>]/g, ''),
      };
    })
    .filter((mail) => mail.to.includes(to));
}

export async function mailTo(to: string): Promise<CaughtMail[]> {
  const { mail } = stack();
  return mail.apiUrl ? fromMailpit(mail.apiUrl, to) : fromEmlFiles(fileURLToPath(mail.smtpUrl), to);
}

/** Waits until `count` messages to `to` have arrived (the outbox delivers right after commit). */
export async function waitForMail(to: string, count = 1, timeoutMs = 20_000): Promise<CaughtMail[]> {
  for (const deadline = Date.now() + timeoutMs; ;) {
    const messages = await mailTo(to);
    if (messages.length >= count) return messages;
    if (Date.now() > deadline) throw new Error(`expected ${count} message(s) to ${to}, got ${messages.length}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The token a link in the message carries (…?token=…). */
export function tokenIn(mail: CaughtMail): string {
  const match = /[?&]token=([\w%-]+)/.exec(mail.text);
  if (!match) throw new Error(`no token link in: ${mail.text}`);
  return decodeURIComponent(match[1]);
}
