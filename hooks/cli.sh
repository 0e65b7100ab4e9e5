# Entire CLI hooks: starts the CLI for hook $entire_hook, sourced by hooks/run.sh once it decided
# the CLI is needed. Fail-open: the CLI's status is ignored and a missing CLI costs one line.
# Its stdin is /dev/null, except post-rewrite's: the list of rewritten commits.
# NODE_OPTIONS and NODE_EXTRA_CA_CERTS are cleared (the latter costs ~80 ms per start), the
# originals kept for children that need them; ENTIRE_GIT_PID tells the CLI which git runs it.
[ -n "${entire_gp-}" ] || entire_git_pid
ENTIRE_ORIG_NODE_OPTIONS=${NODE_OPTIONS-}
ENTIRE_ORIG_NODE_EXTRA_CA_CERTS=${NODE_EXTRA_CA_CERTS-}
ENTIRE_GIT_PID=${entire_gp-}
export ENTIRE_ORIG_NODE_OPTIONS ENTIRE_ORIG_NODE_EXTRA_CA_CERTS ENTIRE_GIT_PID
entire_cli() {
  if [ -n "$entire_node" ] && [ -x "$entire_node" ] && [ -f "$entire_pkg/bin/entire.cjs" ]; then
    (unset NODE_OPTIONS NODE_EXTRA_CA_CERTS; exec "$entire_node" "$entire_pkg/bin/entire.cjs" hooks git "$entire_hook" "$@") || true
  elif command -v entire >/dev/null 2>&1; then
    (unset NODE_OPTIONS NODE_EXTRA_CA_CERTS; exec entire hooks git "$entire_hook" "$@") || true
  else
    echo "[entire] 'entire' not found; skipping Entire $entire_hook hook" >&2
  fi
}
# post-rewrite's input, the rewritten commits, was read by run.sh (the chained hook gets it too)
if [ "$entire_hook" = post-rewrite ]; then printf '%s' "${entire_rw-}" | entire_cli "$@"
else entire_cli "$@" </dev/null; fi
