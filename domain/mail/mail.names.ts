/**
 * Names people choose (merchant, organization and member names) are plain single-line text. The API refuses
 * anything else on the way in; platform mail also renders every name through inertName, so rows stored before
 * the rule (or by other paths) cannot break a line, reorder text or show a clickable link in our name.
 */

/**
 * What a name may not hold: C0 and C1 controls (line breaks, tabs …), the line and paragraph separators, and the
 * bidi marks, embeddings, overrides and isolates that reorder how the text around them displays. Zero-width
 * joiners stay: some scripts and emoji need them.
 */
// eslint-disable-next-line no-control-regex -- control characters are exactly what this looks for
export const NOT_PLAIN_TEXT = /[\u0000-\u001F\u007F-\u009F\u061C\u200E\u200F\u2028-\u202E\u2066-\u2069]/;
const NOT_PLAIN_TEXT_ALL = new RegExp(NOT_PLAIN_TEXT.source, 'g');

/** A URL scheme ("https://") or a host-like dot ("evil.example"): what mail clients turn into links. */
const SCHEME = /([a-z][a-z0-9+.-]*):\/\//gi;
const HOST_DOT = /(?<=[\p{L}\p{N}_-])\.(?=[\p{L}\p{N}])/gu;

/** Longest name shown in mail: a name, not a paragraph. */
const MAX_NAME_CHARS = 80;

/**
 * The name as one inert line for a mail: control and bidi characters become spaces, whitespace runs collapse,
 * link-looking text is defanged the usual way ("https[://]evil[.]example", which no client links), and a long
 * name is cut. Quoted by the caller, so it reads as a name, not as the platform's words.
 */
export function inertName(name: string): string {
  const line = name
    .replace(NOT_PLAIN_TEXT_ALL, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(SCHEME, '$1[://]')
    .replace(HOST_DOT, '[.]');
  return line.length > MAX_NAME_CHARS ? `${line.slice(0, MAX_NAME_CHARS - 1)}…` : line;
}
