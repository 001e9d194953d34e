// The plain-JSON helpers every patch shares live in @kubekit/apimachinery; Go's printing of values stays here.
export { cloneJson, isJsonObject, jsonEqual, ownValue, setOwn, type JsonObject, type JsonValue } from "@kubekit/apimachinery";

/** Go's `%v`-ish rendering used inside upstream error messages. */
export function describeValue(value: unknown): string {
  return JSON.stringify(value) ?? String(value);
}

/**
 * A decoded JSON value printed the way Go's `fmt.Sprintf("%+v", …)` prints the
 * `map[string]interface{}` apimachinery decodes it into (integers kept as int64):
 * `map[data:map[a:b] immutable:[1 2]]`, with map keys sorted and `<nil>` for null.
 */
export function goSprintValue(value: unknown): string {
  if (value === null || value === undefined) return "<nil>";
  if (Array.isArray(value)) return `[${value.map(goSprintValue).join(" ")}]`;
  if (typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `map[${entries.map(([key, item]) => `${key}:${goSprintValue(item)}`).join(" ")}]`;
  }
  if (typeof value === "number") return goFloat(value);
  if (typeof value === "string") return value;
  return typeof value === "boolean" ? String(value) : (JSON.stringify(value) ?? "");
}

/** Go's `%v` of a number: int64s in full, other floats as `strconv.FormatFloat(f, 'g', -1, 64)`. */
function goFloat(value: number): string {
  if (Number.isInteger(value) && Math.abs(value) < 2 ** 63) return BigInt(value).toString();
  const [mantissa = "", exponentText = "0"] = value.toExponential().split("e");
  const exponent = Number(exponentText);
  // Shortest formatting switches to an exponent outside [1e-4, 1e6), as Go's 'g' does.
  if (exponent < -4 || exponent >= 6) {
    return `${mantissa}e${exponent < 0 ? "-" : "+"}${String(Math.abs(exponent)).padStart(2, "0")}`;
  }
  return String(value);
}
