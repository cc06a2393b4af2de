/** Decimal amounts (Mercado Pago, Authorize.net) ↔ minor units, with ISO 4217 exponents. */
const ZERO_DECIMAL = new Set([
  'BIF',
  'CLP',
  'DJF',
  'GNF',
  'ISK',
  'JPY',
  'KMF',
  'KRW',
  'PYG',
  'RWF',
  'UGX',
  'VND',
  'VUV',
  'XAF',
  'XOF',
  'XPF',
]);
const THREE_DECIMAL = new Set(['BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND']);

export function exponentOf(currency: string): number {
  const code = currency.toUpperCase();
  return ZERO_DECIMAL.has(code) ? 0 : THREE_DECIMAL.has(code) ? 3 : 2;
}

/** null when the value is not a non-negative decimal with at most the currency's number of decimals. */
export function decimalToMinor(value: unknown, currency: string): number | null {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value : null;
  const exponent = exponentOf(currency);
  if (text === null || !new RegExp(`^\\d+(\\.\\d{1,${Math.max(exponent, 1)}})?$`).test(text)) return null;
  const [whole, fraction = ''] = text.split('.');
  if (exponent === 0 && fraction.replace(/0/g, '') !== '') return null;
  return Number(whole) * 10 ** exponent + Number((fraction + '000').slice(0, exponent) || '0');
}

export function minorToDecimal(amount: number, currency: string): string {
  const exponent = exponentOf(currency);
  return exponent === 0 ? String(amount) : (amount / 10 ** exponent).toFixed(exponent);
}
