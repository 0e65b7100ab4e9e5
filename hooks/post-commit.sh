# The intent file is written by prepare-commit-msg whenever there is work.
if entire_live || [ -e "$entire_gd/entire-commit-intent.json" ]; then
  entire_run post-commit "$@"
fi
