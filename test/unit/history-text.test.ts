/** historyText, the one way tests read a workflow history for what it must not hold. */
import { expect } from 'chai';
import { historyText } from '../helpers/history-text';

const payload = (json: unknown) => ({
  metadata: { encoding: Buffer.from('json/plain') },
  data: Buffer.from(JSON.stringify(json)),
});

describe('historyText', () => {
  it('finds text inside payloads held as Node Buffers (whose toJSON would hide it as byte values)', () => {
    const history = { events: [{ input: { payloads: [payload({ secret: 'whsec_hidden' })] } }] };
    expect(JSON.stringify(history)).to.not.include('whsec_hidden');
    expect(historyText(history)).to.include('whsec_hidden');
  });

  it('finds text inside plain Uint8Array payloads and base64 strings, and keeps the base64 form searchable', () => {
    const bytes = new Uint8Array(Buffer.from('4242424242424242'));
    expect(historyText({ data: bytes })).to.include('4242424242424242');
    expect(historyText({ data: bytes })).to.include(Buffer.from('4242424242424242').toString('base64'));
    expect(historyText({ data: Buffer.from('sk_live_x').toString('base64') })).to.include('sk_live_x');
  });
});
