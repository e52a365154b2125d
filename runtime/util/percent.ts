/**
 * RFC 3986 percent-encoding of UTF-8: letters, digits and `-._~` stay, everything else is `%XX`
 * (encodeURIComponent also leaves `! ' ( ) *`). A lone surrogate, which has no UTF-8 and makes
 * encodeURIComponent throw, is sent as U+FFFD, as TextEncoder writes it.
 */
export function percentEncode(s: string): string {
  const wellFormed = s.replace(LONE_SURROGATE, '\ufffd');
  return encodeURIComponent(wellFormed).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
