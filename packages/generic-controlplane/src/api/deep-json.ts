// The iterative JSON reader and writer live in @kubekit/client beside exact JSON, which uses them.
export { parseValidJsonIteratively, stringifyIteratively, type NumberReviver } from "@kubekit/client/json";
