# Entire CLI hooks: shared prelude (inlined into each hook by `entire enable`).
# Fail-open: nothing here may stop git. Builtins only on the fast path, so a
# repository with no live agent session pays for the shell and nothing else.
entire_gd=${GIT_DIR:-.git}
if [ -f "$entire_gd" ]; then
  IFS= read -r entire_l < "$entire_gd" || true
  entire_gd=${entire_l#gitdir: }
fi
entire_cd=$entire_gd
if [ -f "$entire_gd/commondir" ]; then
  IFS= read -r entire_l < "$entire_gd/commondir" || true
  case "$entire_l" in /*) entire_cd=$entire_l ;; *) entire_cd=$entire_gd/$entire_l ;; esac
fi
# git's pid (the hook may run under a wrapper shell, as with husky)
entire_gp=$PPID
entire_i=0
while [ "$entire_i" -lt 4 ] && [ -r "/proc/$entire_gp/comm" ]; do
  IFS= read -r entire_l < "/proc/$entire_gp/comm" || break
  [ "$entire_l" = git ] && break
  IFS= read -r entire_l < "/proc/$entire_gp/stat" || break
  entire_l=${entire_l##*) }
  entire_l=${entire_l#* }
  entire_gp=${entire_l%% *}
  entire_i=$((entire_i + 1))
done
entire_run() {
  entire_h=$1
  shift
  ENTIRE_ORIG_NODE_OPTIONS=${NODE_OPTIONS-}
  ENTIRE_ORIG_NODE_EXTRA_CA_CERTS=${NODE_EXTRA_CA_CERTS-}
  ENTIRE_GIT_PID=$entire_gp
  export ENTIRE_ORIG_NODE_OPTIONS ENTIRE_ORIG_NODE_EXTRA_CA_CERTS ENTIRE_GIT_PID
  if [ -n "$entire_node" ] && [ -x "$entire_node" ] && [ -f "$entire_cli" ]; then
    (unset NODE_OPTIONS NODE_EXTRA_CA_CERTS; exec "$entire_node" "$entire_cli" hooks git "$entire_h" "$@") </dev/null || true
  elif command -v entire >/dev/null 2>&1; then
    (unset NODE_OPTIONS NODE_EXTRA_CA_CERTS; exec entire hooks git "$entire_h" "$@") </dev/null || true
  else
    echo "[entire] 'entire' not found; skipping Entire $entire_h hook" >&2
  fi
}
entire_live() {
  [ -e "$entire_cd/entire-sessions/LIVE" ]
}
entire_has_trailer() {
  [ -f "$1" ] || return 1
  while IFS= read -r entire_l || [ -n "$entire_l" ]; do
    case "$entire_l" in Entire-Checkpoint:*) return 0 ;; esac
  done < "$1"
  return 1
}
entire_is_amend() {
  [ -r "/proc/$entire_gp/cmdline" ] || return 0
  while IFS= read -r entire_l || [ -n "$entire_l" ]; do
    case "$entire_l" in *--am*) return 0 ;; esac
  done < "/proc/$entire_gp/cmdline"
  return 1
}
