/**
 * Payment instructions for pending async payments: a pix "copia e cola" code (EMV QR payload with its CRC16, as
 * the Brazilian central bank specifies) and a boleto digitable line. Random, well-formed, never payable.
 */
import { randomUUID } from 'node:crypto';
import { randomChars, type Instructions, type Method } from './store';

const tlv = (id: string, value: string) => `${id}${String(value.length).padStart(2, '0')}${value}`;

/** CRC-16/CCITT-FALSE over the payload including the "6304" tag, as the pix spec requires. */
export function crc16(payload: string): string {
  let crc = 0xffff;
  for (const byte of Buffer.from(payload, 'utf8')) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

export function pixCode(amount: number): string {
  const merchantAccount = tlv('00', 'br.gov.bcb.pix') + tlv('01', randomUUID());
  const payload = [
    tlv('00', '01'),
    tlv('26', merchantAccount),
    tlv('52', '0000'),
    tlv('53', '986'),
    tlv('54', (amount / 100).toFixed(2)),
    tlv('58', 'BR'),
    tlv('59', 'SANDBOX LTDA'),
    tlv('60', 'SAO PAULO'),
    tlv('62', tlv('05', randomChars(25, 'upper'))),
    '6304',
  ].join('');
  return payload + crc16(payload);
}

export function boletoLine(amount: number): string {
  const digits = (count: number) => randomChars(count, 'digits');
  return `23793.38128 60000.000003 ${digits(5)}.${digits(6)} 1 ${digits(4)}${String(amount).padStart(10, '0')}`;
}

/** pix codes expire in 30 minutes, boletos in 3 days; `url` is the sandbox's page for them. */
export function instructionsFor(method: Method, amount: number, url: string): Instructions {
  const minutes = method === 'pix' ? 30 : 3 * 24 * 60;
  const expiresAt = new Date(Date.now() + minutes * 60_000).toISOString();
  return method === 'pix'
    ? { type: 'pix', code: pixCode(amount), url, expiresAt }
    : { type: 'boleto', code: boletoLine(amount), url, expiresAt };
}
