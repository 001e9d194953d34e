// apimachinery's validation message builders: one implementation, in @kubekit/apimachinery.
export { FIELD_IMMUTABLE_ERROR_MSG, IS_NEGATIVE_ERROR_MSG, emptyError, maxLenError, regexError } from "@kubekit/apimachinery";
