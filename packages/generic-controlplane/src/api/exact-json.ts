// Exact int64 JSON lives in @kubekit/client (the client reads responses with it); the server's
// modules import it through here.
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
} from "@kubekit/client/json";
