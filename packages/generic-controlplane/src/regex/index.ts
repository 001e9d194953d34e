/** The linear-time (RE2) engine every client-supplied regular expression runs on: one implementation, in @kubekit/apimachinery. */
export { compileRegexp, regexpError, RegexpSyntaxError, type Regexp } from "@kubekit/apimachinery/regex";
