/** Shape of one pattern rule (SPEC §3.1 (2)). Rules live in ./rules.ts. */
export interface Rule {
  /** Stable id, kebab-case, `<family>-<what>`; shown by `entire redact --stats`. */
  id: string;
  /** Credential family (provider or kind) the rule belongs to. */
  family: string;
  /** Lowercase literals; the rule runs only when one occurs in the lowercased text. */
  keywords: string[];
  /**
   * Regex source (compiled on first use with flag `g` plus `flags`). Must be
   * linear-time: bounded quantifiers, starts anchored on a literal or a
   * lookbehind so that a run is not re-scanned from every position.
   */
  regex?: string;
  flags?: string;
  /**
   * The regex starts with one of the keywords: it is then tried (sticky) only
   * where the keyword prefilter saw a keyword, instead of from every position.
   */
  anchored?: boolean;
  /**
   * For anchored rules of the `<name> = <value>` shape: every match starts at
   * a keyword made of name characters, then more name characters (`[\w.-]`,
   * fewer than ASSIGNMENT_NAME_MAX = 64 from the keyword's start), an optional
   * (backslash-escaped) quote, at most 3 whitespace and `:` or `=`. The engine
   * counts a keyword only where that glue follows (a few character checks
   * instead of a regex call per keyword); test/redact/assignment-prefilter.test.ts
   * checks the condition holds wherever the regex matches.
   */
  assignment?: boolean;
  /** Custom matcher instead of `regex`: returns the secrets found. */
  find?: (s: string) => string[];
  /** Dropped unless the secret's Shannon entropy is above this. */
  entropy?: number;
  /** Regexes tested against the secret; a match drops it. */
  allowlist?: RegExp[];
  /** Lowercase words; a secret containing one is dropped. */
  stopwords?: string[];
  /** Extra check on the secret; false drops it. */
  validate?: (secret: string) => boolean;
  /**
   * Check on the whole match (its groups, `index` and `input`), for rules whose
   * verdict depends on the context around the secret; false drops the match.
   */
  validateMatch?: (m: RegExpExecArray) => boolean;
}

/** A compiled rule, as the engine uses it. */
export interface CompiledRule extends Rule {
  index: number;
  re: RegExp | null;
  /** Sticky variant of `re` for anchored rules. */
  sticky: RegExp | null;
}
