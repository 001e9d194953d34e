import { CelScalar, celError, celFunc, celMethod, listType, mapType } from "@bufbuild/cel";
import { OpaqueType } from "./opaque.js";

/**
 * Kubernetes' URL library (apiserver `library/urls.go`): `url()` accepts an absolute URI or an
 * absolute path, `isURL`, and the getters `getScheme`, `getHost`, `getHostname`, `getPort`,
 * `getEscapedPath` and `getQuery` (a map from each key to its values).
 */

interface ParsedURL {
  text: string;
  scheme: string;
  host: string;
  hostname: string;
  port: string;
  escapedPath: string;
  query: Map<string, string[]>;
}

const SCHEME = /^([a-zA-Z][a-zA-Z0-9+.-]*):/;

function parseURL(text: string): ParsedURL | undefined {
  const scheme = SCHEME.exec(text)?.[1];
  if (scheme === undefined && !text.startsWith("/")) return undefined;
  if ([...text].some((c) => c.charCodeAt(0) <= 0x20 || c.charCodeAt(0) === 0x7f)) return undefined;
  let url: URL;
  try {
    url = new URL(text, "http://placeholder.invalid");
  } catch {
    return undefined;
  }
  const authority = scheme === undefined ? undefined : /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/([^/?#]*)/.exec(text)?.[1];
  const host = authority === undefined ? "" : authority.replace(/^[^@]*@/, "");
  const bracketed = /^\[([^\]]*)\](?::(\d*))?$/.exec(host);
  const hostname = bracketed !== null ? (bracketed[1] ?? "") : host.replace(/:\d*$/, "");
  const port = bracketed !== null ? (bracketed[2] ?? "") : (/:(\d*)$/.exec(host)?.[1] ?? "");
  const query = new Map<string, string[]>();
  for (const [key, value] of url.searchParams) query.set(key, [...(query.get(key) ?? []), value]);
  const pathMatch = scheme === undefined ? /^([^?#]*)/.exec(text) : /^[a-zA-Z][a-zA-Z0-9+.-]*:(?:\/\/[^/?#]*)?([^?#]*)/.exec(text);
  return { text, scheme: scheme ?? "", host, hostname, port, escapedPath: pathMatch?.[1] ?? "", query };
}

const urlType = new OpaqueType<ParsedURL>("kubernetes.URL");

function expectURL(value: unknown): ParsedURL {
  return urlType.expect(value);
}

export const urlLibrary = [
  celFunc("url", [CelScalar.STRING], CelScalar.DYN, (text) => {
    const parsed = parseURL(text);
    if (parsed === undefined) throw celError(`URL parse error during conversion from string: parse "${text}": invalid URI for request`);
    return urlType.wrap(parsed, text);
  }),
  celFunc("isURL", [CelScalar.STRING], CelScalar.BOOL, (text) => parseURL(text) !== undefined),
  celMethod("getScheme", CelScalar.DYN, [], CelScalar.STRING, function () {
    return expectURL(this).scheme;
  }),
  celMethod("getHost", CelScalar.DYN, [], CelScalar.STRING, function () {
    return expectURL(this).host;
  }),
  celMethod("getHostname", CelScalar.DYN, [], CelScalar.STRING, function () {
    return expectURL(this).hostname;
  }),
  celMethod("getPort", CelScalar.DYN, [], CelScalar.STRING, function () {
    return expectURL(this).port;
  }),
  celMethod("getEscapedPath", CelScalar.DYN, [], CelScalar.STRING, function () {
    return expectURL(this).escapedPath;
  }),
  celMethod("getQuery", CelScalar.DYN, [], mapType(CelScalar.STRING, listType(CelScalar.STRING)), function () {
    return expectURL(this).query;
  }),
];

/** `string(url)`. */
export function urlText(value: unknown): string | undefined {
  return urlType.unwrap(value)?.text;
}
