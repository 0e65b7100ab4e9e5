# Runs the CLI when a session is live, when the message carries a trailer
# (amend keeps it, -c/-C must drop a copied one), or for `--amend -m/-F`,
# which would otherwise lose the commit's trailer.
if entire_live; then
  entire_run prepare-commit-msg "$@"
elif entire_has_trailer "$1"; then
  entire_run prepare-commit-msg "$@"
elif [ "${2-}" = message ] && entire_is_amend; then
  entire_run prepare-commit-msg "$@"
fi
