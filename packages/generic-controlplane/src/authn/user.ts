/** Who a request is from (upstream `user.Info`): what authentication finds and authorization decides on. */
export interface UserInfo {
  /** The user name, e.g. `jane` or `system:serviceaccount:default:builder`. */
  name: string;
  /** The groups the user is in, e.g. `system:authenticated`. */
  groups: string[];
  /** A unique value that identifies the user across time (a ServiceAccount's uid, a token file's uid column). */
  uid?: string;
  /** Additional information from the authenticator (e.g. a service account token's `authentication.kubernetes.io/credential-id`). */
  extra?: Record<string, string[]>;
}

/** Who a request is from when no authentication stage has set `ctx.user`. */
export const ANONYMOUS: UserInfo = { name: "system:anonymous", groups: ["system:unauthenticated"] };
