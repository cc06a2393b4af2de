/**
 * adapterFor(slug): the one adapter per provider; supportsThreeDs(slug): whether it runs 3-D Secure. providerBaseUrl:
 * where a connector's calls go — the sandbox PSP (config.sandboxUrl + /<slug>) for test-mode connectors, the
 * provider's live API otherwise.
 */
import { type ConnectorAdapter, type ProviderResult, UnsupportedProviderError } from './connector';
import { checkoutAdapter } from './checkout/adapter';
import { providerAAdapter } from './provider_a/adapter';
import { providerBAdapter } from './provider_b/adapter';
import { providerCAdapter } from './provider_c/adapter';
import { providerDAdapter } from './provider_d/adapter';

/**
 * Provider texts are kept bounded and without card data. A provider's error or decline message goes
 * into transaction_attempts.error_message, activity results (Temporal history) and the API; some providers echo
 * request fields, so a card number or CVC could otherwise be stored in clear text (PCI DSS 3.4). Every adapter's
 * answer passes through here (registry.ts), whatever the provider.
 */
export const PROVIDER_TEXT_MAX_CHARS = 300;

/**
 * A run of digit groups joined by single spaces, dashes, dots or slashes: how card numbers are written, and how an
 * echo puts other fields next to them ("4242… 123", "4111 1111 1111 1111 12/27"). The whole run is one candidate,
 * so a card number is found inside it rather than missed because the run is longer than a card number.
 */
const DIGIT_RUN = /\d+(?:[ ./-]\d+)*/g;
const RUN_SEPARATOR = /[ ./-]/;
const PAN_LENGTHS = { min: 12, max: 19 };
/**
 * A CVC/CVV/CID named next to its value: "cvc 123", "cvv=1234", "security code: 123", "[cvc]=123", and the same
 * percent-encoded ("card%5Bcvc%5D=123") as an echoed form body would carry it.
 */
const SECURITY_CODE =
  /(?:(?<=%5B)|\b)(cvc2?|cvv2?|cid|csc|security[ _-]?code)((?:%5[BD]|%22|%3[AD]|\W){0,4})\d{3,4}\b/gi;

/**
 * 11 to 14 digits, bare or punctuated as Brazilian documents are written (123.456.789-09, 12.345.678/0001-95): masked
 * when they are a valid CPF (11) or CNPJ (14) by their check digits, which an issuer's or provider's text may echo.
 * Other numbers (an order or reference number) stay readable.
 */
const DOCUMENT_RUN = /\d(?:[./-]?\d){10,13}/g;

/** The two mod-11 check digits of a CPF or CNPJ over `digits` (first weights, then second). */
function mod11Valid(digits: string, weights: number[][]): boolean {
  if (/^(\d)\1+$/.test(digits)) return false;
  return weights.every((w) => {
    const sum = w.reduce((total, weight, i) => total + weight * (digits.charCodeAt(i) - 48), 0);
    const remainder = sum % 11;
    return digits.charCodeAt(w.length) - 48 === (remainder < 2 ? 0 : 11 - remainder);
  });
}
const CPF_WEIGHTS = [
  [10, 9, 8, 7, 6, 5, 4, 3, 2],
  [11, 10, 9, 8, 7, 6, 5, 4, 3, 2],
];
const CNPJ_WEIGHTS = [
  [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2],
  [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2],
];
function isDocumentNumber(run: string): boolean {
  const digits = run.replace(/[./-]/g, '');
  if (digits.length === 11) return mod11Valid(digits, CPF_WEIGHTS);
  return digits.length === 14 && mod11Valid(digits, CNPJ_WEIGHTS);
}

