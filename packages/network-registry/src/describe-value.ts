/**
 * A short description of any value for an error message. Never throws (JSON.stringify does on
 * BigInt and cycles, String does on some objects), so validation can always say what it got.
 */
export function describeValue(value: unknown): string {
  switch (typeof value) {
    case "string":
      return JSON.stringify(value.length > 64 ? `${value.slice(0, 61)}...` : value);
    case "number":
    case "boolean":
    case "undefined":
      return String(value);
    case "bigint":
      return `${value}n`;
    case "symbol":
      return "a symbol";
    case "function":
      return "a function";
    default:
      return value === null ? "null" : Array.isArray(value) ? "a list" : "an object";
  }
}
