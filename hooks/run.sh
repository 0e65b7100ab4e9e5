# Entire CLI hooks: the fast path installed hooks source (interface: hooks/README.md). Builtins
# only: it decides whether the CLI is needed (SPEC §8.11). Parsed on every commit: keep it short.
entire_gd=${GIT_DIR:-.git}
if [ -f "$entire_gd" ]; then
  IFS= read -r entire_l < "$entire_gd" || true
  entire_gd=${entire_l#gitdir: }
fi
entire_cd=$entire_gd
if [ -f "$entire_gd/commondir" ]; then
  IFS= read -r entire_l < "$entire_gd/commondir" || true
  case $entire_l in /*) entire_cd=$entire_l ;; *) entire_cd=$entire_gd/$entire_l ;; esac
fi
entire_trailer() {
  [ -f "$1" ] || return 1
  while IFS= read -r entire_l || [ -n "$entire_l" ]; do
    case $entire_l in Entire-Checkpoint:*) return 0 ;; esac
  done < "$1"
  return 1
}
# git's pid (the hook may run under a wrapper shell, as with husky)
entire_git_pid() {
  entire_gp=$PPID entire_i=0
  while [ "$entire_i" -lt 4 ] && [ -r "/proc/$entire_gp/comm" ]; do
    IFS= read -r entire_l < "/proc/$entire_gp/comm" || break
    [ "$entire_l" = git ] && break
    IFS= read -r entire_l < "/proc/$entire_gp/stat" || break
    entire_l=${entire_l##*) } && entire_l=${entire_l#* } && entire_gp=${entire_l%% *}
    entire_i=$((entire_i + 1))
  done
}
entire_amend() {
  entire_git_pid
  [ -r "/proc/$entire_gp/cmdline" ] || return 0
  while IFS= read -r entire_l || [ -n "$entire_l" ]; do
    case $entire_l in *--am*) return 0 ;; esac
  done < "/proc/$entire_gp/cmdline"
  return 1
}
# post-rewrite: git's list of rewritten commits, kept for the CLI and for the chained hook
if [ "$entire_hook" = post-rewrite ] && [ -z "${entire_rw+x}" ]; then
  entire_rw=
  while IFS= read -r entire_l || [ -n "$entire_l" ]; do entire_rw="$entire_rw$entire_l
"; done
fi
entire_need=
if [ -e "$entire_cd/entire-sessions/LIVE" ]; then entire_need=1
else
  case $entire_hook in
    # a trailer (amend keeps it, -c/-C drop a copied one), or `--amend -m/-F`, which would lose it
    # … or the end of a `merge --squash` (the squashed commits' ids go to the note)
    prepare-commit-msg) { entire_trailer "$1" || { [ "${2-}" = message ] && entire_amend; } || [ -f "$entire_gd/SQUASH_MSG" ]; } && entire_need=1 ;;
    commit-msg) entire_trailer "$1" && entire_need=1 ;;
    # prepare-commit-msg writes the intent whenever there is work
    post-commit) { [ -e "$entire_gd/entire-commit-intent.json" ] || [ -e "$entire_gd/entire-commit-intent.json.squash" ]; } && entire_need=1 ;;
    # a rebase may fold a linked commit into another (its id must move to the note); an amend
    # keeps its trailer and git copies the note (notes.rewriteRef)
    post-rewrite) [ "${1-}" = rebase ] && entire_need=1 ;;
    *) entire_need=1 ;;
  esac
fi
[ -z "$entire_need" ] || command . "$entire_pkg/hooks/cli.sh"
