/**
 * JSON text of a value with object keys sorted and `undefined` fields left out, so two values that
 * mean the same give the same text whatever order their fields were written in: what compares
 * specs and statuses, and what a pod template's hash is taken of (the hash stays as long as this
 * text does).
 */
export function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableStringify(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}
