import { emptyError, maxLenError, regexError } from "./messages.js";

/**
 * Name and key validators with the rules and messages of apimachinery's `util/validation` and
 * `api/validation/path`. Each returns the list of problems (empty when valid), like upstream.
 */

const DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_LABEL_ERR =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
export const DNS1123_LABEL_MAX_LENGTH = 63;
const dns1123Label = new RegExp(`^${DNS1123_LABEL_FMT}$`);

const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_SUBDOMAIN_ERR =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
export const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;
const dns1123Subdomain = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);

const QNAME_CHAR_FMT = "[A-Za-z0-9]";
const QNAME_EXT_CHAR_FMT = "[-A-Za-z0-9_.]";
const QUALIFIED_NAME_FMT = `(${QNAME_CHAR_FMT}${QNAME_EXT_CHAR_FMT}*)?${QNAME_CHAR_FMT}`;
const QUALIFIED_NAME_ERR =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
export const QUALIFIED_NAME_MAX_LENGTH = 63;
const qualifiedName = new RegExp(`^${QUALIFIED_NAME_FMT}$`);

const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
const LABEL_VALUE_ERR =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
export const LABEL_VALUE_MAX_LENGTH = 63;
const labelValue = new RegExp(`^${LABEL_VALUE_FMT}$`);

const CONFIG_MAP_KEY_FMT = "[-._a-zA-Z0-9]+";
const CONFIG_MAP_KEY_ERR = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'";
const configMapKey = new RegExp(`^${CONFIG_MAP_KEY_FMT}$`);

/**
 * Length in bytes, as Go's `len(string)` counts: the UTF-8 encoding's length (a lone surrogate is
 * U+FFFD, 3 bytes, as TextEncoder writes it), counted without encoding, since names, label keys and
 * values are checked on every write.
 */
function byteLength(value: string): number {
  let bytes = value.length;
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    if (unit < 0x80) continue;
    if (unit < 0x800) bytes += 1;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < value.length && (value.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      // A surrogate pair: two code units, four bytes.
      bytes += 2;
      i++;
    } else bytes += 2;
  }
  return bytes;
}

/** `IsDNS1123Label`: at most 63 characters of `[a-z0-9-]`, alphanumeric at both ends. */
export function isDNS1123Label(value: string): string[] {
  const errors: string[] = [];
  if (byteLength(value) > DNS1123_LABEL_MAX_LENGTH) errors.push(maxLenError(DNS1123_LABEL_MAX_LENGTH));
  if (!dns1123Label.test(value)) {
    // A valid subdomain that is not a valid label can only be failing on its dots.
    if (dns1123Subdomain.test(value)) errors.push("must not contain dots");
    else errors.push(regexError(DNS1123_LABEL_ERR, DNS1123_LABEL_FMT, "my-name", "123-abc"));
  }
  return errors;
}

const DNS1035_LABEL_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?";
const DNS1035_LABEL_ERR =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const dns1035Label = new RegExp(`^${DNS1035_LABEL_FMT}$`);

/** `IsDNS1035Label`: like a DNS-1123 label, but starting with a letter. */
export function isDNS1035Label(value: string): string[] {
  const errors: string[] = [];
  if (byteLength(value) > DNS1123_LABEL_MAX_LENGTH) errors.push(maxLenError(DNS1123_LABEL_MAX_LENGTH));
  if (!dns1035Label.test(value)) errors.push(regexError(DNS1035_LABEL_ERR, DNS1035_LABEL_FMT, "my-name", "abc-123"));
  return errors;
}

/** `IsDNS1123Subdomain`: at most 253 characters, dot-separated DNS-1123 labels. */
export function isDNS1123Subdomain(value: string): string[] {
  const errors: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) errors.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!dns1123Subdomain.test(value)) errors.push(regexError(DNS1123_SUBDOMAIN_ERR, DNS1123_SUBDOMAIN_FMT, "example.com"));
  return errors;
}

