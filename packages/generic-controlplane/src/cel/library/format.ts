import { CelScalar, celError, celFunc, celMethod } from "@bufbuild/cel";
import { isDNS1035Label, isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue } from "@kubekit/apimachinery";
import { OpaqueType } from "./opaque.js";
import { optionalNone, optionalOf } from "./optional.js";

/**
 * Kubernetes' format library (apiserver `library/format.go`): `format.dns1123Label()` and the
 * other named formats, `format.named('…')` (an optional), and `<format>.validate(value)`, which
 * is `optional.none()` for a valid value and the validation errors otherwise. The name formats
 * reuse the validators object names are checked with, so messages match exactly.
 */

type Validator = (value: string) => string[];

/** A prefix may end in a dash, as generateName prefixes do. */
function prefixOf(validate: Validator): Validator {
  return (value) => validate(value.endsWith("-") ? value.slice(0, -1) : value);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

function validDate(value: string): boolean {
  const match = DATE.exec(value);
  if (match === null) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.getUTCDate() === Number(match[3]);
}

const FORMATS: Record<string, Validator> = {
  dns1123Label: isDNS1123Label,
  dns1123Subdomain: isDNS1123Subdomain,
  dns1035Label: isDNS1035Label,
  qualifiedName: isQualifiedName,
  dns1123LabelPrefix: prefixOf(isDNS1123Label),
  dns1123SubdomainPrefix: prefixOf(isDNS1123Subdomain),
  dns1035LabelPrefix: prefixOf(isDNS1035Label),
  labelValue: isValidLabelValue,
  uri: (value) => (/^([a-zA-Z][a-zA-Z0-9+.-]*:|\/)/.test(value) && URL.canParse(value, "http://base.invalid") ? [] : ["invalid URI"]),
  uuid: (value) => (UUID.test(value) ? [] : ["does not match the UUID format"]),
  byte: (value) => (/^[A-Za-z0-9+/]*={0,2}$/.test(value) && value.length % 4 === 0 ? [] : ["invalid base64"]),
  date: (value) => (validDate(value) ? [] : ["invalid date"]),
  datetime: (value) => (DATETIME.test(value) && !Number.isNaN(Date.parse(value.replace(" ", "T"))) ? [] : ["invalid datetime"]),
};

const formatType = new OpaqueType<Validator>("net.k8s.io.format");
const wrapped = new Map(Object.entries(FORMATS).map(([name, validate]) => [name, formatType.wrap(validate, name)]));

function named(name: string) {
  const format = wrapped.get(name);
  if (format === undefined) throw celError(`unknown format: ${name}`);
  return format;
}

export const formatLibrary = [
  ...Object.keys(FORMATS).map((name) => celFunc(`format.${name}`, [], CelScalar.DYN, () => named(name))),
  celFunc("format.named", [CelScalar.STRING], CelScalar.DYN, (name) => {
    const format = wrapped.get(name);
    return format === undefined ? optionalNone() : optionalOf(format);
  }),
  celMethod("validate", CelScalar.DYN, [CelScalar.STRING], CelScalar.DYN, function (value) {
    const errors = formatType.expect(this)(value);
    return errors.length === 0 ? optionalNone() : optionalOf(errors);
  }),
];
