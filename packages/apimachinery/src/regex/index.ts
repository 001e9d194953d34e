/**
 * `@kubekit/apimachinery/regex`: the linear-time (RE2) engine every client-supplied regular
 * expression runs on, with Go's `regexp` syntax and errors. It needs `re2js`, an optional peer
 * dependency, so the root entry stays free of dependencies.
 */
export { compileRegexp, regexpError, RegexpSyntaxError, type Regexp } from "./regexp.js";
