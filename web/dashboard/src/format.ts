/** Money in the currency's own format and dates in the reader's locale (the browser's language settings). */
const moneyFormats = new Map<string, Intl.NumberFormat>();

function moneyFormat(currency: string): Intl.NumberFormat {
  let format = moneyFormats.get(currency);
  if (!format) {
    format = new Intl.NumberFormat(undefined, { style: 'currency', currency });
    moneyFormats.set(currency, format);
  }
  return format;
}

/** Amounts are integers in minor units; the currency says how many (JPY 0, USD 2, BHD 3). */
export function money(minor: number | null | undefined, currency: string | null | undefined): string {
  if (minor === null || minor === undefined || !currency) return '—';
  try {
    const format = moneyFormat(currency);
    const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
    return format.format(minor / 10 ** digits);
  } catch {
    return `${minor} ${currency} (minor units)`;
  }
}

/** The minor units a typed amount means in the currency (12.34 USD → 1234). NaN when it is not a number. */
export function toMinor(typed: string, currency: string): number {
  const digits = moneyFormat(currency).resolvedOptions().maximumFractionDigits ?? 2;
  const value = Number(typed.replace(',', '.'));
  return Number.isFinite(value) ? Math.round(value * 10 ** digits) : NaN;
}

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });

export function when(iso: string | null | undefined): string {
  return iso ? dateTime.format(new Date(iso)) : '—';
}

export function day(iso: string | null | undefined): string {
  return iso ? dateOnly.format(new Date(iso)) : '—';
}

/** snake_case → "Snake case" for statuses and codes shown to people. */
export function label(value: string | null | undefined): string {
  if (!value) return '—';
  const words = value.replace(/[_.]/g, ' ');
  return words[0].toUpperCase() + words.slice(1);
}
