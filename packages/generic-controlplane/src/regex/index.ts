/** The linear-time (RE2) engine every client-supplied regular expression runs on. */
export { compileRegexp, regexpError, RegexpSyntaxError, type Regexp } from "./regexp.js";
