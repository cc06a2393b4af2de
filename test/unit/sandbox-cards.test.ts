import { expect } from 'chai';
import { amountScenario, cardFacts, luhnValid, TEST_CARDS } from '../../sandbox/cards';
import { crc16, pixCode } from '../../sandbox/instructions';
import { decimalToMinor, minorToDecimal } from '../../sandbox/money';
import { fromDecimal, toDecimal } from '../../domain/connectors/money';

describe('sandbox test cards', () => {
  it('every documented test card number is Luhn-valid and unique', () => {
    for (const test of TEST_CARDS) expect(luhnValid(test.number), test.number).to.equal(true);
    expect(new Set(TEST_CARDS.map((test) => test.number)).size).to.equal(TEST_CARDS.length);
  });

  it('reduces a card to scenario, brand and last four digits', () => {
    expect(cardFacts({ number: '4000 0000 0000 9979', expMonth: 1, expYear: 2099 })).to.deep.equal({
      scenario: 'stolen_card',
      brand: 'visa',
      last4: '9979',
    });
    expect(cardFacts({ number: '5555555555554444', expMonth: 1, expYear: 2099 })).to.deep.equal({
      scenario: 'approve',
      brand: 'mastercard',
      last4: '4444',
    });
  });

  it('the card that declines charges (0341) still verifies: its facts say so, and only it and the 3184 card do', () => {
    expect(cardFacts({ number: '4000000000000341', expMonth: 1, expYear: 2099 })).to.deep.equal({
      scenario: 'do_not_honor',
      brand: 'visa',
      last4: '0341',
      verifies: true,
    });
    expect(TEST_CARDS.filter((test) => test.verifies).map((test) => test.number)).to.deep.equal([
      '4000000000000341',
      '4000002760003184',
    ]);
  });

  it('the card that needs authentication on every charge (3184) verifies, then is a challenge card', () => {
    expect(cardFacts({ number: '4000002760003184', expMonth: 1, expYear: 2099 })).to.deep.equal({
      scenario: 'three_ds_challenge',
      brand: 'visa',
      last4: '3184',
      verifies: true,
    });
  });

  it('any other Luhn-valid number approves; a Luhn failure is an invalid number', () => {
    expect(cardFacts({ number: '4111111111111111', expMonth: 1, expYear: 2099 }).scenario).to.equal('approve');
    expect(cardFacts({ number: '4111111111111112', expMonth: 1, expYear: 2099 }).scenario).to.equal('invalid_number');
  });

  it('an expiry before the current month is an expired card; the current month is still valid', () => {
    const now = new Date('2026-11-21T00:00:00Z');
    expect(cardFacts({ number: '4242424242424242', expMonth: 10, expYear: 2026 }, now).scenario).to.equal(
      'expired_card',
    );
    expect(cardFacts({ number: '4242424242424242', expMonth: 11, expYear: 26 }, now).scenario).to.equal('approve');
    expect(cardFacts({ number: '4242424242424242', expMonth: 13, expYear: 2030 }, now).scenario).to.equal(
      'expired_card',
    );
  });

  it('amounts decide non-card payments by their last two digits', () => {
    expect([10_000, 151, 252, 353, 454, 555, 656, 757].map(amountScenario)).to.deep.equal([
      'approve',
      'do_not_honor',
      'insufficient_funds',
      'fraud',
      'processing_error',
      'timeout',
      'slow',
      'approve',
    ]);
  });
});

describe('decimal amounts on both sides of the wire', () => {
  it('converts minor units to decimals and back with ISO exponents', () => {
    expect([toDecimal(1050, 'BRL'), toDecimal(5, 'USD'), toDecimal(1050, 'CLP'), toDecimal(1050, 'KWD')]).to.deep.equal(
      ['10.50', '0.05', '1050', '1.050'],
    );
    expect([
      fromDecimal('10.5', 'BRL'),
      fromDecimal(0.05, 'USD'),
      fromDecimal('1050', 'CLP'),
      fromDecimal('x', 'USD'),
    ]).to.deep.equal([1050, 5, 1050, null]);
    expect([
      decimalToMinor('10.50', 'BRL'),
      decimalToMinor('10.505', 'BRL'),
      decimalToMinor('10.5', 'CLP'),
    ]).to.deep.equal([1050, null, null]);
    expect(minorToDecimal(1050, 'BRL')).to.equal('10.50');
  });
});

describe('sandbox pix codes', () => {
  it('computes the CRC16 the pix specification requires (the central bank example)', () => {
    const example =
      '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***6304';
    expect(crc16(example)).to.equal('1D3D');
  });

  it('builds a well-formed payload carrying the amount and ending in its own CRC', () => {
    const code = pixCode(12_345);
    expect(code)
      .to.match(/^000201/)
      .and.include('5406123.45');
    expect(code.slice(-4)).to.equal(crc16(code.slice(0, -4)));
  });
});
