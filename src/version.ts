declare const __ENTIRE_VERSION__: string | undefined;
declare const __ENTIRE_COMMIT__: string | undefined;

/** Version of this build; `dev` when run from sources (tests through vitest). */
export const VERSION: string = typeof __ENTIRE_VERSION__ === 'string' ? __ENTIRE_VERSION__ : 'dev';
export const COMMIT: string = typeof __ENTIRE_COMMIT__ === 'string' ? __ENTIRE_COMMIT__ : 'unknown';
/** `cli_version` we write into metadata and state (SPEC §2.4). */
export const CLI_VERSION = `ts-${VERSION}`;
