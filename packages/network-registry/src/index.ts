export { VERSION } from "./version.js";
export { NetworkRegistryError, isNetworkRegistryError } from "./errors.js";
export type { NetworkRegistryErrorCode, NetworkRegistryErrorOptions, ParseRule } from "./errors.js";
export type { IPFamily } from "./words.js";
export { IPAddress } from "./address.js";
export { Prefix, MAX_SPLIT_PIECES } from "./prefix.js";
export { parseAddress, parsePrefix, parsePrefixOrAddress, isCanonicalAddress, isCanonicalPrefix, fixAddress, fixPrefix } from "./parse.js";
export { PrefixTrie } from "./trie.js";
export type { PrefixEntry } from "./trie.js";