function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i += 1) {
    let digit = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/**
 * Whether a run holds a card number: some 12 to 19 consecutive digits that pass Luhn, starting where one of the
 * run's groups starts (a card number is written as its own field, even with other digits right after it). A run
 * that is exactly a valid CPF or CNPJ is left to the document mask.
 */
function holdsCardNumber(run: string): boolean {
  const groups = run.split(RUN_SEPARATOR);
  const digits = groups.join('');
  if (digits.length < PAN_LENGTHS.min || isDocumentNumber(run)) return false;
  let start = 0;
  for (const group of groups) {
    const longest = Math.min(PAN_LENGTHS.max, digits.length - start);
    for (let length = PAN_LENGTHS.min; length <= longest; length += 1) {
      if (luhnValid(digits.slice(start, start + length))) return true;
    }
    start += group.length;
  }
  return false;
}

/**
 * The text with Luhn-valid card numbers (the whole run of digits around them), CPF/CNPJ numbers and named security codes masked, cut to
 * PROVIDER_TEXT_MAX_CHARS.
 */
export function scrubProviderText(text: string): string {
  const masked = text
    .replace(DIGIT_RUN, (run) => (holdsCardNumber(run) ? '[card number removed]' : run))
    .replace(DOCUMENT_RUN, (run) => (isDocumentNumber(run) ? '[document number removed]' : run))
    .replace(SECURITY_CODE, (_match, name: string, separator: string) => `${name}${separator}[removed]`);
  return masked.length > PROVIDER_TEXT_MAX_CHARS ? `${masked.slice(0, PROVIDER_TEXT_MAX_CHARS - 1)}…` : masked;
}

/** A provider answer (any adapter method's result) with its rawMessage scrubbed; anything else as it is. */
export function scrubProviderAnswer<T>(answer: T): T {
  if (answer === null || typeof answer !== 'object' || !('rawMessage' in answer)) return answer;
  const { rawMessage } = answer as { rawMessage: unknown };
  if (typeof rawMessage !== 'string') return answer;
  return { ...answer, rawMessage: scrubProviderText(rawMessage) };
}

/**
 * The adapter with every provider text it returns scrubbed and bounded (scrubProviderText above): whatever a
 * provider echoes, no card number or CVC reaches an attempt row, a workflow history or a response.
 */
function scrubbed(adapter: ConnectorAdapter): ConnectorAdapter {
  const answer =
    <A extends unknown[]>(call: (...args: A) => Promise<ProviderResult>) =>
    async (...args: A) =>
      scrubProviderAnswer(await call(...args));
  return {
    slug: adapter.slug,
    reads: adapter.reads,
    authorize: answer(adapter.authorize.bind(adapter)),
    capture: answer(adapter.capture.bind(adapter)),
    void: answer(adapter.void.bind(adapter)),
    refund: answer(adapter.refund.bind(adapter)),
    verifyCard: answer(adapter.verifyCard.bind(adapter)),
    ...(adapter.retrieve ? { retrieve: answer(adapter.retrieve.bind(adapter)) } : {}),
    ...(adapter.completeAuthentication
      ? { completeAuthentication: answer(adapter.completeAuthentication.bind(adapter)) }
      : {}),
    async lookup(call, request) {
      const looked = await adapter.lookup(call, request);
      return looked.status === 'found' ? { ...looked, result: scrubProviderAnswer(looked.result) } : looked;
    },
    parseWebhook: (request) => adapter.parseWebhook(request),
    async testCredentials(call) {
      const tested = await adapter.testCredentials(call);
      return { ...tested, message: scrubProviderText(tested.message) };
    },
  };
}

const ADAPTERS: Readonly<Record<string, ConnectorAdapter>> = {
  provider_a: scrubbed(providerAAdapter),
  provider_b: scrubbed(providerBAdapter),
  provider_c: scrubbed(providerCAdapter),
  provider_d: scrubbed(providerDAdapter),
  checkout: scrubbed(checkoutAdapter),
};

/** Live API hosts (the catalog's provider domains; unreachable from development machines). */
export const LIVE_BASE_URLS: Readonly<Record<string, string>> = {
  provider_a: 'https://api.provider-a.example',
  provider_b: 'https://checkout.provider-b.example',
  provider_c: 'https://api.provider-c.example',
  provider_d: 'https://api.provider-d.example',
  checkout: 'https://api.checkout.example',
};

/** provider_e is inactive in the catalog and has no adapter. */
export function adapterFor(slug: string): ConnectorAdapter {
  const adapter = ADAPTERS[slug];
  if (!adapter) throw new UnsupportedProviderError(slug);
  return adapter;
}

export function hasAdapter(slug: string): boolean {
  return slug in ADAPTERS;
}

/**
 * Which providers' adapters run 3-D Secure (request it, relay the challenge, read the result). Routing reads it: a
 * node with require_3ds `always` skips a connector whose provider cannot (three_ds_unsupported), `if_supported`
 * authenticates only where it can. provider_a (Stripe), checkout (Checkout.com), provider_c (Mercado Pago) and
 * provider_b (Adyen: its verdict is /payments/details on the redirectResult the buyer's return carries) run it in
 * their own shapes (docs/api-decisions.md, "3-D Secure in each provider's dialect"). Authorize.net's API has no
 * 3-D Secure of its own (it takes results from a separate MPI), so provider_d never authenticates.
 */
const THREE_DS_PROVIDERS: ReadonlySet<string> = new Set(['provider_a', 'checkout', 'provider_c', 'provider_b']);

export const supportsThreeDs = (providerSlug: string): boolean => THREE_DS_PROVIDERS.has(providerSlug);

export function providerBaseUrl(slug: string, isTestMode: boolean, config: { sandboxUrl: string }): string {
  if (isTestMode) return `${config.sandboxUrl}/${slug}`;
  const live = LIVE_BASE_URLS[slug];
  if (!live) throw new UnsupportedProviderError(slug);
  return live;
}
