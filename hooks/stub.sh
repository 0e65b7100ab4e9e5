# Entire CLI hooks: the fallback part of an installed hook. `entire enable` writes each hook as
# the recorded entire_stub/entire_hook/entire_node/entire_pkg, one line that sources
# <entire_pkg>/hooks/run.sh and chains (so upgrading the package upgrades the hook), then this,
# without these comments. A shell parses a script one command at a time, so a commit parses
# this only when that line did not end the hook: the package is gone, or none is recorded
# (husky and other shared hook files). It must work without the package:
# - the package of the `entire` on PATH, in npm's layouts (<prefix>/bin beside
#   <prefix>/lib/node_modules, node_modules/.bin beside its packages);
# - `command .`: a runner that is unreadable, or cut short by an upgrade, cannot stop git;
# - an `entire` installed some other way decides alone (Node starts on every hook);
# - no `entire` at all: one line, and git proceeds.
entire_pkg= entire_node= entire_d= IFS=:
for entire_d in $PATH; do [ -f "$entire_d/entire" ] && [ -x "$entire_d/entire" ] && break; entire_d=; done
unset IFS
for entire_p in "$entire_d/../lib/node_modules/entire" "$entire_d/../entire"; do
  if [ -n "$entire_d" ] && [ -f "$entire_p/hooks/run.sh" ]; then entire_pkg=$entire_p; break; fi
done
if [ -n "$entire_pkg" ]; then
  command . "$entire_pkg/hooks/run.sh"
elif command -v entire >/dev/null 2>&1; then
  # post-rewrite's input (the rewritten commits) goes to the CLI; a chained hook gets none here
  entire_in=/dev/null; [ "$entire_hook" = post-rewrite ] && entire_in=/dev/stdin
  (unset NODE_OPTIONS NODE_EXTRA_CA_CERTS; exec entire hooks git "$entire_hook" "$@") <"$entire_in" || true
else
  echo "[entire] 'entire' not found; skipping Entire $entire_hook hook" >&2
fi
