declare const __PACKAGE_VERSION__: string;

/** The version of this package, taken from its package.json at build time. */
export const VERSION: string = __PACKAGE_VERSION__;
