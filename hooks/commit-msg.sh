# Only a message that still holds a trailer can need the CLI here.
if entire_live || entire_has_trailer "$1"; then
  entire_run commit-msg "$@"
fi
