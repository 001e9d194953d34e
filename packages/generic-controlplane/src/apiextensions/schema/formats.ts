import { parseCIDRSloppy, parseIPSloppy } from "@kubekit/apimachinery";
import { parseGoDuration } from "../../api/go-duration.js";

/**
 * The string formats custom resources are validated against: kube-openapi's `strfmt` registry,
 * restricted to the set apiextensions-apiserver supports (`supportedFormats`). Any other format,
 * including the numeric `int32`/`int64`/`float`/`double`, is stripped from the schema before
 * validation upstream, so it constrains nothing here either. Names are normalised by dropping
 * dashes (`date-time` is `datetime`), as go-openapi does.
 */

/** Go's `net.ParseIP` (sloppy about leading zeros): no zones, IPv4-in-IPv6 allowed. */
function isIP(text: string): boolean {
  return parseIPSloppy(text) !== undefined;
}

/** Go's `net.ParseCIDR`, which takes the family from the address as written. */
function isCIDR(text: string): boolean {
  return parseCIDRSloppy(text) !== undefined;
}

/** `net.ParseMAC`: 6, 8 or 20 octets separated by `:` or `-`, or groups of four hex digits separated by `.`. */
function isMAC(text: string): boolean {
  const lengths = new Set([6, 8, 20]);
  if (text.length < 14) return false;
  if (text[2] === ":" || text[2] === "-") {
    const parts = text.split(text[2]);
    return lengths.has(parts.length) && parts.every((p) => /^[0-9a-fA-F]{2}$/.test(p));
  }
  if (text[4] === ".") {
    const parts = text.split(".");
    return lengths.has(parts.length * 2) && parts.every((p) => /^[0-9a-fA-F]{4}$/.test(p));
  }
  return false;
}

const HOSTNAME =
  /^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9\-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$/u;

function isHostname(text: string): boolean {
  return HOSTNAME.test(text) && Buffer.byteLength(text) <= 255 && text.split(".").every((p) => Buffer.byteLength(p) <= 63);
}

/** `time.Parse("2006-01-02", …)`: a real calendar date. */
function isDate(text: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (m === null) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1) return false;
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return day <= days;
}

const DATE_TIME_TAIL = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$/;

/** strfmt's `IsDateTime`: an RFC 3339 date, `T`, then a time with a zone. */
function isDateTime(text: string): boolean {
  if (text.length < 4) return false;
  const parts = text.toLowerCase().split("t");
  if (parts.length < 2 || !isDate(parts[0] ?? "")) return false;
  const m = DATE_TIME_TAIL.exec(parts[1] ?? "");
  if (m === null) return false;
  return (m[1] ?? "") <= "23" && (m[2] ?? "") <= "59" && (m[3] ?? "") <= "59";
}

const DURATION_UNITS: ReadonlyArray<readonly string[]> = [
  ["ns", "nano"],
  ["us", "µs", "micro"],
  ["ms", "milli"],
  ["s", "sec"],
  ["m", "min"],
  ["h", "hr", "hour"],
  ["d", "day"],
  ["w", "wk", "week"],
];

/** strfmt's `ParseDuration`: Go's `time.ParseDuration`, or `<n> <unit>` pairs such as `3 days`. */
function isDuration(text: string): boolean {
  try {
    parseGoDuration(text);
    return true;
  } catch {
    // Fall through to the lenient form.
  }
  for (const match of text.matchAll(/(\d+)\s*([A-Za-zµ]+)/g)) {
    const unit = (match[2] ?? "").trim().toLowerCase();
    for (const variants of DURATION_UNITS) {
      const last = variants.length - 1;
      if (variants.some((v, i) => (i === last && unit.startsWith(v)) || v === unit)) return true;
    }
  }
  return false;
}

/** `url.ParseRequestURI`: an absolute URI, or an absolute path; no fragment handling beyond Go's. */
/** ASCII control characters, which Go's URL parser rejects. */
function hasControl(text: string): boolean {
  return [...text].some((c) => {
    const code = c.charCodeAt(0);
    return code < 0x20 || code === 0x7f;
  });
}

