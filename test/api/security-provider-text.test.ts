/**
 * Provider texts are stored without card data and bounded: a provider that echoes the
 * request in its error message (some do) must not put a card number or CVC into an attempt row, a workflow history
 * or an API answer. Every adapter from the registry scrubs what it returns.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { adapterFor } from '../../domain/connectors/registry';
import { PROVIDER_TEXT_MAX_CHARS, scrubProviderText } from '../../domain/connectors/registry';
import { card, credentialsFor } from '../helpers/sandbox';

/** A provider_a look-alike that declines every card with a message quoting the whole request body. */
async function echoingProvider() {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.stringify({
        error: {
          type: 'card_error',
          code: 'card_declined',
          decline_code: 'do_not_honor',
          message: `Declined request: ${Buffer.concat(chunks).toString('utf8')}`,
          payment_intent: { id: 'pi_echo', status: 'requires_payment_method' },
        },
      });
      res.writeHead(402, { 'content-type': 'application/json' }).end(body);
    });
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('Provider messages keep no card data', () => {
  it('a decline message echoing the card number and CVC is stored masked and bounded', async () => {
    const provider = await echoingProvider();
    try {
      const answer = await adapterFor('provider_a').authorize(
        {
          baseUrl: provider.url,
          credentials: credentialsFor('provider_a'),
          idempotencyKey: 'idem-echo',
          timeoutMs: 5000,
        },
        {
          amount: 1000,
          currency: 'USD',
          paymentMethod: 'card',
          capture: true,
          reference: 'tx_echo',
          card: card('4000000000000002', { cvc: '737' }),
        },
      );
      expect(answer.outcome).to.equal('soft_decline');
      const message = answer.rawMessage as string;
      expect(message).to.match(/^Declined request: /);
      expect(message).to.not.include('4000000000000002');
      expect(message).to.not.match(/737/);
      expect(message.length).to.be.at.most(PROVIDER_TEXT_MAX_CHARS);
    } finally {
      await provider.close();
    }
  });

  it('masks Luhn-valid card numbers however grouped and named security codes, and keeps other numbers', () => {
    expect(scrubProviderText('card 4242 4242 4242 4242 refused')).to.equal('card [card number removed] refused');
    expect(scrubProviderText('pan=5555-5555-5555-4444')).to.equal('pan=[card number removed]');
    expect(scrubProviderText('CVV: 123, cvc%5D=4567')).to.equal('CVV: [removed], cvc%5D=[removed]');
    // A form body echoed back (provider_a sends the card as card[cvc]): the name follows "%5B", not a word boundary.
    expect(scrubProviderText('card%5Bcvc%5D=737&x=1')).to.equal('card%5Bcvc%5D=[removed]&x=1');
    // Not a card number (Luhn fails): an order or reference number stays readable.
    expect(scrubProviderText('order 1234567890123 failed')).to.equal('order 1234567890123 failed');
    expect(scrubProviderText('x'.repeat(1000))).to.have.length(PROVIDER_TEXT_MAX_CHARS);
  });

  it('the provider-text scrubber finds card numbers by Luhn across separators: spaces, dashes, dots, slashes and next to other digits', () => {
    const masked = (text: string) => {
      const out = scrubProviderText(text);
      expect(out.replace(/\D/g, ''), `${text} → ${out}`).to.not.match(/4242424242424242|4111111111111111/);
      return out;
    };
    expect(masked('Card 4242424242424242 declined')).to.equal('Card [card number removed] declined');
    expect(masked('Invalid card 4242424242424242 123')).to.equal('Invalid card [card number removed]');
    expect(masked('Invalid card 4111 1111 1111 1111 12/27')).to.equal('Invalid card [card number removed]');
    expect(masked('number: 4242424242424242 1230 cvc 123')).to.equal('number: [card number removed] cvc [removed]');
    expect(masked('card 4242.4242.4242.4242')).to.equal('card [card number removed]');
    expect(masked('card 4242/4242/4242/4242 refused')).to.equal('card [card number removed] refused');
    // Fixed-width echoes: the number with its expiry appended, and a field before it.
    expect(masked('pan 42424242424242421227')).to.equal('pan [card number removed]');
    expect(masked('ref 991 4111-1111-1111-1111 exp 12/27')).to.equal('ref [card number removed] exp 12/27');
    // Runs with no Luhn-valid card number in them stay readable.
    expect(scrubProviderText('order 1234567890123 on 2026-11-28 12/27')).to.equal(
      'order 1234567890123 on 2026-11-28 12/27',
    );
  });

  it('masks a CPF or CNPJ (valid by its check digits) however punctuated, and keeps other 11- and 14-digit numbers', () => {
    expect(scrubProviderText('titular CPF 123.456.789-09 recusado')).to.equal(
      'titular CPF [document number removed] recusado',
    );
    expect(scrubProviderText('cpf=12345678909')).to.equal('cpf=[document number removed]');
    expect(scrubProviderText('CNPJ 11.222.333/0001-81')).to.equal('CNPJ [document number removed]');
    expect(scrubProviderText('cnpj 11222333000181')).to.equal('cnpj [document number removed]');
    // Check digits wrong: an order or reference number, kept.
    expect(scrubProviderText('order 12345678900')).to.equal('order 12345678900');
    expect(scrubProviderText('ref 11222333000100')).to.equal('ref 11222333000100');
  });
});
