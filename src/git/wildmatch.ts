/**
 * git's wildmatch (wildmatch.c, dowild), for the patterns of
 * `[includeIf "gitdir:…"]` and `[includeIf "onbranch:…"]`: `*`, `**`, `?`,
 * `[…]` classes (ranges, `!`/`^`, `[:alpha:]`…), `\` escapes, on bytes, with
 * WM_PATHNAME (a `*` does not match `/`; `**` between slashes matches any
 * number of directories) and optionally WM_CASEFOLD (ASCII only).
 */

const MATCH = 0;
const NOMATCH = 1;
const ABORT_ALL = -1;
const ABORT_TO_STARSTAR = -2;

const isUpper = (c: number): boolean => c >= 65 && c <= 90;
const isLower = (c: number): boolean => c >= 97 && c <= 122;
const isDigit = (c: number): boolean => c >= 48 && c <= 57;
const lower = (c: number): number => (isUpper(c) ? c + 32 : c);
const isGlobSpecial = (c: number): boolean => c === 0x2a || c === 0x3f || c === 0x5b || c === 0x5c; // * ? [ \

function classMatches(name: string, t: number, casefold: boolean): boolean | null {
  switch (name) {
    case 'alnum':
      return isUpper(t) || isLower(t) || isDigit(t);
    case 'alpha':
      return isUpper(t) || isLower(t);
    case 'blank':
      return t === 0x20 || t === 0x09;
    case 'cntrl':
      return t < 0x20 || t === 0x7f;
    case 'digit':
      return isDigit(t);
    case 'graph':
      return t > 0x20 && t < 0x7f;
    case 'lower':
      return isLower(t);
    case 'print':
      return t >= 0x20 && t < 0x7f;
    case 'punct':
      return t > 0x20 && t < 0x7f && !isUpper(t) && !isLower(t) && !isDigit(t);
    case 'space':
      return t === 0x20 || (t >= 0x09 && t <= 0x0d);
    case 'upper':
      return isUpper(t) || (casefold && isLower(t));
    case 'xdigit':
      return isDigit(t) || (t >= 65 && t <= 70) || (t >= 97 && t <= 102);
    default:
      return null; // malformed [:class:]
  }
}

/** Byte at i, 0 past the end (C strings). */
const at = (b: Uint8Array, i: number): number => (i < b.length ? b[i]! : 0);