function isRequestURI(text: string): boolean {
  if (text === "") return false;
  if (text.startsWith("/")) return !hasControl(text);
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):(.*)$/s.exec(text);
  if (scheme === null) return false;
  const rest = scheme[2] ?? "";
  if (hasControl(rest)) return false;
  if (rest.startsWith("//")) {
    const authority = rest.slice(2).split(/[/?#]/)[0] ?? "";
    if (authority.includes(" ")) return false;
  }
  // An opaque tail (`mailto:x`) is accepted; a relative path after the scheme is too, as in Go.
  return true;
}

/** Go's `net/mail.ParseAddress`, for the common forms: `local@domain` or `Name <local@domain>`. */
function isEmail(text: string): boolean {
  const angle = /^[^<>]*<([^<>]+)>\s*$/.exec(text);
  const address = angle !== null ? (angle[1] ?? "") : text.trim();
  const m = /^([^@\s]+)@([^@\s]+)$/.exec(address);
  if (m === null) return false;
  const local = m[1] ?? "";
  const domain = m[2] ?? "";
  const atom = /^[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~]+(\.[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~]+)*$/;
  const quoted = /^"([^"\\]|\\.)*"$/;
  return (atom.test(local) || quoted.test(local)) && (atom.test(domain) || /^\[[^\]]*\]$/.test(domain));
}

function luhn(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let n = Number(digits[i]);
    if (double) {
      n *= 2;
      sum += n >= 10 ? (n % 10) + 1 : n;
    } else {
      sum += n;
    }
    double = !double;
  }
  return sum % 10 === 0;
}

const CREDIT_CARD =
  /^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11})$/;

function isCreditCard(text: string): boolean {
  const digits = text.replace(/[^0-9]+/g, "");
  return CREDIT_CARD.test(digits) && luhn(digits);
}

function isISBN(text: string, version: 10 | 13): boolean {
  const s = text.replace(/[\s-]+/g, "");
  if (version === 10) {
    if (!/^(?:[0-9]{9}X|[0-9]{10})$/.test(s)) return false;
    let sum = 0;
    for (let i = 0; i < 9; i++) sum += (i + 1) * Number(s[i]);
    sum += s[9] === "X" ? 100 : 10 * Number(s[9]);
    return sum % 11 === 0;
  }
  if (!/^[0-9]{13}$/.test(s)) return false;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += (i % 2 === 0 ? 1 : 3) * Number(s[i]);
  return Number(s[12]) - ((10 - (sum % 10)) % 10) === 0;
}

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

const CHECKS: Record<string, (text: string) => boolean> = {
  bsonobjectid: (t) => /^[0-9a-fA-F]{24}$/.test(t),
  uri: isRequestURI,
  email: isEmail,
  hostname: isHostname,
  ipv4: (t) => isIP(t) && !t.includes(":"),
  ipv6: (t) => isIP(t) && t.includes(":"),
  cidr: isCIDR,
  mac: isMAC,
  uuid: (t) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(t),
  uuid3: (t) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(t),
  uuid4: (t) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i.test(t),
  uuid5: (t) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i.test(t),
  isbn: (t) => isISBN(t, 10) || isISBN(t, 13),
  isbn10: (t) => isISBN(t, 10),
  isbn13: (t) => isISBN(t, 13),
  creditcard: isCreditCard,
  ssn: (t) => t.length === 11 && /^\d{3}[- ]?\d{2}[- ]?\d{4}$/.test(t),
  hexcolor: (t) => /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.test(t),
  rgbcolor: (t) =>
    /^rgb\(\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*\)$/.test(
      t,
    ),
  byte: (t) => /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$/.test(t),
  password: () => true,
  date: isDate,
  duration: isDuration,
  datetime: isDateTime,
  "k8s-short-name": (t) => t.length <= 63 && DNS1123_LABEL.test(t),
  "k8s-long-name": (t) => t.length <= 253 && t.split(".").every((label) => DNS1123_LABEL.test(label)),
};

/** Names as go-openapi's registry compares them. */
function normalize(format: string): string {
  return format.startsWith("k8s-") ? format : format.replaceAll("-", "");
}

/** The check for `format`, or undefined when custom resources do not validate that format. */
export function formatCheck(format: string | undefined): ((text: string) => boolean) | undefined {
  if (format === undefined || format === "") return undefined;
  return CHECKS[normalize(format)];
}
