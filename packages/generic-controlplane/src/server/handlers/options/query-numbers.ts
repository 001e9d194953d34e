import { badRequest } from "../../../api/errors/index.js";
import { INT64_MAX, INT64_MIN } from "../../../api/exact-json.js";
import type { ControlPlaneError } from "../../../api/errors/control-plane-error.js";

/**
 * An integer query parameter (`limit`, `timeoutSeconds`, `gracePeriodSeconds`) as apimachinery
 * converts it: Go's `strconv.ParseInt(value, 10, 64)`, so `0x10`, `1e3`, ` 1` and `""` are
 * invalid syntax and anything beyond int64 is out of range, each a 400 with Go's message. Values
 * beyond 2^53 come back rounded; callers clamp them to what they can use.
 */
export function parseInt64Query(value: string): number {
  if (!/^[+-]?\d+$/.test(value)) throw parseIntError(value, "invalid syntax");
  const exact = BigInt(value);
  if (exact < INT64_MIN || exact > INT64_MAX) throw parseIntError(value, "value out of range");
  return Number(exact);
}

function parseIntError(value: string, problem: string): ControlPlaneError {
  return badRequest(`strconv.ParseInt: parsing ${JSON.stringify(value)}: ${problem}`);
}