function dowild(p: Uint8Array, pi: number, text: Uint8Array, ti: number, pathname: boolean, casefold: boolean): number {
  const patternStart = pi; // git's `pattern`: where this (recursive) call starts
  for (; pi < p.length; ti++, pi++) {
    let pc = p[pi]!;
    let tc = at(text, ti);
    if (tc === 0 && pc !== 0x2a) return ABORT_ALL;
    if (casefold) {
      tc = lower(tc);
      pc = lower(pc);
    }
    switch (pc) {
      case 0x5c: // '\\': the next character literally (not case-folded, as in git)
        pc = at(p, ++pi);
        if (tc !== pc) return NOMATCH;
        continue;
      case 0x3f: // '?'
        if (pathname && tc === 0x2f) return NOMATCH;
        continue;
      case 0x2a: {
        // '*'
        let matchSlash: boolean;
        if (at(p, ++pi) === 0x2a) {
          const prev = pi - 2;
          while (at(p, ++pi) === 0x2a) {
            /* skip */
          }
          if ((prev < patternStart || p[prev] === 0x2f) && (pi >= p.length || p[pi] === 0x2f || (p[pi] === 0x5c && at(p, pi + 1) === 0x2f))) {
            if (p[pi] === 0x2f && dowild(p, pi + 1, text, ti, pathname, casefold) === MATCH) return MATCH;
            matchSlash = true;
          } else matchSlash = false; // WM_PATHNAME set
        } else matchSlash = !pathname;
        if (pi >= p.length) {
          // a trailing ** matches everything, a trailing * only up to a slash
          if (!matchSlash && text.indexOf(0x2f, ti) >= 0) return NOMATCH;
          return MATCH;
        } else if (!matchSlash && p[pi] === 0x2f) {
          const slash = text.indexOf(0x2f, ti);
          if (slash < 0) return NOMATCH;
          ti = slash; // the slash is consumed by the loop
          break;
        }
        for (;;) {
          if (tc === 0) break;
          if (!isGlobSpecial(p[pi]!)) {
            let want = p[pi]!;
            if (casefold) want = lower(want);
            let t2 = at(text, ti);
            while (t2 !== 0 && (matchSlash || t2 !== 0x2f)) {
              if (casefold) t2 = lower(t2);
              if (t2 === want) break;
              ti++;
              t2 = at(text, ti);
            }
            tc = t2;
            if (tc !== want) return NOMATCH;
          }
          const m = dowild(p, pi, text, ti, pathname, casefold);
          if (m !== NOMATCH) {
            if (!matchSlash || m !== ABORT_TO_STARSTAR) return m;
          } else if (!matchSlash && tc === 0x2f) return ABORT_TO_STARSTAR;
          tc = at(text, ++ti);
          if (casefold) tc = lower(tc);
        }
        return ABORT_ALL;
      }
      case 0x5b: {
        // '['
        pc = at(p, ++pi);
        if (pc === 0x5e) pc = 0x21; // '^' negates as '!' does
        const negated = pc === 0x21;
        if (negated) pc = at(p, ++pi);
        let prev = 0;
        let matched = false;
        do {
          if (pc === 0) return ABORT_ALL;
          if (pc === 0x5c) {
            pc = at(p, ++pi);
            if (pc === 0) return ABORT_ALL;
            if (tc === pc) matched = true;
          } else if (pc === 0x2d && prev !== 0 && at(p, pi + 1) !== 0 && at(p, pi + 1) !== 0x5d) {
            pc = at(p, ++pi);
            if (pc === 0x5c) {
              pc = at(p, ++pi);
              if (pc === 0) return ABORT_ALL;
            }
            if (tc <= pc && tc >= prev) matched = true;
            else if (casefold && isLower(tc)) {
              const up = tc - 32;
              if (up <= pc && up >= prev) matched = true;
            }
            pc = 0; // prev becomes 0
          } else if (pc === 0x5b && at(p, pi + 1) === 0x3a) {
            const s = (pi += 2);
            while (pi < p.length && p[pi] !== 0x5d) pi++;
            if (pi >= p.length) return ABORT_ALL;
            const len = pi - s - 1;
            if (len < 0 || p[pi - 1] !== 0x3a) {
              // no ":]": a plain '['
              pi = s - 2;
              pc = 0x5b;
              if (tc === pc) matched = true;
            } else {
              const name = Buffer.from(p.subarray(s, s + len)).toString('latin1');
              const r = classMatches(name, tc, casefold);
              if (r === null) return ABORT_ALL;
              if (r) matched = true;
              pc = 0;
            }
          } else if (tc === pc) matched = true;
          prev = pc;
          pc = at(p, ++pi);
        } while (pc !== 0x5d);
        if (matched === negated || (pathname && tc === 0x2f)) return NOMATCH;
        continue;
      }
      default:
        if (tc !== pc) return NOMATCH;
        continue;
    }
  }
  return ti < text.length ? NOMATCH : MATCH;
}

/** Whether `text` matches `pattern` as git's wildmatch(pattern, text, WM_PATHNAME[|WM_CASEFOLD]) === 0. */
export function wildmatch(pattern: string, text: string, opts: { pathname?: boolean; casefold?: boolean } = {}): boolean {
  return dowild(Buffer.from(pattern, 'utf8'), 0, Buffer.from(text, 'utf8'), 0, opts.pathname === true, opts.casefold === true) === MATCH;
}
