// The `/json` entry: JSON that keeps int64 integers exact (as bigint beyond 2^53) and handles
// nesting far deeper than the engine's recursive JSON.parse/stringify allow — what the API server
// and the client both read and write with.
export {
  INT64_MAX,
  INT64_MIN,
  asDecodedInteger,
  int64Json,
  int64Literal,
  mayHoldLongIntegers,
  parseExactJson,
  sortedExactJson,
  stringifyExactJson,
  type InexactInteger,
} from "./exact-json.js";
export { parseValidJsonIteratively, stringifyIteratively, type NumberReviver } from "./deep-json.js";
