/** Minor units ↔ the decimal strings some providers want (ISO 4217 exponents). */
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

export function currencyExponent(currency: string): number {
  const code = currency.toUpperCase();
  return ZERO_DECIMAL.has(code) ? 0 : THREE_DECIMAL.has(code) ? 3 : 2;
}

/** 1050 BRL → "10.50"; 1050 CLP → "1050". Integer arithmetic, no float rounding. */
export function toDecimal(amount: number, currency: string): string {
  const exponent = currencyExponent(currency);
  if (exponent === 0) return String(amount);
  const text = String(amount).padStart(exponent + 1, '0');
  return `${text.slice(0, -exponent)}.${text.slice(-exponent)}`;
}

/** "10.5" or 10.5 BRL → 1050; null when not a non-negative decimal. */
export function fromDecimal(value: unknown, currency: string): number | null {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value : null;
  if (text === null || !/^\d+(\.\d+)?$/.test(text)) return null;
  const exponent = currencyExponent(currency);
  const [whole, fraction = ''] = text.split('.');
  return Number(whole) * 10 ** exponent + Number((fraction + '000').slice(0, exponent) || '0');
}