/** `IsQualifiedName`: label and annotation keys, finalizer names: `[prefix/]name`. */
export function isQualifiedName(value: string): string[] {
  const errors: string[] = [];
  const parts = value.split("/");
  let name: string;
  if (parts.length === 1) {
    name = parts[0] ?? "";
  } else if (parts.length === 2) {
    const prefix = parts[0] ?? "";
    name = parts[1] ?? "";
    if (prefix.length === 0) errors.push(`prefix part ${emptyError()}`);
    else for (const msg of isDNS1123Subdomain(prefix)) errors.push(`prefix part ${msg}`);
  } else {
    errors.push(
      `a qualified name ${regexError(QUALIFIED_NAME_ERR, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    );
    return errors;
  }
  if (name.length === 0) errors.push(`name part ${emptyError()}`);
  else if (byteLength(name) > QUALIFIED_NAME_MAX_LENGTH) errors.push(`name part ${maxLenError(QUALIFIED_NAME_MAX_LENGTH)}`);
  if (!qualifiedName.test(name))
    errors.push(`name part ${regexError(QUALIFIED_NAME_ERR, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")}`);
  return errors;
}

/** `IsValidLabelValue`: empty, or at most 63 characters shaped like a qualified name's name part. */
export function isValidLabelValue(value: string): string[] {
  const errors: string[] = [];
  if (byteLength(value) > LABEL_VALUE_MAX_LENGTH) errors.push(maxLenError(LABEL_VALUE_MAX_LENGTH));
  if (!labelValue.test(value)) errors.push(regexError(LABEL_VALUE_ERR, LABEL_VALUE_FMT, "MyValue", "my_value", "12345"));
  return errors;
}

/** `IsConfigMapKey`: keys of ConfigMap/Secret `data`, which become file names in volumes. */
export function isConfigMapKey(value: string): string[] {
  const errors: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) errors.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!configMapKey.test(value)) errors.push(regexError(CONFIG_MAP_KEY_ERR, CONFIG_MAP_KEY_FMT, "key.name", "KEY_NAME", "key-name"));
  if (value === ".") errors.push("must not be '.'");
  else if (value === "..") errors.push("must not be '..'");
  else if (value.startsWith("..")) errors.push("must not start with '..'");
  return errors;
}

const PATH_SEGMENT_MAY_NOT_BE = [".", ".."];
const PATH_SEGMENT_MAY_NOT_CONTAIN = ["/", "%"];

/** `IsValidPathSegmentName`: anything that fits in one URL path segment. */
export function isValidPathSegmentName(value: string): string[] {
  for (const illegal of PATH_SEGMENT_MAY_NOT_BE) {
    if (value === illegal) return [`may not be '${illegal}'`];
  }
  return isValidPathSegmentPrefix(value);
}

/** `IsValidPathSegmentPrefix`: the rule for a generateName of a path-segment-named type. */
export function isValidPathSegmentPrefix(value: string): string[] {
  return PATH_SEGMENT_MAY_NOT_CONTAIN.filter((illegal) => value.includes(illegal)).map((illegal) => `may not contain '${illegal}'`);
}

/**
 * A `ValidateNameFunc`: validates a name, or with `prefix` a generateName (which may end in `-`
 * since random characters follow it).
 */
export type NameValidator = (name: string, prefix: boolean) => string[];

/** Upstream's `maskTrailingDash`, quirk included: it replaces the last two characters by `a`. */
function maskTrailingDash(name: string): string {
  if (name.length > 1 && name.endsWith("-")) return `${name.slice(0, -2)}a`;
  return name;
}

export const nameIsDNSSubdomain: NameValidator = (name, prefix) => isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);
export const nameIsDNSLabel: NameValidator = (name, prefix) => isDNS1123Label(prefix ? maskTrailingDash(name) : name);
export const validatePathSegmentName: NameValidator = (name, prefix) =>
  prefix ? isValidPathSegmentPrefix(name) : isValidPathSegmentName(name);

export type NameRule = "DNS1123Subdomain" | "DNS1123Label" | "PathSegment";

export function nameValidatorFor(rule: NameRule = "DNS1123Subdomain"): NameValidator {
  switch (rule) {
    case "DNS1123Label":
      return nameIsDNSLabel;
    case "PathSegment":
      return validatePathSegmentName;
    case "DNS1123Subdomain":
      return nameIsDNSSubdomain;
  }
}

/** The rule for a namespace name (also used for `metadata.namespace`). */
export const validateNamespaceName: NameValidator = nameIsDNSLabel;
