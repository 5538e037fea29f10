/** Names longer than this many characters are cut (keeping their extension): a header stays small. */
const MAX_NAME_CHARS = 120;

/**
 * A `Content-Disposition: attachment` value for a download named `filename`, built as RFC 6266
 * asks: a plain `filename` for old clients, with everything but letters, digits, `.`, `_` and `-`
 * replaced by `_`, and a `filename*` carrying the exact name as percent-encoded UTF-8 (RFC 8187).
 * Whatever `filename` holds (quotes, CR/LF, `;`, non-Latin-1 characters, lone surrogates), the
 * value is one line of visible ASCII that Headers accepts and that no parameter can escape from.
 */
export function attachmentDisposition(filename: string): string {
  const name = shorten(wellFormed(filename));
  const fallback = Array.from(name, (char) => (/^[A-Za-z0-9._-]$/.test(char) ? char : "_")).join("");
  return `attachment; filename="${fallback}"; filename*=UTF-8''${percentEncode(name)}`;
}

/** `text` with every lone surrogate replaced by U+FFFD, so that it has a UTF-8 form. */
function wellFormed(text: string): string {
  return text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD");
}

/** `name` cut to MAX_NAME_CHARS characters (code points), its short extension kept. */
function shorten(name: string): string {
  const chars = Array.from(name);
  if (chars.length <= MAX_NAME_CHARS) return name;
  const extension = /\.[A-Za-z0-9]{1,10}$/.exec(name)?.[0] ?? "";
  return chars.slice(0, MAX_NAME_CHARS - extension.length).join("") + extension;
}

/**
 * UTF-8 percent-encoding that leaves only RFC 8187's attr-chars as they are: letters, digits and
 * !#$&+-.^_`|~ (encodeURIComponent also leaves '()* alone, which attr-char does not allow).
 */
function percentEncode(text: string): string {
  return encodeURIComponent(text).replace(
    /[^A-Za-z0-9%!#$&+\-.^_`|~]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`,
  );
}
